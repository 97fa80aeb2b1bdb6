"""The history's worker processes: each holds its :class:`~validator.history.worker.Worker`
in the call that serves it (no module state set at run time), a task's exception reaches
the caller as it does with one job, and a worker that dies ends the run with an error
instead of a wait for results that never come."""

from __future__ import annotations

import ast
import multiprocessing
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.history_slice import SLICE, cold_slice_result
from validator.context import Settings
from validator.history import worker as worker_module
from validator.history.gitdata import GitError
from validator.history.worker import Task, execute


def test_the_worker_module_sets_no_module_state_at_run_time() -> None:
    tree = ast.parse(Path(worker_module.__file__).read_text(encoding="utf-8"))
    statements = [type(n).__name__ for n in ast.walk(tree)
                  if isinstance(n, ast.Global | ast.Nonlocal)]
    assert statements == []


def _empty_repo(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


MISSING_BLOB = "0" * 40


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_tasks_error_reaches_the_caller(tmp_path: Path, jobs: int) -> None:
    repo = _empty_repo(tmp_path / "repo")
    tasks: list[Task] = [("models/o/a.yaml", MISSING_BLOB, f"key{i}", (), ()) for i in range(2)]
    with pytest.raises(GitError):
        list(execute(tasks, repo, {}, Settings(), None, jobs))


def test_a_killed_worker_costs_only_time(corpus_repo: Path,
                                        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every worker is killed as the first result comes in: the blobs they did not return
    are checked in this process, and the audit is the one of one job (the run's shared
    cold one-job audit of the slice, :func:`~tests.history_slice.cold_slice_result`)."""
    from validator.history.audit import AuditOptions, AuditResult, run_audit

    killed: list[int] = []

    def kill_the_workers(_steps: int) -> None:
        for child in multiprocessing.active_children():
            assert child.pid is not None
            os.kill(child.pid, signal.SIGKILL)
            killed.append(child.pid)

    def changes(result: AuditResult) -> list[dict[str, Any]]:
        return [{"commit": r.commit.id, "introduced": [c.to_dict() for c in r.introduced],
                 "fixed": [c.to_dict() for c in r.fixed]} for r in result.revisions]

    one_job = cold_slice_result(tmp_path_factory, corpus_repo)
    assert one_job.checked == one_job.units > 0  # every unit checked, none from a cache

    def killing(_label: str, _total: int) -> Callable[[int], None]:
        return kill_the_workers

    two_jobs = run_audit(AuditOptions(repo=corpus_repo, paths=[SLICE], jobs=2), killing)
    assert changes(two_jobs) == changes(one_job)
    assert len(killed) == 2
