"""A recipe added at the head: ``diff`` between the revisions shows it as added (every
fact and configuration new) and the PR summary says what it brings users, not only that
it is new."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from validator.cli import main

from .conftest import commit_all, git

CHAT = "models/example-org/Example-Chat-8B.yaml"
NEW = "models/example-org/Example-Chat-9B.yaml"


def _add_recipe(repo: Path) -> tuple[str, str]:
    base = git(repo, "rev-parse", "HEAD")
    shutil.copy(repo / CHAT, repo / NEW)
    return base, commit_all(repo, "a new recipe")


def test_diff_of_a_recipe_added_at_the_head_shows_it_added(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, head = _add_recipe(example_repo)
    assert main(["diff", "--repo", str(example_repo), base, head, NEW,
                 "--no-feature-sets"]) == 1
    out = capsys.readouterr().out
    assert "(absent)" in out.splitlines()[0]
    assert "  minimum vLLM: + 0.12.0" in out
    assert "3 configurations (" in out and out.rstrip().endswith(": added")
    # gone at both revisions: still a usage error
    assert main(["diff", "--repo", str(example_repo), base, head, "models/x/Y.yaml"]) == 2
    assert "not found" in capsys.readouterr().err


def test_pr_summary_of_a_new_recipe_names_its_configurations(
        example_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, head = _add_recipe(example_repo)
    summary = tmp_path / "summary.md"
    main(["pr", "--repo", str(example_repo), "--base", base, "--head", head, "--offline",
          "--summary", str(summary), "--format", "text"])
    capsys.readouterr()
    text = summary.read_text(encoding="utf-8")
    block = text[text.index("### What changes for users"):]
    assert "(a new recipe)" in block
    assert "minimum vLLM: + 0.12.0" in block
    assert "3 configurations (" in block and ": added" in block
