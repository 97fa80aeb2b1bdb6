"""``history`` reads the configuration file at the repository root as ``check`` does
(issue 30, item 11): a FIFO there is refused, not waited on, and a link that leaves the
repository is not followed (its key names never reach a message)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLES = PROJECT / "examples" / "recipes"
RECIPE = "models/example-org/Example-Chat-8B.yaml"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", *args],
                   cwd=repo, check=True, capture_output=True)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "recipes")
    return root


def _run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "validator", *args], cwd=repo, text=True,
                          capture_output=True, timeout=60,
                          env={"PYTHONPATH": str(PROJECT), "PATH": os.environ["PATH"],
                               "HOME": str(repo.parent)})


@pytest.mark.parametrize("command", [["history", "--no-cache", "--repo", "."],
                                     ["check", "--offline", "--no-cache", RECIPE]])
def test_a_fifo_configuration_is_refused_without_waiting(repo: Path,
                                                         command: list[str]) -> None:
    os.mkfifo(repo / ".recipe-check.toml")
    run = _run(repo, *command)  # was (history): blocked on the FIFO until killed
    assert run.returncode == 2
    assert ".recipe-check.toml: cannot be read as a configuration file" in run.stderr
    assert "not a regular file" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize("command", [["history", "--no-cache", "--repo", "."],
                                     ["check", "--offline", "--no-cache", RECIPE]])
def test_a_configuration_linked_outside_the_repository_is_not_read(
        repo: Path, command: list[str]) -> None:
    outside = repo.parent / "private.toml"
    outside.write_text('[per-file-ignores]\n"x" = ["PRIVATE-KEY-NAME"]\nsecret_token = 1\n')
    (repo / ".recipe-check.toml").symlink_to(outside)
    run = _run(repo, *command)
    assert run.returncode == 2
    assert "resolves outside the recipes root" in run.stderr
    assert "secret_token" not in run.stderr and "PRIVATE" not in run.stderr  # was: leaked
