"""One cold history audit of :data:`SLICE` into a cache folder per pytest run, shared by
the tests that start from such a cache (forge, damage or reuse its entries): each takes a
copy of the folder (:func:`cold_slice_cache`) instead of auditing the slice again (about
3 s of CPU each, seven tests in ``tests/history`` and ``tests/hardening``).

The folder is laid out as ``recipe-check history --cache-dir <folder>`` lays it out:
``history/`` holds the audit's entries and secret; beside it the ``runs`` part (the tool
stamp and facts) and REF025's index (``claims``) the audit keeps.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.shared_run import run_folder, shared_result
from validator.history.audit import AuditOptions, AuditResult, run_audit

SLICE = "models/thinkingmachines"  # 3 recipe paths over main's history, incl. a rename


def _source(factory: pytest.TempPathFactory, repo: Path) -> Path:
    return run_folder(factory, "history-slice-cache") / repo.as_posix().strip("/").replace(
        "/", "_")


def cold_slice_result(factory: pytest.TempPathFactory, repo: Path) -> AuditResult:
    """The result of the run's cold audit of :data:`SLICE` of ``repo`` (``jobs=1``, every
    unit checked, none read from a cache): what an uncached one-job audit of the slice
    gives, for tests that compare another audit with it."""
    return cold_slice_cache(factory, repo, None)[1]


def cold_slice_cache(factory: pytest.TempPathFactory, repo: Path,
                     dest: Path | None) -> tuple[Path, AuditResult]:
    """A copy, at ``dest`` (which must not exist), of the folder of a cold audit of
    :data:`SLICE` of ``repo`` (``jobs=1``, ``cache_dir=<folder>/history``), and the
    result of that audit. Returns ``dest / "history"`` (the copy's audit cache) and the
    result; with ``dest`` ``None``, no copy is made and the shared folder's own
    ``history`` is returned (not to be changed)."""
    source = _source(factory, repo)

    def audit() -> AuditResult:
        if source.exists():  # a computation that failed half-way
            shutil.rmtree(source)
        return run_audit(AuditOptions(repo=repo, paths=[SLICE], jobs=1,
                                      cache_dir=source / "history"))

    result = shared_result(factory, f"history-slice-cold-cache\0{repo}\0{SLICE}", audit)
    if dest is None:
        return source / "history", result
    shutil.copytree(source, dest, symlinks=True)
    return dest / "history", result
