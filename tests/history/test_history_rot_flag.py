"""History notes a recipe that starts to fail because vLLM changed under it: the same
recipe bytes and context, judged in a later release window, gain an error from the CLI
registry of the new release (``--disable-log-requests``: accepted up to 0.16.0, absent
from 0.17.0), noted ``vLLM release``; the JSON output prints each revision's window."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.tiny_recipe import PATH, write_tiny
from validator.cli import main
from validator.history.audit import RELEASED
from validator.releases import load_vendored

FLAG = "--disable-log-requests"


def _git(repo: Path, *args: str, when: str | None = None) -> None:
    env = dict(os.environ)
    if when:
        env.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


@pytest.fixture()
def flag_rot_repo(corpus_repo: Path, tmp_path: Path) -> tuple[Path, str, str]:
    """Our recipe (minimum 0.12.0, ``--disable-log-requests``) committed between the
    0.16.0 and 0.17.0 releases; a README-only commit after 0.17.0."""
    by_version = {str(r.version): r for r in load_vendored().releases}
    old, new = by_version["0.16.0"], by_version["0.17.0"]
    repo = tmp_path / "rot"
    repo.mkdir()
    shutil.copy(corpus_repo / "taxonomy.yaml", repo / "taxonomy.yaml")
    shutil.copytree(corpus_repo / "strategies", repo / "strategies")
    write_tiny(repo, f'["{FLAG}"]')
    (repo / "README.md").write_text("recipes\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "t@example.invalid")
    _git(repo, "config", "user.name", "t")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "add", when=(old.uploaded + timedelta(days=1)).isoformat())
    (repo / "README.md").write_text("recipes, more\n")
    _git(repo, "commit", "-q", "-am", "readme",
         when=(new.uploaded + timedelta(days=1)).isoformat())
    return repo, old.uploaded.date().isoformat(), new.uploaded.date().isoformat()


def test_a_flag_removed_by_a_new_release_is_noted_as_rot(
        flag_rot_repo: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, old_day, new_day = flag_rot_repo
    code = main(["history", "--repo", str(repo), "--no-cache", "--jobs", "1", "--format",
                 "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    data: dict[str, Any] = json.loads(out.out)
    first, second = data["revisions"]
    assert (first["window"], second["window"]) == (old_day, new_day)
    flagged = [c for c in first["introduced"] if FLAG in c["message"] and c["path"] == PATH]
    assert not [c for c in flagged if c["severity"] == "error"], flagged
    rot = [c for c in second["introduced"] if FLAG in c["message"]]
    assert rot and {c["note"] for c in rot} == {RELEASED}, rot
    assert any(c["severity"] == "error" and "0.17.0" in c["message"] for c in rot), rot
    assert not [c for c in second["introduced"] + second["fixed"]
                if c["rule"].startswith("FLAG") and c["note"] != RELEASED]
