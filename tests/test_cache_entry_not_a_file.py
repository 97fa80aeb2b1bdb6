"""A cache entry that is not a regular file -- a FIFO, a link -- is recomputed, never read
(a FIFO would block the run for ever) and never followed: the real CLI with a warm
``--cache-dir`` whose every unit and run entry was replaced gives the cold run's report."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from validator.atomic import NotAFileError, read_regular_file

PROJECT = Path(__file__).resolve().parents[1]
EXAMPLE = PROJECT / "examples" / "recipes"


def run_check(root: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "validator", "check", "--offline",
                           "--format", "json", "--cache-dir", str(cache), "models/"],
                          cwd=root, capture_output=True, text=True, timeout=120,
                          check=False, env={**os.environ, "PYTHONPATH": str(PROJECT)})


def test_fifos_in_place_of_every_cache_entry_are_recomputed_not_waited_on(
        tmp_path: Path) -> None:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLE, root)
    cache = tmp_path / "cache"
    cold = run_check(root, cache)
    stored = [p for p in cache.rglob("*.json") if p.is_file()]
    assert len(stored) >= 3  # the units and the run
    for entry in stored:
        entry.unlink()
        os.mkfifo(entry)
    again = run_check(root, cache)  # timeout=120: a read of a FIFO would hang here
    assert (again.returncode, again.stdout) == (cold.returncode, cold.stdout)
    assert "Traceback" not in again.stderr


def test_read_regular_file_refuses_a_fifo_and_a_link_without_blocking(
        tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    real = tmp_path / "real"
    real.write_bytes(b"entry")
    link = tmp_path / "link"
    link.symlink_to(real)
    assert read_regular_file(real) == b"entry"
    for path in (fifo, link, tmp_path):
        try:
            read_regular_file(path)
        except OSError as exc:
            assert isinstance(exc, NotAFileError) or path == link
        else:
            raise AssertionError(f"{path} was read")
