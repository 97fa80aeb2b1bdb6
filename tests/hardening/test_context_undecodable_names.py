"""A strategy or kv-store file whose name is not valid UTF-8 (byte 0xFF): ``check`` of
any recipe, with the cache or without, reports it ``PROV006`` (the name written
``s\\xff.yaml``, as for a recipe of such a name) and checks the rest, and ``history``
audits the recipes with no internal error -- never a ``UnicodeEncodeError`` from a sort
key, a digest or a cache key of that name."""

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
PLACES = {"strategies": ("strategies/single_node_tp.yaml", "strategies/s\\xff.yaml"),
          "kv_store": ("kv_store/kv_mooncake_test.yaml", "kv_store/k\\xff.yaml")}


def _bad_copy(root: Path, folder: str) -> str:
    """Copy a document of ``folder`` under a name with byte 0xFF; its reported name."""
    source, escaped = PLACES[folder]
    name = os.fsdecode(escaped.replace("\\xff", "\udcff").encode("utf-8", "surrogateescape"))
    (root / name).write_bytes((root / source).read_bytes())
    return escaped


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    capsys.readouterr()
    code = main([*argv, "--format", "json"])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


@pytest.mark.parametrize("folder", sorted(PLACES))
@pytest.mark.parametrize("cache", ["--no-cache", "cold", "warm"])
def test_check_reports_an_undecodable_context_file_as_prov006(
        tmp_path: Path, folder: str, cache: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_tree(tmp_path / "tree")
    escaped = _bad_copy(root, folder)
    monkeypatch.chdir(root)
    store = ["--no-cache"] if cache == "--no-cache" else ["--cache-dir", str(tmp_path / "c")]
    if cache == "warm":
        _run(capsys, "check", "--offline", *store, RECIPE)
    code, report, err = _run(capsys, "check", "--offline", *store, RECIPE)
    assert "internal error" not in err and code == 1
    found = {d["path"]: [f["rule"] for f in d["findings"]] for d in report["documents"]}
    assert found[escaped] == ["PROV006"]
    assert RECIPE in found and "PROV006" not in found[RECIPE]
    [bad] = [d for d in report["documents"] if d["path"] == escaped]
    assert bad["findings"][0]["hint"] == f"rename the file to a UTF-8 name in {folder}/"


def test_history_audits_recipes_beside_an_undecodable_strategy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_tree(tmp_path / "repo")
    _git(root.parent, "init", "-q", "-b", "main", str(root))
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "tiny tree")
    base = _git(root, "rev-parse", "HEAD")
    _bad_copy(root, "strategies")
    _bad_copy(root, "kv_store")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "names that are not UTF-8")
    head = _git(root, "rev-parse", "HEAD")
    code, report, err = _run(capsys, "history", "--jobs", "1", "--repo", str(root), "--rev",
                             head, "--since", base, "--no-cache", "models/acme")
    assert "internal error" not in err and code in (0, 1)
    assert [r["commit"] for r in report["revisions"]] == [head]


@pytest.mark.parametrize("folder", sorted(PLACES))
def test_api_out_refuses_an_undecodable_context_file_naming_it(
        tmp_path: Path, folder: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_tree(tmp_path / "tree")
    escaped = _bad_copy(root, folder)
    monkeypatch.chdir(root)
    capsys.readouterr()
    assert main(["render", "--api-out", str(tmp_path / "api"), "models/acme/Voice-1B.yaml"]) == 1
    err = capsys.readouterr().err
    assert f"{escaped}: the file name is not valid UTF-8" in err and "\udcff" not in err, err
    assert not (tmp_path / "api").exists()
