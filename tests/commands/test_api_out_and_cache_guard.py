"""``render --api-out DIR`` has the guard of the report paths and ``publish``'s folders
(trial 9 #4: an API written into ``.git/refs/tags`` made the repository unclonable): a
``DIR`` in the git directory of a repository, in a snapshot store, in a cache folder or in
a folder of the recipes tree the site's build reads (``models/``, ``strategies/``,
``kv_store/``, ``quickstart/``) is refused, exit 2, nothing written; an API folder
elsewhere in the tree (the site's build writes ``public/``) is written. A report path
inside the run's cache folder is refused too (trial 9 #7: ``--output <cache>/CACHEDIR.TAG``
made ``cache clean`` refuse that cache for good)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.render.tiny_tree import commit_tree, write_tree
from validator.cli import main
from validator.owned_folder import CACHE_TAG, CACHE_TAG_TEXT

RECIPE = "models/acme/Voice-1B.yaml"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tiny recipes tree as a git repository, the working folder."""
    root = write_tree(tmp_path / "tree")
    commit_tree(root)
    monkeypatch.chdir(root)
    return root


def _files(folder: Path) -> list[str]:
    return sorted(str(Path(top, n).relative_to(folder)) for top, _, names in os.walk(folder)
                  for n in names)


@pytest.mark.parametrize(("place", "says"), [
    (".git/refs/tags", "the git directory of a repository"),
    (".git/api", "the git directory of a repository"),
    ("models/api", "models/ of the recipes tree"),
    ("strategies/api", "strategies/ of the recipes tree"),
    ("kv_store", "kv_store/ of the recipes tree"),
    ("quickstart/api", "quickstart/ of the recipes tree"),
])
def test_api_out_inside_git_or_the_trees_inputs_is_refused(
        tree: Path, place: str, says: str, capsys: pytest.CaptureFixture[str]) -> None:
    before = _files(tree)
    assert main(["render", "--api-out", place, RECIPE]) == 2
    err = capsys.readouterr().err
    assert f"--api-out {place}: " in err and says in err and "nothing written" in err, err
    assert _files(tree) == before


def test_api_out_inside_a_store_or_a_cache_is_refused(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "store"
    (store / "objects").mkdir(parents=True)
    assert main(["render", "--store-dir", str(store), "--api-out", str(store / "objects/api"),
                 RECIPE]) == 2
    assert "a snapshot store" in capsys.readouterr().err
    cache = tmp_path / "cache"
    (cache / "results").mkdir(parents=True)
    for folder in (cache / "results" / "api", cache):
        assert main(["render", "--cache-dir", str(cache), "--api-out", str(folder),
                     RECIPE]) == 2
        assert "a recipe-check cache folder" in capsys.readouterr().err
    assert _files(cache) == []


def test_api_out_in_the_sites_public_folder_is_written(tree: Path) -> None:
    assert main(["render", "--api-out", "public", RECIPE]) == 0
    assert (tree / "public" / "models.json").is_file()


def test_reports_inside_the_cache_folder_are_refused_and_cache_clean_still_works(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = tmp_path / "cache"
    assert main(["check", "--offline", "--cache-dir", str(cache), RECIPE]) in (0, 1)
    tag = (cache / CACHE_TAG).read_bytes()
    for option, path in (("--output", cache / CACHE_TAG), ("--json", cache / "x.json"),
                         ("--sarif", cache / "results" / "r.sarif")):
        assert main(["check", "--offline", "--cache-dir", str(cache), option, str(path),
                     RECIPE]) == 2
        err = capsys.readouterr().err
        assert f"{option} {path}: " in err and "a recipe-check cache folder" in err, err
    assert (cache / CACHE_TAG).read_bytes() == tag == CACHE_TAG_TEXT.encode()
    assert not (cache / "x.json").exists() and not (cache / "results" / "r.sarif").exists()
    assert main(["cache", "clean", "--cache-dir", str(cache)]) == 0
