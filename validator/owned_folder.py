"""Folders recipe-check replaces whole (the catalogue of ``publish --site``, the API of
``render --api-out``) and may therefore only replace when it made them.

Each such folder holds a marker file naming the command that made it and listing every
file it wrote (:func:`marker_bytes`). A folder may be replaced when it is empty, or when
its marker is valid and it holds no file the marker does not list
(:func:`ownership_problem`): a folder of the user's, or a file added to ours by hand, is
never deleted in silence.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from validator.atomic import atomic_write
from validator.state_json import parse_json


def marker_bytes(made_by: str, files: Iterable[str]) -> bytes:
    """The marker of a folder ``made_by`` a command, holding ``files`` (POSIX paths
    relative to it)."""
    return (json.dumps({"made_by": made_by, "files": sorted(files)}, indent=1) + "\n"
            ).encode("utf-8")


def _listed(folder: Path, marker: str, made_by: str) -> set[str] | None:
    path = folder / marker
    try:
        doc = parse_json(path.read_bytes()) if path.is_file() else None
        return set(doc["files"]) if isinstance(doc, dict) and doc.get(
            "made_by") == made_by else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def is_made_by(folder: Path, marker: str, made_by: str) -> bool:
    """Whether ``folder`` holds a valid ``marker`` naming ``made_by`` (whatever else it
    holds)."""
    return _listed(folder, marker, made_by) is not None


def walk_files(folder: str, ordered: bool = False) -> Iterator[str]:
    """Every file under ``folder`` (``os.walk``: links to folders listed, not followed)
    as a POSIX path relative to it, built from strings (a folder of 15,000 files);
    ``ordered``: each folder's files, then its subfolders, by name."""
    cut = len(folder.rstrip("/")) + 1
    for top, dirs, files in os.walk(folder):
        prefix = top[cut:] + "/" if top != folder else ""
        if ordered:
            dirs.sort()
            files.sort()
        for name in files:
            yield prefix + name


def ownership_problem(folder: Path, marker: str, made_by: str, what: str,
                      action: str) -> str | None:
    """``None`` when ``folder`` (an existing folder) is empty or was made by ``made_by``
    and holds nothing else; otherwise why not. ``what`` names what the command makes
    (``a catalogue``), ``action`` what replacing it does (``building the catalogue
    there``)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError as exc:
        return f"cannot be listed ({exc.strerror or exc})"
    if not names:
        return None
    listed = _listed(folder, marker, made_by)
    if listed is None:
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        return (f"is a folder that holds files ({shown}) and is not {what} an "
                f"earlier '{made_by.removeprefix('recipe-check ')}' made (no valid "
                f"{marker}); {action} would delete them")
    for rel in walk_files(str(folder), ordered=True):
        if rel != marker and rel not in listed:
            return (f"holds {rel}, which no '{made_by.removeprefix('recipe-check ')}' "
                    f"made; {action} would delete it (move it out first)")
    return None


CACHE_TAG = "CACHEDIR.TAG"
"""The marker of a recipe-check cache folder, in the Cache Directory Tagging format
(backup tools skip such folders), with a second line naming recipe-check: ``cache clean``
removes the parts of a folder holding it, and of no other folder."""

CACHE_TAG_TEXT = ("Signature: 8a477f597d28d172789f06886806bc55\n"
                  "# This file is a cache directory tag created by recipe-check.\n")


def tag_cache_folder(folder: Path) -> None:
    """Write :data:`CACHE_TAG` into ``folder`` (made when missing) unless it is there:
    every writer of a cache part calls this before writing."""
    path = folder / CACHE_TAG
    if os.path.lexists(path):
        return
    atomic_write(path, CACHE_TAG_TEXT.encode())  # a temporary file per writer: threads too


def is_tagged_cache(folder: Path) -> bool:
    """Whether ``folder`` holds recipe-check's :data:`CACHE_TAG` (a regular file, not a
    link, with recipe-check's text)."""
    path = folder / CACHE_TAG
    try:
        return (not path.is_symlink() and path.is_file()
                and path.read_text("utf-8", errors="replace")[:len(CACHE_TAG_TEXT) + 1]
                == CACHE_TAG_TEXT)
    except OSError:
        return False


def remove_unheld_folders(parent: Path, pattern: re.Pattern[str],
                          owned: Callable[[Path], bool] = lambda _: True) -> list[Path]:
    """Remove the folders of ``parent`` whose names match ``pattern`` that a killed run
    left: a folder (never a link or a file), ``owned`` by such a run, and held by no
    running one (each run holds an exclusive ``flock`` on its own; a non-blocking
    ``flock`` here fails on those). Returns those removed, by name order."""
    removed: list[Path] = []
    try:
        children = sorted(parent.iterdir())
    except OSError:
        return removed
    for child in children:
        if not pattern.fullmatch(child.name) or child.is_symlink() or not child.is_dir():
            continue
        try:
            fd = os.open(child, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if owned(child):
                shutil.rmtree(child, ignore_errors=True)
                removed.append(child)
        except BlockingIOError:
            pass  # a running run's
        finally:
            os.close(fd)
    return removed
