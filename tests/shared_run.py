"""One computation per pytest run, shared by every pytest-xdist worker.

A whole-corpus run, a Node build of the site: several tests assert on the same output,
and under ``-n auto`` each worker would compute it again. :func:`shared_result` computes
it once per run: the first worker to ask takes a file lock (``filelock``) on an entry
named by the digest of the key, computes, and stores the value (pickled) in the run's
temporary folder; the others wait on the lock and read it. The folder is the one pytest
gives the whole run (the parent of each worker's ``basetemp``), so nothing outlives the
run's temporary folders and nothing is shared between runs.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, cast

import pytest
from filelock import FileLock

T = TypeVar("T")

_VALUES: dict[str, object] = {}
"""Values this process computed or read already: digest -> value."""


def run_folder(factory: pytest.TempPathFactory, name: str) -> Path:
    """The folder ``name`` in the temporary folder of the whole run (every xdist worker
    sees the same one; without xdist, the session's own)."""
    base = factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shared_result(factory: pytest.TempPathFactory, key: str, compute: Callable[[], T]) -> T:
    """``compute()`` once per pytest run for ``key`` (it must name everything the value
    depends on), whichever worker asks first; the value must pickle. A computation that
    raises stores nothing: the next caller computes (and fails) again."""
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]
    if digest in _VALUES:
        return cast(T, _VALUES[digest])
    entry = run_folder(factory, "shared-results") / f"{digest}.pickle"
    with FileLock(f"{entry}.lock"):
        if entry.is_file():
            value = cast(T, pickle.loads(entry.read_bytes()))
        else:
            value = compute()
            partial = entry.with_suffix(".partial")
            partial.write_bytes(pickle.dumps(value))
            partial.replace(entry)
    _VALUES[digest] = value
    return value
