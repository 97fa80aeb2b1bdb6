"""The output folder of ``render --api-out DIR``, written whole or not at all.

Every file goes to a staging folder beside ``DIR`` (same file system). Only when the whole
API is written is the staging folder flushed to disk (one ``sync``: fsyncing 15,000 files
one by one takes minutes) and renamed over ``DIR``; a previous API in ``DIR`` is renamed
aside first and removed after. On any error the staging folder is removed and ``DIR`` is
left as it was. A reader never sees a half-written file or a half-written API: ``DIR`` is
the old API or the new one (between the two renames it is briefly absent).

A run that is killed leaves its staging folder (``.DIR.XXXXXXXX.staging``), or the old API
renamed aside (``.DIR.XXXXXXXX.old``); the next run of ``DIR`` removes those it can prove
its own (:func:`remove_stale_folders`): a folder (not a link) of that name holding a valid
:data:`MARKER` (a stage holds one from its start) that no running run holds -- each run
holds an exclusive ``flock`` on its stage, and on the old API while it swaps, and writes
the stage's marker only once it holds the lock.

``DIR`` may be absent, an empty folder, or an API an earlier ``render --api-out`` wrote:
one holding its marker file :data:`MARKER` (which lists every file written) and no file
the marker does not list (:func:`validator.owned_folder.ownership_problem`). Anything else
is refused -- a folder that merely holds a ``models.json`` and a ``taxonomy.json`` too --
so that ``--api-out`` never deletes a file it did not write.
"""

from __future__ import annotations

import fcntl
import os
import posixpath
import re
import shutil
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

import orjson

from validator.atomic import write_all
from validator.errors import RecipeCheckError
from validator.owned_folder import (
    is_made_by,
    marker_bytes,
    ownership_problem,
    remove_unheld_folders,
    walk_files,
)
from validator.render.api_paths import PUBLIC, api_path_problem

MARKER = ".recipe-check-api.json"
"""The file every API written holds: ``{"made_by": MADE_BY, "files": [relative paths]}``
(not a file of the site's API: a comparison with the site's build leaves it out)."""
MADE_BY = "recipe-check render --api-out"


class ApiOutputError(RecipeCheckError):
    """The output folder cannot be used or written (the message says why)."""


def json_bytes(data: Any) -> bytes:
    """``JSON.stringify(data, null, 2)`` as bytes (UTF-8, two-space indent, no final
    newline; NaN and infinities are ``null``)."""
    return orjson.dumps(data, option=orjson.OPT_INDENT_2)


def check_target(target: Path) -> None:
    """Refuse an output folder we must not replace.

    Raises:
        ApiOutputError: ``target`` is a file, or a folder that is neither empty nor an API.
    """
    if not target.exists() and not target.is_symlink():
        return
    if target.is_symlink():
        raise ApiOutputError(f"{target}: is a symbolic link (to {os.readlink(target)}); "
                             "not replaced: name the folder itself")
    if not target.is_dir():
        raise ApiOutputError(f"{target}: exists and is not a folder; not replaced")
    problem = ownership_problem(target, MARKER, MADE_BY, "an API",
                                "writing the API there")
    if problem is not None:
        raise ApiOutputError(f"{target}: {problem}; not replaced")


_PLAIN = re.compile(r"(?:[^/.\\][^/\\]*/)*[^/.\\][^/\\]*")
"""A relative path that is normal already: segments not empty, none starting with ``.``
(so no ``.`` or ``..``), no backslash (the rest go through :func:`api_path_problem`)."""
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)
"""``open(path, "wb")``'s flags."""

_WORK_FOLDER = r"\.{name}\.[a-z0-9_]{{8}}\.(?:staging|old)"
"""The names of the folders a run makes beside ``DIR`` (``tempfile.mkdtemp``'s 8 letters)."""


def _held_folder(path: Path) -> int:
    """An open descriptor of the folder ``path`` holding an exclusive ``flock`` on it
    (waiting for another run's).

    Raises:
        OSError: it cannot be opened (not a folder, a link).
    """
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def remove_stale_folders(target: Path) -> list[Path]:
    """Remove the staging and old folders beside ``target`` a killed run left: named as
    a run names them, a folder (not a link) holding a valid :data:`MARKER`, and held by
    no running run (a non-blocking ``flock``). Returns those removed; anything else of a
    similar name is left alone."""
    pattern = re.compile(_WORK_FOLDER.format(name=re.escape(target.name)))
    # the marker is written once its run held the lock
    return remove_unheld_folders(target.parent, pattern,
                                 lambda child: is_made_by(child, MARKER, MADE_BY))


class StagedApiFolder:
    """A context manager: files are written under a staging folder, :meth:`commit` puts
    it in place of the target; leaving the block without committing removes it."""

    def __init__(self, target: Path) -> None:
        self.target = target
        self._stage: Path | None = None
        self._root = ""  # the stage as a string ending in "/" (os-level calls take it)
        self._made: set[str] = set()  # folders known to exist in the stage ("" its root)
        self._held: int | None = None  # the stage's descriptor, holding its flock
        self._listed: list[str] | None = None  # the stage's files, as last walked

    def __enter__(self) -> StagedApiFolder:
        check_target(self.target)
        parent = self.target.parent
        parent.mkdir(parents=True, exist_ok=True)
        remove_stale_folders(self.target)
        self._stage = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.", suffix=".staging",
                                            dir=parent))
        self._held = _held_folder(self._stage)
        self._root, self._made = f"{self._stage}/", {""}
        (self._stage / MARKER).write_bytes(marker_bytes(MADE_BY, []))  # ours, once held
        self._stage.chmod(0o755)  # mkdtemp makes it private; the API is meant to be served
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._stage is not None:
            shutil.rmtree(self._stage, ignore_errors=True)
            self._stage = None
        if self._held is not None:
            os.close(self._held)
            self._held = None

    @property
    def stage(self) -> Path:
        """The staging folder (only inside the ``with`` block)."""
        if self._stage is None:
            raise RuntimeError("StagedApiFolder used outside its with block")
        return self._stage

    def _relative(self, rel: str) -> str | None:
        """``path.join(public, rel)`` relative to the stage; ``None`` for the stage itself.

        Raises:
            ApiOutputError: ``rel`` is no path inside the folder
                (:func:`~validator.render.api_paths.api_path_problem`).
        """
        if _PLAIN.fullmatch(rel):  # already normal: no ".", "..", empty segment or "\\"
            return rel
        problem = api_path_problem(rel)
        if problem is not None:
            raise ApiOutputError(f"{rel!r} {problem}: it would be written outside the API "
                                 "folder or over it; refused")
        joined = posixpath.normpath(f"{PUBLIC}/{rel}")
        if joined == PUBLIC:
            return None
        return joined[len(PUBLIC) + 1:]

    def _resolve(self, rel: str) -> Path | None:
        """:meth:`_relative` as a path inside the stage."""
        relative = self._relative(rel)
        return None if relative is None else self.stage / relative

    def write_json(self, rel: str, data: Any) -> None:
        """Write ``data`` as the file ``rel`` (replacing an earlier one)."""
        self.write_bytes(rel, json_bytes(data))

    def write_bytes(self, rel: str, payload: bytes) -> None:
        """Write ``payload`` as the file ``rel`` (replacing an earlier one): os-level
        calls on strings, each folder of the stage made once (15,000 files per build)."""
        relative = self._relative(rel)
        if relative is None:
            raise ApiOutputError(f"{rel!r} names the API folder itself, not a file")
        if self._stage is None:
            raise RuntimeError("StagedApiFolder used outside its with block")
        self._listed = None
        try:
            folder = relative.rpartition("/")[0]
            if folder not in self._made:
                self._make_folders(folder)
            fd = os.open(self._root + relative, _WRITE_FLAGS, 0o666)
            try:
                write_all(fd, payload)
            finally:
                os.close(fd)
        except IsADirectoryError:
            raise ApiOutputError(f"{rel}: a folder of that name was written earlier") from None
        except (NotADirectoryError, FileExistsError):
            raise ApiOutputError(f"{rel}: a parent of it was written earlier as a file") \
                from None

    def _make_folders(self, folder: str) -> None:
        """Make ``folder`` (relative to the stage) and its missing parents, one ``mkdir``
        each; a folder that exists already (written before a removal) is fine."""
        parent = folder.rpartition("/")[0]
        if parent not in self._made:
            self._make_folders(parent)
        try:
            os.mkdir(self._root + folder)
        except FileExistsError:
            if not os.path.isdir(self._root + folder):
                raise
        self._made.add(folder)

    def remove(self, rel: str) -> None:
        """``rm -rf`` of ``rel`` inside the stage (the site clears a variant's subtree
        before writing it); ``rel`` naming the folder itself empties it."""
        path = self._resolve(rel)
        self._made = {""}
        self._listed = None
        targets = [p for p in self.stage.iterdir() if p.name != MARKER] if path is None \
            else [path]
        for item in targets:
            if item.is_dir() and not item.is_symlink():
                shutil.rmtree(item)
            elif item.exists() or item.is_symlink():
                item.unlink()

    def written(self) -> list[str]:
        """The files now in the stage (POSIX paths relative to it; writes that replaced
        or were removed not counted; the stage's marker not counted), walked once until
        the next write or removal."""
        if self._listed is None:
            self._listed = [rel for rel in walk_files(str(self.stage)) if rel != MARKER]
        return self._listed

    def file_count(self) -> int:
        """Files now in the stage (see :meth:`written`)."""
        return len(self.written())

    def commit(self) -> None:
        """Flush the stage and put it in place of the target (see the module doc)."""
        stage = self.stage
        check_target(self.target)
        (stage / MARKER).write_bytes(marker_bytes(MADE_BY, self.written()))
        os.sync()
        old: Path | None = None
        held_old: int | None = None  # the old API held while aside (no run removes it)
        try:
            if self.target.is_dir() and any(self.target.iterdir()):
                old = stage.with_name(stage.name[: -len(".staging")] + ".old")
                held_old = _held_folder(self.target)
                os.rename(self.target, old)
            try:
                os.rename(stage, self.target)
            except OSError:
                if old is not None:
                    os.rename(old, self.target)
                raise
            self._stage = None
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        finally:
            if held_old is not None:
                os.close(held_old)
