"""A recipe path whose name is not valid UTF-8 (byte 0xFF) in an audited revision:
``history`` reports it as ``check`` and ``pr`` do (``PROV006``, the name written
``bad\\xff.yaml``), with the cache on or off, and ``--all-refs`` of an unrelated folder
passes it by -- no ``UnicodeEncodeError`` from a cache key or a shard of that name."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.history.fixed_date_git import git as _git
from tests.render.tiny_tree import write_tree
from validator.cli import main

RECIPE = "models/acme/Tiny-1B.yaml"
BAD = os.fsdecode(b"models/acme/bad\xff.yaml")
ESCAPED = "models/acme/bad\\xff.yaml"


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    """The tiny tree on ``main``; on branch ``latin`` a copy of its recipe named with byte
    0xFF. Returns the repository, main's commit and latin's."""
    root = write_tree(tmp_path / "repo")
    _git(root.parent, "init", "-q", "-b", "main", str(root))
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "tiny tree")
    main_commit = _git(root, "rev-parse", "HEAD")
    _git(root, "checkout", "-q", "-b", "latin")
    (root / BAD).write_bytes((root / RECIPE).read_bytes())
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "a name that is not UTF-8")
    return root, main_commit, _git(root, "rev-parse", "HEAD")


def _history(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    capsys.readouterr()
    code = main(["history", "--jobs", "1", "--format", "json", *argv])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("cache", ["--no-cache", "cold", "warm"])
def test_history_reports_an_undecodable_name_as_prov006(
        repo: tuple[Path, str, str], tmp_path: Path, cache: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    root, main_commit, latin = repo
    args = ["--repo", str(root), "--rev", latin, "--since", main_commit, "models/acme"]
    store = ["--cache-dir", str(tmp_path / "cache")]
    if cache == "warm":
        _history(capsys, *store, *args)
    code, report = _history(capsys, *(["--no-cache"] if cache == "--no-cache" else store),
                            *args)
    assert code in (0, 1)
    [revision] = report["revisions"]
    introduced = [c for c in revision["introduced"] if c["path"] == ESCAPED]
    assert [(c["rule"], c["message"]) for c in introduced] == [
        ("PROV006", "file not checked: the file name is not valid UTF-8")]


def test_history_all_refs_passes_an_undecodable_name_outside_the_path(
        repo: tuple[Path, str, str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    root, _main, _latin = repo
    code, report = _history(capsys, "--repo", str(root), "--all-refs",
                            "--cache-dir", str(tmp_path / "cache"), RECIPE)
    assert code in (0, 1)
    assert all(c["path"] != ESCAPED for r in report["revisions"] for c in r["introduced"])


def test_history_shards_an_undecodable_name(repo: tuple[Path, str, str],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    root, main_commit, latin = repo
    found = []
    for shard in ("1/2", "2/2"):
        _code, report = _history(capsys, "--repo", str(root), "--rev", latin, "--since",
                                 main_commit, "--no-cache", "--shard", shard, "models/acme")
        found += [c["path"] for r in report["revisions"] for c in r["introduced"]
                  if c["rule"] == "PROV006"]
    assert found == [ESCAPED]
