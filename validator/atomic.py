"""Atomic file writes, shared by every store the tool writes (snapshots, records, the
history cache): a reader, or a process killed at any point, sees the old file or the new
one, never a partial one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def current_umask() -> int:
    """The process's file-mode creation mask (read by setting and restoring it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(target: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to ``target`` atomically: a temporary file in the same folder,
    flushed and fsynced, :func:`os.replace`\\ d over ``target``, then the folder fsynced so
    the rename itself survives a crash (POSIX ``rename(2)`` is atomic within a file system).

    ``mode`` (permission bits) is given to the new file before it replaces ``target``
    (a temporary file is created ``0600``).

    Raises:
        OSError: on any I/O failure; the temporary file is removed and ``target`` is left
            as it was.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        # mkstemp creates 0600; the file gets ``mode`` when given (a file being replaced
        # keeps its own), else the mode open(2) would give it (0666 less the umask)
        os.fchmod(fd, mode if mode is not None else 0o666 & ~current_umask())
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
