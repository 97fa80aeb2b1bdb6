"""Helpers for PR-mode tests: git on clones of the corpus bundle, GitHub Actions env."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

PROJECT = Path(__file__).resolve().parents[2]
SARIF_SCHEMA = PROJECT / "snapshots" / "sarif" / "sarif-schema-2.1.0.json"


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo``; its stdout, stripped."""
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


def github_env(tmp: Path, workspace: Path, base: str, head: str, number: int,
               event: str = "pull_request") -> dict[str, str]:
    """The variables GitHub Actions sets for a ``pull_request`` run, with a temporary
    event payload and step-summary file under ``tmp``."""
    payload: dict[str, Any] = {
        "action": "synchronize", "number": number,
        "pull_request": {"number": number, "base": {"sha": base, "ref": "main"},
                         "head": {"sha": head, "ref": f"pr-{number}"}},
        "repository": {"full_name": "vllm-project/recipes"},
    }
    event_path = tmp / "event.json"
    event_path.write_text(json.dumps(payload), encoding="utf-8")
    summary = tmp / "step_summary.md"
    summary.write_text("", encoding="utf-8")
    return {
        "GITHUB_ACTIONS": "true", "CI": "true",
        "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_REPOSITORY": "vllm-project/recipes", "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_SHA": head, "GITHUB_REF": f"refs/pull/{number}/merge",
        "GITHUB_HEAD_REF": f"pr-{number}", "GITHUB_BASE_REF": "main",
    }


def pr_revisions(repo: Path, number: int) -> tuple[str, str]:
    """``(base, head)`` full ids for pull request ``number``: main and the PR head."""
    return git(repo, "rev-parse", "main"), git(repo, "rev-parse", f"refs/pull/{number}/head")


def sarif_errors(log: dict[str, Any]) -> list[str]:
    """Schema errors of ``log`` against the vendored SARIF 2.1.0 schema (digest checked)."""
    expected = (SARIF_SCHEMA.parent / (SARIF_SCHEMA.name + ".sha256")).read_text().split()[0]
    assert hashlib.sha256(SARIF_SCHEMA.read_bytes()).hexdigest() == expected
    validator = jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text(encoding="utf-8")))
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]


@pytest.fixture()
def scratch_repo(corpus_repo: Path, tmp_path: Path) -> Path:
    """A writable clone of the corpus at ``main`` (objects shared with the session clone),
    on a new branch ``work``, with a committer identity."""
    dest = tmp_path / "scratch"
    subprocess.run(["git", "clone", "-q", "--shared", str(corpus_repo), str(dest)], check=True)
    git(dest, "checkout", "-q", "-b", "work")
    git(dest, "config", "user.email", "tests@example.invalid")
    git(dest, "config", "user.name", "recipe-check tests")
    return dest


EXAMPLES = PROJECT / "examples" / "recipes"


def commit_all(repo: Path, message: str) -> str:
    """Stage every change of ``repo``'s work tree, commit it; the new commit's id."""
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q",
        "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture()
def example_repo(tmp_path: Path) -> Path:
    """A git repository holding a copy of our example recipes tree, one commit on ``main``
    (hermetic and small: for PR tests that build their own changes)."""
    import shutil

    dest = tmp_path / "example"
    shutil.copytree(EXAMPLES, dest)
    git(dest, "init", "-q", "-b", "main")
    commit_all(dest, "example tree")
    return dest


def pr_json(repo: Path, base: str, head: str, capsys: pytest.CaptureFixture[str]
            ) -> tuple[int, dict[str, Any]]:
    """``recipe-check pr`` (offline, JSON, no job summary) of ``base..head`` in ``repo``:
    its exit code and report."""
    from validator.cli import main

    code = main(["pr", "--offline", "--repo", str(repo), "--base", base, "--head", head,
                 "--format", "json", "--no-summary"])
    return code, json.loads(capsys.readouterr().out)
