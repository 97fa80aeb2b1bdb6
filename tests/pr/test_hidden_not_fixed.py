"""``pr`` counts a finding as fixed only when the head fixed it: one the head hides with
a suppression comment, or one of a file that no longer loads, is "hidden" -- listed, not
counted as fixed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main
from validator.policy import ADDED_COMMENT

from .conftest import commit_all, git

CHAT = "models/example-org/Example-Chat-8B.yaml"


def _with_a_flag_finding(repo: Path) -> str:
    recipe = repo / CHAT
    text = recipe.read_text(encoding="utf-8")
    old = "  base_args:\n"
    assert old in text
    recipe.write_text(text.replace(old, old + '    - "--no-such-flag-at-all"\n', 1),
                      encoding="utf-8")
    return commit_all(repo, "an unknown flag")


def _pr(repo: Path, base: str, head: str, capsys: pytest.CaptureFixture[str],
        ) -> dict[str, Any]:
    main(["pr", "--repo", str(repo), "--base", base, "--head", head, "--offline",
          "--format", "json", "--no-summary"])
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def test_a_finding_of_a_file_the_head_breaks_is_hidden_not_fixed(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = _with_a_flag_finding(example_repo)
    recipe = example_repo / CHAT
    recipe.write_text(recipe.read_text(encoding="utf-8").replace(
        "variants:\n", "variants: [\n", 1), encoding="utf-8")
    head = commit_all(example_repo, "hide it")
    doc = _pr(example_repo, base, head, capsys)
    (chat,) = [d for d in doc["documents"] if d["path"] == CHAT]
    assert chat["fixed"] == []
    assert any("--no-such-flag-at-all" in f["message"] and "does not load" in f["message"]
               for f in chat["hidden"]), chat
    assert doc["summary"]["fixed"] == 0


def test_a_suppression_comment_the_head_adds_leaves_the_finding_existing(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only the merge base's comments silence findings in ``pr``: the head's new
    ``ignore-file`` leaves the error reported, existing (not fixed), with a hint."""
    base = _with_a_flag_finding(example_repo)
    recipe = example_repo / CHAT
    recipe.write_text("# recipe-check: ignore-file[REF, FLAG, SCHEMA]\n"
                      + recipe.read_text(encoding="utf-8"), encoding="utf-8")
    head = commit_all(example_repo, "silence it")
    doc = _pr(example_repo, base, head, capsys)
    (chat,) = [d for d in doc["documents"] if d["path"] == CHAT]
    assert chat["fixed"] == [] and "hidden" not in chat
    (flag,) = [f for f in chat["findings"] if "--no-such-flag-at-all" in f["message"]]
    assert flag["baseline"] == "unchanged" and flag["hint"].startswith(ADDED_COMMENT)
    assert doc["summary"]["fixed"] == 0


def test_a_finding_the_head_removes_is_fixed(example_repo: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    before = (example_repo / CHAT).read_text(encoding="utf-8")
    base = _with_a_flag_finding(example_repo)
    (example_repo / CHAT).write_text(before, encoding="utf-8")
    head = commit_all(example_repo, "remove it")
    doc = _pr(example_repo, base, head, capsys)
    (chat,) = [d for d in doc["documents"] if d["path"] == CHAT]
    assert [f for f in chat["fixed"] if "--no-such-flag-at-all" in f["message"]]
    assert "hidden" not in chat
    assert git(example_repo, "rev-parse", "HEAD") == head
