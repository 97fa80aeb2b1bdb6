"""SHA-256 of files the tool reads many times in one process, read again only when the
file changed.

:func:`validator.cache.checks_digest` and :func:`~validator.cache.code_digest` hash the
tool's deciding sources, its schemas and the vendored CLI data (some 440 files, 17 MB)
on every ``check``: 34 ms of CPU each time, which a process that checks many times (the
test suite's thousands of in-process ``main()`` calls, ``pr`` and ``history`` checking
several revisions) paid again and again for the same bytes.

:func:`file_digest` keeps each file's digest with its status stamp (inode, size,
modification and change times, in nanoseconds) and hashes the file again when the stamp
differs. A stamp is trusted only for a file last changed at least :data:`SETTLED_NS`
before it was hashed (git's "racily clean" rule): the kernel's file times are coarse
(a clock tick), so a file written again within the tick of its hashing could keep its
stamp; a file changed later than that gets a later change time, which no program can set
back (``os.utime`` sets it to now). So a file that changed is always read again.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SETTLED_NS = 2_000_000_000
"""A file changed less than this long (2 s) before it is hashed is hashed again on the
next call: its stamp might not show a write within the same clock tick."""

_KNOWN: dict[str, tuple[tuple[int, int, int, int], bytes]] = {}
"""Path -> (stamp, SHA-256) of the settled files this process hashed or recalled."""

_READ: set[str] = set()
"""Paths of :data:`_KNOWN` this process read and hashed since it last kept them."""

_RECALLED: set[str] = set()
"""The stores (their folders) this process recalled digests from."""

KEPT_KEY = hashlib.sha256(b"recipe-check file digests\0" + b"1").hexdigest()
"""The key of the entry that keeps the digests in a store (one per cache folder)."""


def _stamp(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def file_digest(path: Path) -> bytes:
    """The SHA-256 of ``path``'s bytes (the raw 32 bytes): from memory when the file's
    stamp is the one it had when this process last hashed it, settled (see the module)."""
    key = str(path)
    stamp = _stamp(path.stat())
    known = _KNOWN.get(key)
    if known is not None and known[0] == stamp:
        return known[1]
    digest = hashlib.sha256(path.read_bytes()).digest()
    if time.time_ns() - max(stamp[2], stamp[3]) >= SETTLED_NS:
        _KNOWN[key] = (stamp, digest)
        _READ.add(key)
    return digest


def _kept(value: Any) -> tuple[tuple[int, int, int, int], bytes] | None:
    """A kept ``[inode, size, mtime_ns, ctime_ns, hex digest]``; ``None`` if malformed."""
    if not (isinstance(value, list) and len(value) == 5
            and all(type(v) is int for v in value[:4]) and isinstance(value[4], str)
            and len(value[4]) == 64):
        return None
    try:
        digest = bytes.fromhex(value[4])
    except ValueError:
        return None
    return (value[0], value[1], value[2], value[3]), digest


def recall(store: Any) -> None:
    """Take the digests kept in ``store`` (a :class:`~validator.cache.ResultCache`; once
    per store and process) as known, each for the stamp it was kept with; a malformed or
    damaged entry is passed over. Raises nothing: a store that cannot be read is none."""
    root = getattr(store, "root", None)
    if root is None or str(root) in _RECALLED:
        return
    _RECALLED.add(str(root))
    try:
        found = store.get(KEPT_KEY)
    except OSError:
        return
    for path, value in found.items():
        kept = _kept(value)
        if kept is not None and path not in _KNOWN:
            _KNOWN[path] = kept


def keep(store: Any, under: Sequence[Path]) -> None:
    """Write into ``store`` the digests of the files below the folders ``under`` that this
    process read since it last kept them (nothing when it read none: a process that
    recalled them writes nothing). Raises nothing: a store that cannot be written keeps
    nothing."""
    prefixes = tuple(os.path.join(str(folder), "") for folder in under)
    new = {path: [*_KNOWN[path][0], _KNOWN[path][1].hex()] for path in sorted(_READ)
           if path.startswith(prefixes)}
    if not new or getattr(store, "root", None) is None:
        return
    try:
        store.put(KEPT_KEY, new)
    except OSError:
        return
    _READ.difference_update(new)
