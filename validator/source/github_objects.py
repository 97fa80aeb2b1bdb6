"""Git objects rebuilt from GitHub REST answers, so the HTTP backend
(:mod:`validator.source.http`) can check them against the ids git gives them: the tree
objects of a recursive listing up to the commit's root tree, and the commit object of a
``git/commits`` answer."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from validator.source.tree import SourceError


@dataclass(frozen=True)
class TreeEntry:
    """One entry of a recursive tree listing."""

    path: str
    mode: str
    type: str
    sha: str


def _tree_sort_key(entry: TreeEntry) -> bytes:
    name = entry.path.rsplit("/", 1)[-1].encode()
    return name + b"/" if entry.type == "tree" else name


def tree_objects(entries: list[TreeEntry], root_tree: str) -> dict[str, bytes] | None:
    """Raw tree objects (folder -> ``tree <size>\\0`` + body, ``""`` the root) of the
    recursive ``entries``, or ``None`` unless they hash, tree by tree, to ``root_tree``.

    Each tree object is ``"<mode> <name>\\0<20-byte id>"`` per entry in git's order
    (names compared bytewise, a sub-tree as if its name ended in ``/``); its id is
    ``sha1("tree <size>\\0" + body)``. Source: git's object format (``git mktree``).
    An entry whose folder is not itself a listed tree, or a path listed twice, fails: it
    would be in no hashed tree object.
    """
    children: dict[str, list[TreeEntry]] = {"": []}
    folders = {""} | {e.path for e in entries if e.type == "tree"}
    if len({e.path for e in entries}) != len(entries):
        return None  # one path listed twice: which entry is the commit's?
    for e in entries:
        parent = e.path.rsplit("/", 1)[0] if "/" in e.path else ""
        if parent not in folders or not e.path.rsplit("/", 1)[-1]:
            return None  # an entry under a folder no tree object lists is not hashed
        children.setdefault(parent, []).append(e)
        if e.type == "tree":
            children.setdefault(e.path, [])
    computed: dict[str, str] = {}
    objects: dict[str, bytes] = {}
    for folder in sorted(children, key=lambda p: -p.count("/") - (1 if p else 0)):
        body = b""
        for e in sorted(children[folder], key=_tree_sort_key):
            sha = computed.get(e.path, e.sha) if e.type == "tree" else e.sha
            if e.type == "tree" and sha != e.sha:
                return None
            mode = "40000" if e.type == "tree" else e.mode
            try:
                oid = bytes.fromhex(sha)
            except ValueError:
                return None
            body += f"{mode} {e.path.rsplit('/', 1)[-1]}".encode() + b"\0" + oid
        obj = f"tree {len(body)}".encode() + b"\0" + body
        computed[folder] = hashlib.sha1(obj, usedforsecurity=False).hexdigest()
        objects[folder] = obj
    return objects if computed[""] == root_tree else None


def verify_listing(entries: list[TreeEntry], root_tree: str) -> bool:
    """Whether the recursive ``entries`` hash, tree by tree, to ``root_tree`` (see
    :func:`tree_objects`)."""
    return tree_objects(entries, root_tree) is not None


def _offsets(date: str) -> tuple[int, list[int]]:
    """``(Unix time, candidate UTC offsets in minutes)`` of an ISO 8601 date: its own
    offset when it has one, every offset in use (-12:00 to +14:00, quarter hours, UTC
    first) when it is written in UTC with ``Z`` as GitHub's API does."""
    when = datetime.fromisoformat(date.replace("Z", "+00:00"))
    stamp = int(when.timestamp())
    if date.endswith("Z"):
        return stamp, [0] + [m for m in range(-12 * 60, 14 * 60 + 1, 15) if m]
    offset = when.utcoffset()
    return stamp, [int(offset.total_seconds()) // 60 if offset else 0]


def _zone(minutes: int) -> str:
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}{abs(minutes) % 60:02d}"


def _git_object_id(kind: str, body: bytes) -> str:
    return hashlib.sha1(f"{kind} {len(body)}".encode() + b"\0" + body,
                        usedforsecurity=False).hexdigest()


def _with_signature(payload: bytes, signature: str) -> bytes:
    """A signed commit object: ``payload`` (the object without its signature, as
    GitHub's ``verification.payload`` gives it) with the ``gpgsig`` header git adds after
    the other headers."""
    head, sep, message = payload.partition(b"\n\n")
    sig = signature.rstrip("\n").replace("\n", "\n ")
    return head + b"\ngpgsig " + sig.encode() + sep + message if sep else payload


def verify_commit(info: Any, commit: str, tree: str | None) -> bytes:
    """The raw commit object (``commit <size>\\0`` + body) that GitHub's
    ``git/commits/{commit}`` answer describes, checked to hash to ``commit`` (git's
    object format) and, unless ``tree`` is ``None``, to name ``tree`` as its root tree.

    The object is rebuilt from the answer: the exact ``verification.payload`` for a
    signed commit (with its signature put back), else ``tree``, ``parent`` lines,
    ``author``/``committer`` with Unix time and UTC offset (tried across every offset
    when the API writes dates in UTC) and the message.

    Raises:
        SourceError: the answer is malformed, or no rebuilt object hashes to ``commit``.
    """
    try:
        named_tree = str(info["tree"]["sha"])
        parents = [str(p["sha"]) for p in info["parents"]]
        people = [(str(info[k]["name"]), str(info[k]["email"]), str(info[k]["date"]))
                  for k in ("author", "committer")]
        message = str(info["message"])
        verification = info.get("verification") or {}
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SourceError(f"commit {commit}: malformed git/commits answer from the API") from exc
    if tree is not None and named_tree != tree:
        raise SourceError(f"commit {commit}: the API names tree {tree} for it, but the commit "
                          f"object names tree {named_tree}; refusing both")
    payload, signature = verification.get("payload"), verification.get("signature")
    candidates: list[bytes] = []
    if isinstance(payload, str) and payload:
        body = payload.encode()
        if body.startswith(f"tree {named_tree}\n".encode()):
            candidates = [_with_signature(body, signature) if isinstance(signature, str)
                          else body]
    else:
        try:
            (a_stamp, a_zones), (c_stamp, c_zones) = (_offsets(p[2]) for p in people)
        except ValueError as exc:
            raise SourceError(f"commit {commit}: the API gave a date that is not ISO "
                              "8601") from exc
        head = f"tree {named_tree}\n" + "".join(f"parent {p}\n" for p in parents)
        a_name = f"author {people[0][0]} <{people[0][1]}> {a_stamp} "
        c_name = f"committer {people[1][0]} <{people[1][1]}> {c_stamp} "
        texts = [message] if message.endswith("\n") else [message + "\n", message]
        pairs = [(a, a) for a in a_zones if a in c_zones]
        pairs += [(a, c) for a in a_zones for c in c_zones if a != c]
        for a, c in pairs:
            start = f"{head}{a_name}{_zone(a)}\n{c_name}{_zone(c)}\n\n".encode()
            candidates += [start + t.encode() for t in texts]
    for body in candidates:
        if _git_object_id("commit", body) == commit:
            return f"commit {len(body)}".encode() + b"\0" + body
    raise SourceError(f"commit {commit}: the commit object the API describes does not hash "
                      "to that id (git's object format); refusing its tree. A commit with "
                      "extra headers (encoding, mergetag) cannot be rebuilt from the API: "
                      "use --backend git")


def commit_links(raw: bytes) -> tuple[str, list[str], str]:
    """``(root tree id, parent ids, committer date UTC)`` of a raw commit object
    (``commit <size>\\0`` + body, as :func:`verify_commit` returns it): read from the
    hashed object itself, not from the API's description of it.

    Raises:
        SourceError: the object has no tree or committer header.
    """
    body = raw.partition(b"\0")[2]
    tree, parents, committer = None, [], None
    for line in body.partition(b"\n\n")[0].split(b"\n"):
        key, _, value = line.partition(b" ")
        if key == b"tree":
            tree = value.decode("ascii", "replace")
        elif key == b"parent":
            parents.append(value.decode("ascii", "replace"))
        elif key == b"committer":
            committer = value.decode("utf-8", "replace")
    if tree is None or committer is None:
        raise SourceError("a commit object without a tree or a committer header")
    try:
        when = datetime.fromtimestamp(int(committer.rsplit(" ", 2)[-2]), tz=UTC)
    except (IndexError, ValueError, OverflowError, OSError) as exc:
        raise SourceError("a commit object whose committer has no Unix time") from exc
    return tree, parents, when.strftime("%Y-%m-%dT%H:%M:%SZ")
