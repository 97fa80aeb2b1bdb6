"""``git`` in a test repository, with a fixed author and date (the history tests' runs
are then the same from run to run)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

DATE = "2026-03-01T00:00:00+00:00"


def git(repo: Path, *args: str) -> str:
    """``git -C repo ARGS`` with a fixed identity and date; its stripped stdout."""
    env = {**os.environ, "GIT_AUTHOR_DATE": DATE, "GIT_COMMITTER_DATE": DATE}
    return subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@example.invalid",
                           "-c", "user.name=t", *args], check=True, capture_output=True,
                          text=True, env=env).stdout.strip()
