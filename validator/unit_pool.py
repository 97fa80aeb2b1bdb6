"""Units of work on every core: forked worker processes that share the parent's loaded
state (contexts, CLI registries, rules) copy-on-write and take units from one queue.

Only the results travel between processes (pickled); the function and the units are
inherited at the fork, so nothing about them needs to be picklable. The parent gets the
results in the order of the units, whatever order the workers finished in, so that the
output of ``--jobs N`` is the output of ``--jobs 1`` byte for byte.

A worker that dies (killed, out of memory) costs nothing but time: the units it did not
return are computed in the parent. Where ``fork`` is not available (macOS's and Windows'
default), or this process runs other threads, everything runs in the parent. A worker
ends when the parent dies, killed or not (:func:`_die_with_parent`).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_UNITS_PER_WORKER = 2
"""Fewer units than this per extra worker are computed in the parent: a fork and its
queue cost more than a small recipe."""


def default_jobs() -> int:
    """Every core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _may_fork() -> bool:
    """Whether forking is safe here: the platform has ``fork`` and this process runs one
    thread (a lock another thread holds at the fork would stay locked in the child
    forever, e.g. in a test runner's worker or an embedding application)."""
    import multiprocessing  # here: a run of one job (one file, a warm cache) needs none

    return ("fork" in multiprocessing.get_all_start_methods()
            and threading.active_count() == 1)


PARENT_POLL_SECONDS = 0.5
"""How often a worker looks whether its parent is still there (where the kernel cannot
be asked to end it with its parent)."""

_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """End this worker when its parent ``parent`` dies, however it dies (``kill -9``
    too): a worker whose parent is gone would compute the rest of the units for nobody,
    then hang for good in multiprocessing's exit, joining a queue no one reads.

    On Linux the kernel sends the worker ``SIGKILL`` when the parent ends
    (``prctl(PR_SET_PDEATHSIG)``); everywhere, a daemon thread ends the worker once its
    parent process id changes (the worker was handed to another process), every
    :data:`PARENT_POLL_SECONDS`. A parent already gone at the start ends it at once."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(
                _PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # no libc prctl: the thread below does it
            pass
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                     name="recipe-check parent watch").start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


def _worker(compute: Callable[[Any], Any], units: Sequence[Any], todo: Any,
            done: Any, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _die_with_parent(parent)
    while True:
        index = todo.get()
        if index is None:
            return
        done.put((index, compute(units[index])))


def run_units(compute: Callable[[T], R], units: Sequence[T], jobs: int,
              done: Callable[[], None] = lambda: None,
              arrived: Callable[[int, R], None] = lambda _i, _r: None) -> list[R]:
    """``[compute(u) for u in units]``, on up to ``jobs`` processes; ``done()`` and
    ``arrived(index, result)`` are called in this process as each unit's result arrives
    (so that what is finished can be kept before an interrupt ends the run).

    ``compute`` must not raise (a unit's failure is part of its result) and must leave
    the parent's state alone: what a worker changes in memory is lost with it.
    """
    jobs = min(jobs, 1 + len(units) // MIN_UNITS_PER_WORKER)
    if jobs <= 1 or not _may_fork():
        return [_counted(compute, u, i, done, arrived) for i, u in enumerate(units)]
    import multiprocessing
    import queue

    ctx = multiprocessing.get_context("fork")
    todo, finished = ctx.SimpleQueue(), ctx.Queue()
    for index in range(len(units)):
        todo.put(index)
    workers = [ctx.Process(target=_worker, args=(compute, units, todo, finished, os.getpid()),
                           daemon=True)
               for _ in range(jobs)]
    for w in workers:
        todo.put(None)
        w.start()
    results: dict[int, R] = {}
    try:
        while len(results) < len(units):
            try:
                index, value = finished.get(timeout=0.5)
                results[index] = value
                arrived(index, value)
                done()
            except queue.Empty:
                crashed = any(w.exitcode not in (None, 0) for w in workers)
                if crashed or (all(not w.is_alive() for w in workers) and finished.empty()):
                    break  # a worker died: what is left is computed here
    finally:
        for w in workers:
            if w.is_alive():
                w.terminate()
            w.join()
    return [results[i] if i in results else _counted(compute, units[i], i, done, arrived)
            for i in range(len(units))]


def _counted(compute: Callable[[T], R], unit: T, index: int, done: Callable[[], None],
             arrived: Callable[[int, R], None]) -> R:
    result = compute(unit)
    arrived(index, result)
    done()
    return result
