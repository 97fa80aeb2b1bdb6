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
from pathlib import Path

SETTLED_NS = 2_000_000_000
"""A file changed less than this long (2 s) before it is hashed is hashed again on the
next call: its stamp might not show a write within the same clock tick."""

_KNOWN: dict[str, tuple[tuple[int, int, int, int], bytes]] = {}
"""Path -> (stamp, SHA-256) of the settled files this process hashed."""


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
    return digest
