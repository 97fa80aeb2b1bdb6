"""Atomic file writes, shared by every store the tool writes (snapshots, records, the
history cache): a reader, or a process killed at any point, sees the old file or the new
one, never a partial one; and :func:`write_output`, the one writer of every command's
report and record files (``--output``, ``--json/--sarif/--markdown FILE``), which writes
through links and into FIFOs and character devices instead of replacing them; and
:class:`ConfinedFolder`, the reader and writer of a folder the tool owns (the ``publish``
folder), which follows no link inside it."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
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


def read_regular_file(path: Path) -> bytes:
    """The bytes of the regular file ``path``, opened without following a link and without
    blocking: a FIFO, a device or a socket in its place is never read (a FIFO would block
    the run for ever).

    Raises:
        FileNotFoundError: nothing is there.
        OSError: a link (``ELOOP``), a folder, FIFO, device or socket (:class:`NotAFileError`),
            or the file cannot be read.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotAFileError(errno.EINVAL, f"{path}: not a regular file")
        return _read_all(fd)
    finally:
        os.close(fd)


class NotAFileError(OSError):
    """A report or record file names something that is neither a file nor a stream (a
    folder, a socket, a block device); ``strerror`` says which."""

    def __str__(self) -> str:
        return str(self.strerror or super().__str__())


INPUT_LIMIT = 64 * 1024 * 1024
"""Largest input file a user names that :func:`read_input_file` reads, in bytes (the
limit of a recipes tree's files too: :data:`validator.source.tree.READ_LIMIT`)."""


def _kind(mode: int) -> str:
    """What a file of ``mode`` that is not a regular file is, in words."""
    for test, what in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a file"


def read_input_file(path: Path, limit: int | None = None) -> bytes:
    """The bytes of an input file the user names (``--config``, ``--manifest``, a lock
    file, the event file): the one reader of them. A link is followed (the user named
    it); what it names must be a regular file of at most ``limit`` bytes (default
    :data:`INPUT_LIMIT`). Its type is
    judged before it is opened (opening a FIFO would block the run for ever, and a device
    such as ``/dev/zero`` never ends), and again on the descriptor, opened without
    blocking (a FIFO swapped in meanwhile is not waited on); at most ``limit + 1`` bytes
    are read, so a file that grows is not read without end either.

    Raises:
        FileNotFoundError: nothing is there.
        NotAFileError: a folder, FIFO, device or socket, or a file larger than ``limit``
            (``strerror`` says which, ending in "not read").
        OSError: the file cannot be read.
    """
    limit = INPUT_LIMIT if limit is None else limit
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise NotAFileError(errno.EINVAL, f"not a regular file ({_kind(mode)}); not read")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotAFileError(errno.EINVAL, f"not a regular file ({_kind(mode)}); not read")
        chunks: list[bytes] = []
        size = 0
        while size <= limit and (block := os.read(fd, min(1 << 20, limit + 1 - size))):
            chunks.append(block)
            size += len(block)
    finally:
        os.close(fd)
    if size > limit:
        raise NotAFileError(errno.EFBIG, f"larger than {limit} bytes; not read")
    return b"".join(chunks)


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
            write_all(fd, data)
        finally:
            os.close(fd)
        return
    atomic_write(real, data, mode=None if info is None else stat.S_IMODE(info.st_mode))


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to the open descriptor ``fd`` (``os.write`` may write less
    than it is given: to a pipe, a FIFO, or when interrupted).

    Raises:
        OSError: a write fails; what was written before stays written.
    """
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class LinkRefused(NotAFileError):
    """A path below a folder the tool owns is, or passes through, a symbolic link (or a
    file where a folder is needed); nothing is read or written through it."""


_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class ConfinedFolder:
    """Reads and atomic writes of files below ``root`` that never follow a link below it.

    ``root`` itself is opened as named (the folder the user gave may be a link); every
    folder below it is opened with ``O_NOFOLLOW`` relative to its parent's descriptor
    (created when a write needs it) and the file itself is opened with ``O_NOFOLLOW``
    or replaced by a rename inside that folder's descriptor. A link met on the way
    raises :class:`LinkRefused` naming it: a link planted inside the folder cannot make
    a write land outside it, replace what it names, or feed its target to a reader.
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def _refused(self, parts: list[str], fd: int) -> LinkRefused:
        shown = self.root.joinpath(*parts)
        try:
            is_link = stat.S_ISLNK(os.stat(parts[-1], dir_fd=fd, follow_symlinks=False).st_mode)
        except OSError:
            is_link = False
        what = (f"is a symbolic link (to {os.readlink(shown)})" if is_link
                else "is not a folder")
        return LinkRefused(errno.ELOOP if is_link else errno.ENOTDIR,
                           f"{shown}: {what}; nothing is read or written through links "
                           f"inside {self.root} (remove it)")

    def _folder(self, parts: list[str], create: bool) -> int | None:
        """A descriptor of the folder ``root/parts`` (``None``: absent and not created).

        Raises:
            LinkRefused: a component is a link or not a folder.
        """
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for i, part in enumerate(parts):
                if create:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(part, 0o777, dir_fd=fd)
                try:
                    inner = os.open(part, _FOLDER_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    if create:
                        raise
                    os.close(fd)
                    return None
                except OSError as exc:
                    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                        raise self._refused(parts[: i + 1], fd) from None
                    raise
                os.close(fd)
                fd = inner
        except BaseException:
            os.close(fd)
            raise
        return fd

    def read(self, rel: str) -> bytes | None:
        """The bytes of the regular file ``root/rel``; ``None`` when it does not exist.

        Raises:
            LinkRefused: ``rel`` or a folder on its way is a link.
            NotAFileError: ``rel`` is a folder, a FIFO or another non-regular file.
        """
        *folders, name = rel.split("/")
        fd = self._folder(folders, create=False)
        if fd is None:
            return None
        try:
            try:
                file_fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                                  | os.O_CLOEXEC, dir_fd=fd)
            except FileNotFoundError:
                return None
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise self._refused([*folders, name], fd) from None
                raise
            with os.fdopen(file_fd, "rb") as stream:
                if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                    raise NotAFileError(errno.EINVAL, f"{self.root / rel}: not a regular "
                                        "file (remove it)")
                return stream.read()
        finally:
            os.close(fd)

    def write(self, rel: str, data: bytes) -> None:
        """Replace ``root/rel`` by ``data`` atomically (as :func:`atomic_write`), creating
        the folders on its way; an existing link or non-regular file there is refused.

        Raises:
            LinkRefused: ``rel`` or a folder on its way is a link.
            NotAFileError: ``rel`` is a folder or another non-regular file.
            OSError: any other I/O failure (nothing is replaced then).
        """
        *folders, name = rel.split("/")
        fd = self._folder(folders, create=True)
        assert fd is not None
        try:
            try:
                mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
            except FileNotFoundError:
                mode = stat.S_IFREG
            if stat.S_ISLNK(mode):
                raise self._refused([*folders, name], fd)
            if not stat.S_ISREG(mode):
                raise NotAFileError(errno.EINVAL, f"{self.root / rel}: not a regular file "
                                    "(remove it)")
            self._replace(fd, name, data)
        finally:
            os.close(fd)

    @staticmethod
    def _replace(fd: int, name: str, data: bytes) -> None:
        tmp = f".{name}.{secrets.token_hex(8)}.tmp"
        file_fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                          | os.O_CLOEXEC, 0o600, dir_fd=fd)
        try:
            with os.fdopen(file_fd, "wb") as stream:
                os.fchmod(stream.fileno(), 0o666 & ~current_umask())
                stream.write(data)
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=fd)
            raise
        os.fsync(fd)
