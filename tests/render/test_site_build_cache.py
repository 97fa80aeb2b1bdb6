"""The site's build kept in pytest's cache (:func:`tests.render.conftest.cached_site_build`):
a second build over the same bytes is read from the cache, without Node; a changed byte
of the tree is built again."""

from __future__ import annotations

import shutil
from pathlib import Path

from .conftest import api_files, cached_site_build


def test_the_same_tree_is_read_from_the_cache_and_a_changed_one_built_again(
        site_dir: Path, tree: Path, tmp_path: Path) -> None:
    cache, work = tmp_path / "cache", tmp_path / "tree"
    cache.mkdir()
    shutil.copytree(tree, work, ignore=shutil.ignore_patterns("public"))
    first = cached_site_build(site_dir, work, cache)
    assert first.ok, first.stderr
    built = api_files(first.public)
    assert built
    shutil.rmtree(work / "public")

    again = cached_site_build(site_dir, work, cache)
    assert not (work / "public").exists()  # Node did not run
    assert again.public.is_relative_to(cache)
    assert (again.ok, again.stdout, again.stderr) == (first.ok, first.stdout, first.stderr)
    assert api_files(again.public) == built

    recipe = next((work / "models").rglob("*.yaml"))
    recipe.write_text(recipe.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    changed = cached_site_build(site_dir, work, cache)
    assert (work / "public").is_dir()  # built again
    assert changed.public == work / "public"
    assert len(list(cache.glob("*/build.json"))) == 2
