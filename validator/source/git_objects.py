"""Raw git objects as the snapshot store keeps them: their ids, the parts of commit and
tree objects that tie a stored file to its commit, and the chain of objects of a tree; and
whether a repository's objects are of the one format the tool reads (SHA-1 ids)."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from validator.source.tree import RecipeTree


def git_object_hash(raw: bytes) -> str:
    """Git's id of a raw object (``<type> <size>\\0`` + body): its SHA-1."""
    return hashlib.sha1(raw, usedforsecurity=False).hexdigest()


_FORMAT_NAMES = {"sha256": "SHA-256"}


def unsupported_object_format(folder: Path | str) -> str | None:
    """Why the git repository at ``folder`` (a work tree, git dir or bare mirror) cannot
    be read, when its object format is not SHA-1 (``git init --object-format=sha256``):
    every id the tool reads, recomputes (:func:`git_object_hash`) and records is a 40-hex
    SHA-1. ``None`` for a SHA-1 repository, or when git cannot tell (not a repository:
    the caller reports that its own way). Every command that opens a repository asks
    this first, so none fails later on ids it cannot read."""
    env = {**os.environ, "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}
    try:
        proc = subprocess.run(["git", "-C", str(folder), "rev-parse", "--show-object-format"],
                              capture_output=True, text=True, env=env, check=False)
    except OSError:
        return None
    found = proc.stdout.strip()
    if proc.returncode != 0 or found == "sha1" or not re.fullmatch(r"sha\d+", found):
        return None
    return (f"{_FORMAT_NAMES.get(found, found)} object format is not supported "
            "(recipe-check reads repositories in git's SHA-1 format only)")


def commit_headers(body: bytes) -> dict[str, str]:
    """The headers of a commit object's body (``tree``, ``parent``, ``committer`` ...;
    the first of each)."""
    out: dict[str, str] = {}
    for line in body.partition(b"\n\n")[0].split(b"\n"):
        key, _, value = line.decode("utf-8", "replace").partition(" ")
        out.setdefault(key, value)
    return out


def tree_entries(body: bytes) -> dict[str, tuple[str, str]]:
    """Name -> (mode, object id) of a tree object's body."""
    out: dict[str, tuple[str, str]] = {}
    while body:
        head, _, rest = body.partition(b"\0")
        mode, _, name = head.partition(b" ")
        out[name.decode("utf-8", "surrogateescape")] = (mode.decode("ascii", "replace"),
                                                        rest[:20].hex())
        body = rest[20:]
    return out


def committer_date(value: str) -> str | None:
    """The UTC date (``YYYY-MM-DDTHH:MM:SSZ``) of a ``committer`` header, or ``None``."""
    parts = value.rsplit(" ", 2)
    if len(parts) != 3 or not parts[1].lstrip("-").isdigit():
        return None
    return datetime.fromtimestamp(int(parts[1]), tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def chain_objects(tree: RecipeTree, paths: Iterable[str]) -> list[bytes]:
    """The raw git objects tying ``paths`` to ``tree``'s commit (its ``object_chain``;
    none for a tree without one)."""
    chain = getattr(tree, "object_chain", None)
    if chain is None:
        return []
    out: dict[bytes, None] = {}
    for path in paths:
        out.update(dict.fromkeys(chain(path)))
    return list(out)
