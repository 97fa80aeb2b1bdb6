"""SHA-256 of files the tool reads many times in one run, read again only when the file
changed.

:func:`validator.cache.checks_digest` and :func:`~validator.cache.code_digest` hash the
tool's deciding sources, its schemas and the vendored CLI data (some 440 files, 17 MB)
on every ``check``: 34 ms of CPU each time, which a run that needs them more than once
(the run cache's tool stamp and the check's tool digest, the history audit's facts) paid
again for the same bytes.

:class:`FileDigests` (one per run) keeps each file's digest with its status stamp (inode, size,
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

KEPT_KEY = hashlib.sha256(b"recipe-check file digests\0" + b"1").hexdigest()
"""The key of the entry that keeps the digests in a store (one per cache folder)."""

Stamp = tuple[int, int, int, int]


def _stamp(st: os.stat_result) -> Stamp:
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _kept(value: Any) -> tuple[Stamp, bytes] | None:
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


class FileDigests:
    """The digests of the files one run hashed or recalled (see the module docstring).
    The run's driver makes one (:func:`validator.cli.main`: for the run cache's tool
    stamp and the check's tool digest; the history audit for its own) and hands it to
    what hashes the tool's files (:func:`validator.cache.checks_digest`,
    :func:`~validator.cache.code_digest`, :func:`validator.run_cache.tool_stamp`); what
    is given none hashes into one of its own.

    Attributes:
        known: path -> (stamp, SHA-256) of the settled files hashed or recalled.
        read: the paths of :attr:`known` read and hashed since they were last kept.
        recalled: the stores (their folders) digests were recalled from.
    """

    def __init__(self) -> None:
        self.known: dict[str, tuple[Stamp, bytes]] = {}
        self.read: set[str] = set()
        self.recalled: set[str] = set()
        self.code: str | None = None
        """The run's :func:`~validator.cache.code_digest` once known (computed, or read
        back from the history audit's cache under the package's tool stamp)."""

    def digest(self, path: Path) -> bytes:
        """The SHA-256 of ``path``'s bytes (the raw 32 bytes): from :attr:`known` when
        the file's stamp is the one it had when last hashed, settled (see the module)."""
        key = str(path)
        stamp = _stamp(path.stat())
        known = self.known.get(key)
        if known is not None and known[0] == stamp:
            return known[1]
        digest = hashlib.sha256(path.read_bytes()).digest()
        if time.time_ns() - max(stamp[2], stamp[3]) >= SETTLED_NS:
            self.known[key] = (stamp, digest)
            self.read.add(key)
        return digest

    def recall(self, store: Any) -> None:
        """Take the digests kept in ``store`` (a :class:`~validator.cache.ResultCache`;
        once per store) as known, each for the stamp it was kept with; a malformed or
        damaged entry is passed over. Raises nothing: a store that cannot be read is
        none."""
        root = getattr(store, "root", None)
        if root is None or str(root) in self.recalled:
            return
        self.recalled.add(str(root))
        try:
            found = store.get(KEPT_KEY)
        except OSError:
            return
        for path, value in found.items():
            kept = _kept(value)
            if kept is not None and path not in self.known:
                self.known[path] = kept

    def keep(self, store: Any, under: Sequence[Path]) -> None:
        """Write into ``store`` the digests of the files below the folders ``under``
        read since they were last kept (nothing when none was: a run that recalled
        them writes nothing). Raises nothing: a store that cannot be written keeps
        nothing."""
        prefixes = tuple(os.path.join(str(folder), "") for folder in under)
        new = {path: [*self.known[path][0], self.known[path][1].hex()]
               for path in sorted(self.read) if path.startswith(prefixes)}
        if not new or getattr(store, "root", None) is None:
            return
        try:
            store.put(KEPT_KEY, new)
        except OSError:
            return
        self.read.difference_update(new)
