"""Single pinned files described by a manifest, read in place.

Some upstream files are available only one at a time, without the rest of their commit's
tree (the corpus ``extra/`` folder: ``<root>/<commit>/<path>`` plus ``MANIFEST.json``
giving repository, commit, path and SHA-256 of each). :class:`ManifestTree` is the
:class:`~validator.source.tree.RecipeTree` of one such commit: it holds exactly the files
the manifest lists for that commit, verifies each one's SHA-256 on read, and has *no*
taxonomy or strategies unless the manifest lists them for the same commit -- so the
context of such a document is reported as unavailable instead of being borrowed from
another revision. :meth:`ManifestTree.other_revisions` says where else a context file
exists, for the record's note.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from validator.atomic import read_input_file
from validator.source.provenance import Provenance
from validator.source.spec import FULL_COMMIT, check_path
from validator.source.tree import SourceError
from validator.state_json import parse_json


@dataclass(frozen=True)
class ManifestEntry:
    """One manifest row: ``<root>/<commit>/<path>`` has ``sha256``."""

    repository: str
    commit: str
    path: str
    sha256: str


def read_manifest(manifest: Path) -> list[ManifestEntry]:
    """Entries of a ``MANIFEST.json`` (a list of objects with ``repository``, ``commit``,
    ``path``, ``sha256``).

    Raises:
        SourceError: unreadable or malformed manifest (the message names the file).
    """
    try:
        rows: Any = parse_json(read_input_file(manifest))
    except (OSError, ValueError) as exc:
        raise SourceError(f"{manifest}: cannot read manifest: {exc}") from exc
    if not isinstance(rows, list):
        raise SourceError(f"{manifest}: expected a JSON list of entries")
    out = []
    for i, row in enumerate(rows):
        try:
            entry = ManifestEntry(str(row["repository"]), str(row["commit"]),
                                  check_path(str(row["path"])), str(row["sha256"]).lower())
        except (KeyError, TypeError) as exc:
            raise SourceError(f"{manifest}: entry {i} lacks {exc}") from exc
        if not FULL_COMMIT.match(entry.commit):
            raise SourceError(f"{manifest}: entry {i} commit {entry.commit!r} is not a full id")
        out.append(entry)
    return out


class ManifestTree:
    """The files a manifest lists for one ``(repository, commit)``.

    Args:
        manifest: path of ``MANIFEST.json``; files are under its folder.
        repository: ``owner/name``.
        commit: full commit id.

    Raises:
        SourceError: bad manifest, or no entry for that repository and commit.
    """

    def __init__(self, manifest: Path, repository: str, commit: str) -> None:
        self.root = manifest.resolve().parent
        self.entries = read_manifest(manifest)
        self.repository = repository
        self.commit = commit
        self.files = {e.path: e for e in self.entries
                      if e.repository == repository and e.commit == commit}
        if not self.files:
            raise SourceError(f"{manifest}: no file of {repository} at commit {commit}")

    @property
    def revision(self) -> str:
        """The commit id."""
        return self.commit

    @property
    def label(self) -> str:
        """``owner/name@commit (manifest folder)``."""
        return f"{self.repository}@{self.commit} ({self.root})"

    def read(self, path: str) -> bytes:
        """Bytes of ``path``, verified against the manifest's SHA-256.

        Raises:
            FileNotFoundError: the manifest lists no such file for this commit.
            SourceError: unreadable, or the bytes do not match the manifest digest.
        """
        entry = self.files.get(path)
        if entry is None:
            raise FileNotFoundError(f"{path}: not listed for {self.repository}@{self.commit}")
        target = self.root / entry.commit / entry.path
        try:
            data = read_input_file(target)
        except OSError as exc:
            raise SourceError(f"{target}: {exc.strerror or exc}") from exc
        got = Provenance.of_bytes(path, data).sha256
        if got != entry.sha256:
            raise SourceError(f"{target}: SHA-256 {got} differs from the manifest's "
                              f"{entry.sha256}")
        return data

    def exists(self, path: str) -> bool:
        """Whether the manifest lists ``path`` at this commit."""
        return path in self.files

    def list(self, prefix: str) -> list[str]:
        """Listed paths under folder ``prefix``."""
        pre = prefix.strip("/") + "/" if prefix.strip("/") else ""
        return sorted(p for p in self.files if p.startswith(pre))

    def provenance(self, path: str, data: bytes) -> Provenance:
        """Digests of ``data`` with repository and commit from the manifest (no last-commit
        information: the history is not available)."""
        return Provenance.of_bytes(path, data, repository=self.repository, commit=self.commit,
                                   fetched_from=str(self.root / self.commit / path))

    def other_revisions(self, path: str) -> builtins.list[str]:
        """Commits at which the manifest has ``path`` for this repository, other than
        this tree's own."""
        return sorted({e.commit for e in self.entries if e.repository == self.repository
                       and e.path == path and e.commit != self.commit})
