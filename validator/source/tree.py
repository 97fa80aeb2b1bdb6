"""One revision of a recipes repository, as a read-only file tree."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol, runtime_checkable

from validator.atomic import read_input_file
from validator.errors import RecipeCheckError
from validator.source.provenance import Provenance

READ_LIMIT = 64 * 1024 * 1024
"""Largest file a :class:`LocalTree` reads, in bytes (recipes are tens of KiB)."""


class SourceError(RecipeCheckError):
    """Bytes could not be obtained (missing path, I/O failure, refused path).

    The message names the file and the reason; the CLI prints it and exits 2.
    """


@runtime_checkable
class RecipeTree(Protocol):
    """Files of one revision of a recipes repository.

    Paths are repository-relative POSIX paths (``models/org/name.yaml``).
    """

    @property
    def revision(self) -> str | None:
        """Full commit id of this revision, or ``None`` for an uncommitted working tree."""
        ...

    @property
    def label(self) -> str:
        """Human-readable name of the tree (folder, URL@commit)."""
        ...

    def read(self, path: str) -> bytes:
        """Exact bytes of ``path``. Raises :class:`FileNotFoundError` when absent,
        :class:`SourceError` on any other failure."""
        ...

    def exists(self, path: str) -> bool:
        """Whether ``path`` is a file in this revision."""
        ...

    def list(self, prefix: str) -> list[str]:
        """Sorted paths of all files under folder ``prefix`` (recursive)."""
        ...

    def provenance(self, path: str, data: bytes) -> Provenance:
        """Provenance of ``data``, the bytes just read from ``path``."""
        ...


class LocalTree:
    """A recipes checkout (or any folder laid out like one) on disk.

    Symbolic links that resolve outside ``root`` are never followed: reading one raises
    :class:`SourceError`.
    """

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.unreadable: dict[str, str] = {}
        """Folders (relative paths) a walk could not list -> why."""
        self.folder_links: dict[str, str] = {}
        """Links to folders inside the root that a walk passed (relative paths) -> the
        folder each resolves to."""
        self.expected: dict[str, list[tuple[str, str]]] = {}
        """Relative path -> ``(sha256, who expects it)`` (``--expect-sha256``), checked
        where the bytes are read for a check (``PROV002``)."""

    def expect(self, path: str, sha256: str, origin: str) -> None:
        """Require ``path`` to hash to ``sha256``; ``origin`` names who expects it."""
        self.expected.setdefault(path, []).append((sha256.lower(), origin))

    @property
    def revision(self) -> str | None:
        """Always ``None``: a working tree may hold uncommitted changes."""
        return None

    @property
    def label(self) -> str:
        """The folder's path."""
        return str(self.root)

    def _resolve(self, path: str) -> Path:
        candidate = self.root / path
        try:
            real = candidate.resolve()
        except (RuntimeError, OSError) as exc:  # RuntimeError: a symbolic link loop
            raise SourceError(f"{path}: symbolic link loop or unresolvable path ({exc}); "
                              "not followed") from exc
        if not real.is_relative_to(self.root):
            raise SourceError(f"{path}: resolves outside the recipes root {self.root} "
                              "(symbolic link or '..'); not followed")
        return candidate

    def read(self, path: str) -> bytes:
        """Bytes of ``root/path``; see :meth:`RecipeTree.read`.

        Only regular files are read (a FIFO would block forever, a device never end), and
        at most :data:`READ_LIMIT` bytes: a larger file raises :class:`SourceError`
        instead of filling memory (the loader's own, much lower ``--max-bytes`` limit
        applies below it).
        """
        target = self._resolve(path)
        if target.is_symlink() and not target.exists():
            raise SourceError(f"{path}: dangling symbolic link (its target does not exist); "
                              "not read")
        try:
            if target.is_dir():
                if not os.access(target, os.R_OK | os.X_OK) or path in self.unreadable:
                    raise SourceError(f"{path}: folder cannot be read "
                                      f"({self.unreadable.get(path, 'permission denied')}); "
                                      "the recipes in it were not checked")
                raise SourceError(f"{path}: is a directory")
            # a FIFO, device or socket is refused before it is opened (opening a FIFO
            # would wake a writer waiting on it), and again on the descriptor; a file
            # larger than the limit is not read into memory
            data = read_input_file(target, READ_LIMIT)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise SourceError(f"{path}: {exc.strerror or exc}") from exc
        return data

    def refused_link(self, path: str) -> SourceError | None:
        """Why ``root/path``, when it is there (a link too, dangling or not), is not
        followed: it resolves outside the root or cannot be resolved; else ``None``."""
        if not os.path.lexists(self.root / path):
            return None
        try:
            self._resolve(path)
        except SourceError as exc:
            return exc
        return None

    def refused_links(self, folder: str) -> dict[str, SourceError]:
        """The links directly in ``root/folder`` named as YAML documents that
        :meth:`list` leaves out because they are not followed (leaving the root, looping,
        dangling) -> why; none when ``folder`` itself is refused or no folder."""
        base = self.root / folder
        if self.refused_link(folder) is not None or not base.is_dir():
            return {}
        refused: dict[str, SourceError] = {}
        try:
            entries = sorted(os.scandir(base), key=lambda entry: entry.name)
        except OSError:
            return {}
        for entry in entries:
            if not entry.is_symlink() or not entry.name.endswith((".yaml", ".yml")):
                continue
            path = f"{folder}/{entry.name}"
            why = self.refused_link(path)
            if why is None and not os.path.exists(entry.path):
                why = SourceError(f"{path}: dangling symbolic link (its target does not "
                                  "exist); not read")
            if why is not None:
                refused[path] = why
        return refused

    def exists(self, path: str) -> bool:
        """Whether ``root/path`` is a regular file inside the root."""
        try:
            return self._resolve(path).is_file()
        except SourceError:
            return False

    def list(self, prefix: str) -> list[str]:
        """Files under ``root/prefix``, symlinks leaving the root excluded."""
        base = self.root / prefix
        if not base.is_dir():
            return []
        try:
            plain = base.resolve() == base  # no symbolic link or '..' on the way to base
        except (RuntimeError, OSError):
            plain = False
        if not plain:
            return sorted(rel for rel in (p.relative_to(self.root).as_posix()
                                          for p in base.rglob("*")) if self.exists(rel))
        out: list[str] = []
        folders = [base]
        while folders:  # what rglob visits (symlinked folders not entered), one scandir each
            folder = folders.pop()
            try:
                entries = list(os.scandir(folder))
            except PermissionError:
                continue
            for entry in entries:
                rel = Path(entry.path).relative_to(self.root).as_posix()
                if entry.is_symlink():  # only links need resolving (may leave the root)
                    if self.exists(rel):
                        out.append(rel)
                elif entry.is_dir(follow_symlinks=False):
                    folders.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    out.append(rel)
        return sorted(out)

    def provenance(self, path: str, data: bytes) -> Provenance:
        """Digests only: a working tree has no commit."""
        return Provenance.of_bytes(path, data, fetched_from=str(self.root / path))
