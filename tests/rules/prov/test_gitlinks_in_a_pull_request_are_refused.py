"""A changed recipe path whose git object is no file (a submodule entry) fails the PR
closed with a finding naming the path, as a symbolic link does (PROV005)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.pr.conftest import commit_all, git
from validator.cli import main

GITLINK = "models/example-org/Example-Sub.yaml"


def _add_gitlink(repo: Path, path: str) -> str:
    """Commit a submodule entry (mode 160000) at ``path``; the new commit's id."""
    target = git(repo, "rev-parse", "HEAD")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{target},{path}")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q",
        "-m", "gitlink")
    return git(repo, "rev-parse", "HEAD")


def test_gitlink_at_a_recipe_path_is_an_error_not_a_skip(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = git(example_repo, "rev-parse", "HEAD")
    head = _add_gitlink(example_repo, GITLINK)
    code = main(["pr", "--repo", str(example_repo), "--base", base, "--head", head,
                 "--format", "json", "--no-summary"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    [sub] = [d for d in doc["documents"] if d["path"] == GITLINK]
    [finding] = sub["findings"]
    assert (finding["rule"], finding["severity"], finding["line"]) == ("PROV005", "error", 1)
    assert GITLINK in finding["message"] and "submodule" in finding["message"]
    assert GITLINK not in json.dumps(doc["context"]["pr"]["skipped"])


def test_gitlink_in_a_run_without_base_is_reported_too(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without ``--base`` every recipe path of the head is checked: a submodule entry
    among them is not left out of the listing."""
    head = _add_gitlink(example_repo, GITLINK)
    code = main(["pr", "--repo", str(example_repo), "--head", head, "--format", "json",
                 "--no-summary", "--fail-on", "all"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    [sub] = [d for d in doc["documents"] if d["path"] == GITLINK]
    assert [f["rule"] for f in sub["findings"]] == ["PROV005"]


def test_a_regular_recipe_change_still_passes(example_repo: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The control: the same repository with a plain edit of a clean recipe passes."""
    base = git(example_repo, "rev-parse", "HEAD")
    chat = example_repo / "models/example-org/Example-Chat-8B.yaml"
    chat.write_text(chat.read_text() + "\n# a comment\n")
    head = commit_all(example_repo, "comment")
    assert main(["pr", "--repo", str(example_repo), "--base", base, "--head", head,
                 "--no-summary"]) == 0, capsys.readouterr().out
