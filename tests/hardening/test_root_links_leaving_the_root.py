"""``taxonomy.yaml``, ``strategies/`` or ``kv_store/`` of a recipes root as a link leaving
the root: ``check`` of a recipe reports ``PROV005`` on the link (file and line) and fails,
as for a recipe and as ``pr`` does, rather than reading the root as one without it
(trial 9 #11: "has no taxonomy.yaml", rules skipped, exit 0)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.render.tiny_tree import write_tree
from validator.cli import main

RECIPE = "models/acme/Tiny-1B.yaml"


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    capsys.readouterr()
    code = main(["check", "--offline", "--format", "json", *argv])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


@pytest.mark.parametrize("name", ["taxonomy.yaml", "strategies", "kv_store"])
@pytest.mark.parametrize("cache", ["--no-cache", "warm"])
def test_a_root_file_linked_outside_the_root_is_prov005(
        tmp_path: Path, name: str, cache: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_tree(tmp_path / "tree")
    outside = tmp_path / "elsewhere"
    shutil.move(root / name, outside)
    (root / name).symlink_to(outside)
    monkeypatch.chdir(root)
    store = ["--no-cache"] if cache == "--no-cache" else ["--cache-dir", str(tmp_path / "c")]
    if cache == "warm":
        _check(capsys, *store, RECIPE)
    code, report, err = _check(capsys, *store, RECIPE)
    assert code == 1
    [doc] = [d for d in report["documents"] if d["path"] == name]
    [finding] = doc["findings"]
    assert (finding["rule"], finding["line"]) == ("PROV005", 1)
    assert "resolves outside the recipes root" in finding["message"]
    assert "has no taxonomy.yaml" not in err
    if name == "taxonomy.yaml":
        assert "is a link leaving the root" in err
        code, report, _err = _check(capsys, *store, name, RECIPE)  # named: reported once
        assert code == 1 and [d["path"] for d in report["documents"]].count(name) == 1


@pytest.mark.parametrize("target", ["outside", "dangling"])
@pytest.mark.parametrize("named", [[RECIPE], ["."]])
def test_a_context_document_linked_outside_the_root_or_dangling_is_prov005_once(
        tmp_path: Path, target: str, named: list[str], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A strategy or kv-store file that is such a link is left out of the context; the
    run names it (once, whether the recipes or the whole root are checked) instead of
    reporting only the recipes' strategy as unknown (REF002)."""
    root = write_tree(tmp_path / "tree")
    links = [root / "strategies" / "single_node_tp.yaml",
             root / "kv_store" / "kv_mooncake_test.yaml"]
    for link in links:
        moved = tmp_path / link.name
        shutil.move(link, moved)
        link.symlink_to(moved if target == "outside" else root / "strategies" / "gone.yaml")
    monkeypatch.chdir(root)
    code, report, _err = _check(capsys, "--no-cache", *named)
    assert code == 1
    for link in links:
        path = link.relative_to(root).as_posix()
        [doc] = [d for d in report["documents"] if d["path"] == path]
        [finding] = doc["findings"]
        assert (finding["rule"], finding["line"]) == ("PROV005", 1)
        assert ("resolves outside the recipes root" if target == "outside"
                else "dangling symbolic link") in finding["message"]
