"""A record says when its bytes were not read from GitHub (a mirror named by
``RECIPE_CHECK_GIT_URL`` or ``--git-url``, a local clone, a manifest folder): its commit and
GitHub links are then only that copy's word. A local path is never written into it."""

from __future__ import annotations

from pathlib import Path

import git
import pytest

from tests.conftest import EXAMPLES
from tests.evidence.conftest import make_repo
from validator.evidence.record import build_record
from validator.source.git import GitTree

RECIPE = "models/example-org/Example-Chat-8B.yaml"


def _limitations(tmp_path: Path, fetched_from: str) -> list[str]:
    root = tmp_path / "repo"
    files = {str(p.relative_to(EXAMPLES)): p.read_text("utf-8")
             for p in EXAMPLES.rglob("*") if p.is_file()}
    local = make_repo(root, files)
    tree = GitTree("owner/mini", local.commit, None, git.Repo(root), fetched_from)
    record = build_record(tree, RECIPE, checked_on="2026-12-07")
    return [n for n in record.limitations if "not from GitHub" in n]


@pytest.mark.parametrize("source", [
    "https://github.com/owner/mini.git", "https://raw.githubusercontent.com/owner/mini"])
def test_bytes_from_github_bring_no_mirror_limitation(tmp_path: Path, source: str) -> None:
    assert _limitations(tmp_path, source) == []


def test_bytes_from_a_local_clone_say_so_without_naming_the_folder(tmp_path: Path) -> None:
    notes = _limitations(tmp_path, f"{tmp_path}/private/clone")
    assert len(notes) == 1 and "a local copy" in notes[0]
    assert str(tmp_path) not in notes[0] and "private" not in notes[0]


@pytest.mark.parametrize("source", [
    "https://mirror.example.org/owner/mini.git", "http://github.com/owner/mini.git"])
def test_bytes_from_another_host_name_that_host(tmp_path: Path, source: str) -> None:
    notes = _limitations(tmp_path, source)
    host = source.split("/")[2]
    assert len(notes) == 1 and f"the host {host}" in notes[0]
