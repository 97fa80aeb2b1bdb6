"""The site's build kept in pytest's cache (:func:`tests.render.conftest.cached_site_build`):
a second build over the same bytes is read from the cache, without Node, its API from one
file; a changed byte of the tree is built again, and so is an entry whose API file does
not match its digest."""

from __future__ import annotations

import shutil
from pathlib import Path

from .conftest import PACK, SiteBuild, api_files, cached_site_build, site_api


def _first_build(site_dir: Path, tree: Path, tmp_path: Path) -> tuple[Path, Path, SiteBuild]:
    """``(cache, work, build)``: a copy of ``tree`` (without ``public/``) built once into
    an empty cache folder."""
    cache, work = tmp_path / "cache", tmp_path / "tree"
    cache.mkdir()
    shutil.copytree(tree, work, ignore=shutil.ignore_patterns("public"))
    return cache, work, cached_site_build(site_dir, work, cache)


def test_the_same_tree_is_read_from_the_cache_and_a_changed_one_built_again(
        site_dir: Path, tree: Path, tmp_path: Path) -> None:
    cache, work, first = _first_build(site_dir, tree, tmp_path)
    assert first.ok, first.stderr
    built = api_files(first.public)
    assert built
    assert site_api(first) == built
    shutil.rmtree(work / "public")

    again = cached_site_build(site_dir, work, cache)
    assert not (work / "public").exists()  # Node did not run
    assert again.pack is not None and again.pack.is_relative_to(cache)
    assert (again.ok, again.stdout, again.stderr) == (first.ok, first.stdout, first.stderr)
    assert site_api(again) == built
    assert not again.public.exists()  # only the pack is kept unless asked

    with_folder = cached_site_build(site_dir, work, cache, keep_folder=True)
    assert (work / "public").is_dir()  # built again: the entry had no public/
    shutil.rmtree(work / "public")
    kept = cached_site_build(site_dir, work, cache, keep_folder=True)
    assert not (work / "public").exists()
    assert kept.public.is_relative_to(cache)
    assert api_files(kept.public) == built == site_api(kept) == site_api(with_folder)

    recipe = next((work / "models").rglob("*.yaml"))
    recipe.write_text(recipe.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    changed = cached_site_build(site_dir, work, cache)
    assert (work / "public").is_dir()  # built again
    assert changed.public == work / "public"
    assert len(list(cache.glob("*/build.json"))) == 2


def test_a_kept_api_that_does_not_match_its_digest_is_built_again(
        site_dir: Path, tree: Path, tmp_path: Path) -> None:
    cache, work, first = _first_build(site_dir, tree, tmp_path)
    assert first.pack is not None
    built = site_api(first)
    data = first.pack.read_bytes()
    first.pack.write_bytes(data[: len(data) // 2])  # a pack cut short
    shutil.rmtree(work / "public")

    again = cached_site_build(site_dir, work, cache)
    assert (work / "public").is_dir()  # Node ran again
    assert again.pack == first.pack and site_api(again) == built
    assert again.pack.name == PACK
