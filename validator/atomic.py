"""Atomic file writes, shared by every store the tool writes (snapshots, records, the
history cache): a reader, or a process killed at any point, sees the old file or the new
one, never a partial one; and :func:`write_output`, the one writer of every command's
report and record files (``--output``, ``--json/--sarif/--markdown FILE``), which writes
through links and into FIFOs and character devices instead of replacing them."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
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


def replace_unchanged(target: Path, expected: bytes, data: bytes) -> str | None:
    """Replace ``target`` (a regular file holding ``expected``) by ``data`` atomically
    (:func:`atomic_write`, its mode kept) unless another process changes it meanwhile;
    ``None`` when replaced, else why not (``target`` then holds the other writer's bytes).

    Compare and replace cannot be one step, so the old file is kept by a second name
    across the swap and compared again after it: a write that landed between the
    comparison and the rename (through a descriptor opened before it) is found there,
    and that file is put back in place. An exclusive ``flock`` on the old file keeps two
    cooperating writers (two ``--fix`` runs) from swapping it at once.

    Raises:
        OSError: the file cannot be opened, read or replaced.
    """
    fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    aside: Path | None = None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return "being written by another process (it holds a lock); not written"
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file; not written"
        if _read_all(fd) != expected:
            return "changed since it was read; not written"
        aside = target.with_name(f".{target.name}.{os.getpid()}.{info.st_ino}.orig")
        os.link(target, aside)
        if os.stat(aside).st_ino != info.st_ino:  # swapped after it was opened
            return "changed since it was read; not written"
        atomic_write(target, data, mode=stat.S_IMODE(info.st_mode))
        if _read_all(fd) == expected:
            return None
        # a write landed in the old file after the comparison: it wins, unless the new
        # file has been written too (then both stay: the old one beside it)
        if target.read_bytes() == data:
            os.replace(aside, target)
            aside = None
            return "changed while it was being fixed; the other write kept, not written"
        kept, aside = aside, None
        return f"changed while it was being fixed; the other version kept as {kept.name}"
    finally:
        if aside is not None:
            aside.unlink(missing_ok=True)
        os.close(fd)


def _read_all(fd: int) -> bytes:
    """Every byte of the open file ``fd``, from its start."""
    chunks = []
    offset = 0
    while block := os.pread(fd, 1 << 20, offset):
        chunks.append(block)
        offset += len(block)
    return b"".join(chunks)


class NotAFileError(OSError):
    """A report or record file names something that is neither a file nor a stream (a
    folder, a socket, a block device); ``strerror`` says which."""


def output_problem(path: Path) -> str | None:
    """Why a report or record cannot be written at ``path`` (``None``: it can): what a
    link names is judged, not the link; a regular file, a FIFO, a character device and a
    path that does not exist yet (also the file a dangling link names) can be written."""
    try:
        info = os.stat(path)  # follows links
    except FileNotFoundError:
        return None
    except OSError as exc:
        return exc.strerror or str(exc)
    mode = info.st_mode
    if stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return None
    what = ("a folder" if stat.S_ISDIR(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a block device" if stat.S_ISBLK(mode) else "not a regular file")
    via = f" (through the link to {os.path.realpath(path)})" if os.path.islink(path) else ""
    hint = " (name a file in it)" if stat.S_ISDIR(mode) else ""
    return f"is {what}{via}, not a file a report can be written to{hint}"


def write_output(path: Path, data: bytes) -> None:
    """Write a report or record file the one way every command does: a link is written
    through to the file it names (a dangling link: that file is created); a regular file
    (or a new one) is written atomically (:func:`atomic_write`, keeping the mode of the
    file it replaces); a FIFO or a character device is written to, never replaced; what
    :func:`output_problem` refuses raises :class:`NotAFileError` and nothing is written.

    Raises:
        OSError: it cannot be written (``ENOSPC`` on a full device, ``EPIPE`` when a FIFO's
            reader goes away, :class:`NotAFileError`).
    """
    problem = output_problem(path)
    if problem is not None:
        raise NotAFileError(errno.EINVAL, problem)
    real = Path(os.path.realpath(path))
    try:
        info: os.stat_result | None = os.stat(real)
    except FileNotFoundError:
        info = None
    if info is not None and (stat.S_ISFIFO(info.st_mode) or stat.S_ISCHR(info.st_mode)):
        fd = os.open(real, os.O_WRONLY | os.O_NOCTTY)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        return
    atomic_write(real, data, mode=None if info is None else stat.S_IMODE(info.st_mode))
