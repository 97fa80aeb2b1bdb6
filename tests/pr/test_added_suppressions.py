"""In ``pr`` only the suppression comments the merge base has silence findings: a
comment the change adds (or moves onto a line it edits) does not hide the new errors it
was written for, as ``.recipe-check.toml`` is read at the merge base (real git
repositories: our example recipes tree in ``tmp_path``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from validator.cli import main
from validator.policy import ADDED_COMMENT

from .conftest import commit_all

CHAT = "models/example-org/Example-Chat-8B.yaml"
FLAG = '    - "--no-such-flag-at-all"\n'


def _pr(repo: Path, base: str, head: str, capsys: pytest.CaptureFixture[str]
        ) -> tuple[int, list[dict[str, Any]]]:
    import json

    code = main(["pr", "--repo", str(repo), "--base", base, "--head", head, "--offline",
                 "--format", "json", "--no-summary"])
    doc = json.loads(capsys.readouterr().out)
    (chat,) = [d for d in doc["documents"] if d["path"] == CHAT]
    return code, [f for f in chat["findings"] if "--no-such-flag-at-all" in f["message"]]


def _edit(repo: Path, old: str, new: str) -> None:
    recipe = repo / CHAT
    text = recipe.read_text(encoding="utf-8")
    assert old in text
    recipe.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize("comment", [
    "# recipe-check: ignore-file[FLAG]\n",
    None,  # on the flag's own line
], ids=["file-wide", "on-its-line"])
def test_a_comment_the_change_adds_does_not_hide_its_new_error(
        example_repo: Path, capsys: pytest.CaptureFixture[str], comment: str | None) -> None:
    base = commit_all(example_repo, "base")
    _edit(example_repo, "  base_args:\n", "  base_args:\n" + (
        FLAG if comment else FLAG.replace("\n", "  # recipe-check: ignore[FLAG001]\n")))
    if comment:
        _edit(example_repo, "meta:\n", comment + "meta:\n")
    head = commit_all(example_repo, "a new error and its suppression")
    code, (flag,) = _pr(example_repo, base, head, capsys)
    assert code == 1 and flag["baseline"] == "new" and flag["severity"] == "error"
    assert flag["hint"].startswith(ADDED_COMMENT)


def test_a_comment_the_base_has_still_silences_after_lines_move(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(example_repo, "  base_args:\n",
          "  base_args:\n" + FLAG.replace("\n", "  # recipe-check: ignore[FLAG001]\n"))
    base = commit_all(example_repo, "a suppressed error")
    _edit(example_repo, "meta:\n", "# a note above everything\n\nmeta:\n")
    head = commit_all(example_repo, "lines move")
    code, found = _pr(example_repo, base, head, capsys)
    assert code == 0 and found == []
