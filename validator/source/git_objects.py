"""Raw git objects as the snapshot store keeps them: their ids, the parts of commit and
tree objects that tie a stored file to its commit, and the chain of objects of a tree."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from validator.source.tree import RecipeTree


def git_object_hash(raw: bytes) -> str:
    """Git's id of a raw object (``<type> <size>\\0`` + body): its SHA-1."""
    return hashlib.sha1(raw, usedforsecurity=False).hexdigest()


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
