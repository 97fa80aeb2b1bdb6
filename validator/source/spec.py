"""Source specs ``OWNER/REPO@REV:PATH``: parsing and path safety.

``vllm-project/recipes@d5fc1f55cee70f4e1944f2dd4f7569cb8276ad94:models/zai-org/GLM-5.3.yaml``
names one file at one revision of one GitHub repository. A full 40-hex ``REV`` is
*pinned*; a branch, tag or short commit id is resolved once, by the backend, to a full
commit, and the provenance of everything read from it keeps the name it was resolved
from (``resolved_from``).

``PATH`` is repository-relative and must stay inside the repository: absolute paths,
``..`` and ``.`` segments, empty segments, backslashes, control characters and
percent-encoded bytes (``%2e%2e``, ``%2f``) are refused, so that a spec can never name a
file outside the tree however a backend later joins it into a URL or a filesystem path.

Opening the tree a spec names is :mod:`validator.source.targets` (it imports the
backends; the backends import this module for :data:`FULL_COMMIT` and the path checks).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from validator.source.tree import SourceError

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
    percent = _PERCENT.search(path)
    if percent:
        raise SpecError(f"{path!r}: holds {percent.group(0)!r}, and percent-encoded "
                        "characters are not allowed in a path (over HTTP one could stand "
                        "for another file's name)")
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
    try:
        return Spec(owner, name, rev, check_path(path))
    except SpecError as exc:
        if _PERCENT.search(path):  # typed by the user, maybe encoded by a browser
            raise SpecError(f"{exc}: write the path as it is in the repository") from None
        raise
