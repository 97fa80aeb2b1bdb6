"""``fetch`` of a folder whose repository holds a file whose name no path may hold (a
percent-encoded byte, ``A%41.yaml``) leaves that one file out, says so naming it and the
reason (not the user's spelling), stores the others and exits 1; a spec the user types
with such a path is still refused, with the spelling hint."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.pr.conftest import EXAMPLES, commit_all, git
from validator.cli import main

REPO = "example-org/recipes"
CHAT = "models/example-org/Example-Chat-8B.yaml"


@pytest.fixture()
def repo_with_encoded_name(tmp_path: Path) -> tuple[Path, str]:
    dest = tmp_path / "repo"
    shutil.copytree(EXAMPLES, dest)
    shutil.copy(dest / CHAT, dest / "models/example-org/A%41.yaml")
    git(dest, "init", "-q", "-b", "main")
    return dest, commit_all(dest, "a file with a percent-encoded name")


def test_a_folder_fetch_skips_the_one_file_and_stores_the_others(
        repo_with_encoded_name: tuple[Path, str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    repo, commit = repo_with_encoded_name
    monkeypatch.setenv("RECIPE_CHECK_GIT_URL", str(repo))
    code = main(["fetch", "--store-dir", str(tmp_path / "store"), "--cache-dir",
                 str(tmp_path / "cache"), f"{REPO}@{commit}:models/example-org/"])
    captured = capsys.readouterr()
    assert code == 1
    assert "skipped 'models/example-org/A%41.yaml', a file of the repository" in captured.err
    assert "holds '%41'" in captured.err
    assert "write the path as it is" not in captured.err
    assert f"  {CHAT}  sha256:" in captured.out
    assert "models/example-org/Example-MoE-120B.yaml  sha256:" in captured.out


def test_a_typed_spec_with_an_encoded_byte_keeps_the_spelling_hint(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["fetch", "--store-dir", str(tmp_path / "store"),
                 f"{REPO}@main:models/%2e%2e/x.yaml"])
    assert code == 2
    assert "write the path as it is in the repository" in capsys.readouterr().err
