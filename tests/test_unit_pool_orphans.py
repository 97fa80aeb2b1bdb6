"""A worker of the pool (:mod:`validator.unit_pool`) ends when its parent dies, also by
``kill -9``: no worker computes on for nobody, nor hangs for good in multiprocessing's
exit holding its memory."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="reads processes from /proc")


def _state(pid: int) -> str | None:
    """The state letter of process ``pid`` (``None``: gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


def _running(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (a zombie has ended: only its entry is left)."""
    return {p for p in pids if _state(p) not in (None, "Z", "X")}


def _tree(tmp_path: Path, copies: int) -> Path:
    root = tmp_path / "recipes"
    shutil.copytree(PROJECT / "examples" / "recipes", root)
    org = root / "models" / "example-org"
    text = (org / "Example-MoE-120B.yaml").read_text()
    for n in range(copies):  # units for a run of several seconds
        (org / f"Copy-{n}.yaml").write_text(text.replace("h20", f"h2{n % 10}"))
    return root


def _workers_outlive_a_sigkill(command: list[str], cwd: Path) -> set[int]:
    """Run ``command``; once it has forked two workers, ``kill -9`` it: the workers
    still running 5 s later (each ended here, by id, before returning)."""
    env = {"PYTHONPATH": str(PROJECT), "PATH": "/usr/bin:/bin"}
    run = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while len(workers) < 2 and time.monotonic() < deadline and run.poll() is None:
            workers = _running(_children(run.pid))
            time.sleep(0.05)
        assert len(workers) == 2, "the run forked no workers"
        time.sleep(0.5)  # each worker inside its units
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + 5
        while _running(workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        return _running(workers)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        for pid in _running(workers):  # left by a failing run: ended here, by id
            os.kill(pid, signal.SIGKILL)


def test_workers_of_a_check_killed_with_sigkill_end_within_seconds(tmp_path: Path) -> None:
    root = _tree(tmp_path, 80)
    command = [sys.executable, "-m", "validator", "--offline", "--no-cache", "--jobs", "2",
               "models/"]
    assert not _workers_outlive_a_sigkill(command, root), "workers outlived their parent"


_NO_DEATH_SIGNAL = """
import time
from validator import unit_pool
unit_pool._PR_SET_PDEATHSIG = -1  # an option prctl refuses: only the watch thread is left
unit_pool.run_units(lambda n: time.sleep(0.1) or n, list(range(600)), jobs=2)
"""


def test_without_the_kernels_death_signal_workers_still_end_with_their_parent(
        tmp_path: Path) -> None:
    """The portable way (the parent's id changes): what a platform without
    ``PR_SET_PDEATHSIG`` relies on."""
    command = [sys.executable, "-c", _NO_DEATH_SIGNAL]
    assert not _workers_outlive_a_sigkill(command, tmp_path), "workers outlived their parent"
