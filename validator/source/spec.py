"""Source specs ``OWNER/REPO@REV:PATH``: parsing, path safety, and opening a tree.

``vllm-project/recipes@d5fc1f55cee70f4e1944f2dd4f7569cb8276ad94:models/zai-org/GLM-5.3.yaml``
names one file at one revision of one GitHub repository. A full 40-hex ``REV`` is
*pinned*; a branch, tag or short commit id is resolved once, by the backend, to a full
commit, and the provenance of everything read from it keeps the name it was resolved
from (``resolved_from``).

``PATH`` is repository-relative and must stay inside the repository: absolute paths,
``..`` and ``.`` segments, empty segments, backslashes, control characters and
percent-encoded bytes (``%2e%2e``, ``%2f``) are refused, so that a spec can never name a
file outside the tree however a backend later joins it into a URL or a filesystem path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from validator.source.options import FetchOptions
from validator.source.tree import SourceError

if TYPE_CHECKING:
    from validator.source.snapshots import SnapshotStore
    from validator.source.tree import RecipeTree

FULL_COMMIT = re.compile(r"^[0-9a-f]{40}$")
"""A full SHA-1 commit id (lower case)."""

_SPEC = re.compile(r"^(?P<owner>[A-Za-z0-9_.-]+)/(?P<name>[A-Za-z0-9_.-]+)"
                   r"@(?P<rev>[^:\s]+):(?P<path>.+)$", re.DOTALL)
_REV = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._/+-]*$")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class SpecError(SourceError):
    """A spec is malformed or names an unsafe path or revision."""


@dataclass(frozen=True)
class Spec:
    """One parsed ``OWNER/REPO@REV:PATH``.

    Attributes:
        owner, name: the GitHub repository ``owner/name``.
        rev: the revision as written (full commit, short id, branch or tag).
        path: the repository-relative POSIX path, validated by :func:`check_path`.
    """

    owner: str
    name: str
    rev: str
    path: str

    @property
    def repository(self) -> str:
        """``owner/name``."""
        return f"{self.owner}/{self.name}"

    @property
    def pinned(self) -> bool:
        """Whether ``rev`` is a full 40-hex commit id (no resolution needed)."""
        return bool(FULL_COMMIT.match(self.rev))

    def __str__(self) -> str:
        return f"{self.repository}@{self.rev}:{self.path}"


def looks_like_spec(text: str) -> bool:
    """Whether ``text`` has the shape ``OWNER/REPO@REV:PATH`` (it may still be invalid)."""
    return bool(_SPEC.match(text))


def check_path(path: str) -> str:
    """Return ``path`` if it is a safe repository-relative POSIX path.

    Raises:
        SpecError: empty, absolute, ``..``/``.``/empty segments, a ``.git`` segment,
            backslashes, control characters, or percent-encoded bytes.
    """
    if not path:
        raise SpecError("empty path")
    if _CONTROL.search(path):
        raise SpecError(f"{path!r}: control characters are not allowed in a path")
    if "\\" in path:
        raise SpecError(f"{path!r}: backslashes are not allowed in a path")
    if _PERCENT.search(path):
        raise SpecError(f"{path!r}: percent-encoded characters are not allowed in a path "
                        "(write the path as it is in the repository)")
    if path.startswith("/"):
        raise SpecError(f"{path!r}: must be relative to the repository root, not absolute")
    for part in path.split("/"):
        if part in ("", ".", ".."):
            raise SpecError(f"{path!r}: '..', '.' and empty segments are not allowed")
        if part.lower() == ".git":
            raise SpecError(f"{path!r}: paths inside .git are not allowed")
    return path


def check_rev(rev: str) -> str:
    """Return ``rev`` if it is a plausible commit id, branch or tag name.

    Follows ``git check-ref-format`` closely enough to refuse option injection
    (a leading ``-``), ranges (``..``), reflog syntax (``@{``) and ``.lock`` names.

    Raises:
        SpecError: the revision is refused.
    """
    if (not _REV.match(rev) or ".." in rev or "@{" in rev or "//" in rev
            or rev.endswith((".lock", "/", "."))):
        raise SpecError(f"{rev!r}: not a valid commit id, branch or tag name")
    return rev


def parse_spec(text: str) -> Spec:
    """Parse ``OWNER/REPO@REV:PATH``.

    Raises:
        SpecError: the text is not a spec, or its revision or path is refused.
    """
    m = _SPEC.match(text)
    if not m:
        raise SpecError(f"{text!r}: expected OWNER/REPO@REV:PATH")
    owner, name = m.group("owner"), m.group("name")
    if owner in (".", "..") or name in (".", ".."):
        raise SpecError(f"{text!r}: invalid repository name {owner}/{name}")
    rev = check_rev(m.group("rev"))
    if re.fullmatch(r"[0-9A-F]{40}", rev):
        rev = rev.lower()
    path = m.group("path")
    if path.endswith("/") and not path.endswith("//"):
        path = path[:-1]  # one trailing slash names the same folder (``…:models/``)
    return Spec(owner, name, rev, check_path(path))


TreeKey = tuple[str, str, str, str]


def open_spec(spec: Spec, options: FetchOptions,
              trees: dict[TreeKey, RecipeTree] | None = None) -> tuple[RecipeTree, str]:
    """Open the tree ``spec`` names with the backend ``options`` choose.

    ``--offline`` reads the snapshot store only; otherwise ``options.backend`` is ``git``
    (:class:`~validator.source.git.GitTree`) or ``http``
    (:class:`~validator.source.http.HttpTree`). ``trees`` caches one tree per
    (backend, repository, revision), so that several specs of one revision share one tree
    and one context. Expected digests (``--expect-sha256``, and the snapshot lock file's
    entry for the same repository, commit and path) are registered on the tree, which
    then raises a PROV002 :class:`~validator.source.verify.VerificationError` from
    ``provenance`` when the bytes differ.

    Returns:
        ``(tree, path)``; ``path`` is ``spec.path``.

    Raises:
        SourceError: the repository, revision or store cannot be opened.
    """
    from validator.source.snapshots import SnapshotStore, SnapshotTree

    backend = "offline" if options.offline else options.backend
    key = (backend, spec.repository, spec.rev, str(options.snapshot_dir))
    tree = trees.get(key) if trees is not None else None
    store = SnapshotStore(options.snapshot_dir)
    if tree is None:
        if options.offline:
            tree = SnapshotTree.open(store, spec.repository, spec.rev)
        elif options.backend == "http":
            from validator.source.http import HttpTree

            tree = HttpTree.open(spec.repository, spec.rev, options)
        elif options.backend == "git":
            from validator.source.git import GitTree

            tree = GitTree.open(spec.repository, spec.rev, options)
        else:
            raise SourceError(f"unknown backend {options.backend!r} (git or http)")
        if trees is not None:
            trees[key] = tree
    _register_expectations(tree, spec.repository, spec.path, options, store)
    return tree, spec.path


def _register_expectations(tree: RecipeTree, repository: str, path: str,
                           options: FetchOptions, store: SnapshotStore) -> None:
    expect = getattr(tree, "expect", None)
    if callable(expect) and tree.revision is not None:
        locked = store.entry(repository, tree.revision, path)
        if locked is not None:
            expect(path, locked.sha256, f"lock file {store.lock_path}")
        if options.expect_sha256:
            expect(path, options.expect_sha256, "--expect-sha256")


def open_targets(spec: Spec, options: FetchOptions,
                 trees: dict[TreeKey, RecipeTree] | None = None
                 ) -> tuple[RecipeTree, list[str]]:
    """:func:`open_spec`, with a folder ``PATH`` expanded to the ``.yaml`` files below it
    at that revision (as local folders are); expected digests are registered per file.

    Returns:
        ``(tree, paths)``; ``[spec.path]`` when it is a file or does not exist (reading it
        then reports the missing path).
    """
    from validator.source.snapshots import SnapshotStore

    tree, path = open_spec(spec, options, trees)
    if tree.exists(path):
        return tree, [path]
    listed = [p for p in tree.list(path) if p.endswith((".yaml", ".yml"))]
    store = SnapshotStore(options.snapshot_dir)
    for p in listed:
        _register_expectations(tree, spec.repository, p, options, store)
    return tree, listed or [path]
