"""The lock file of the snapshot store (``recipes.lock.json``, see
:mod:`validator.source.snapshots`): what each stored file is, and the data files of each
stored commit, as pydantic models."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from validator.paths import LOCK_NAME as _LOCK_NAME
from validator.source.provenance import Provenance
from validator.source.tree import SourceError

LOCK_NAME = _LOCK_NAME
LOCK_VERSION = 1


class LockEntry(BaseModel):
    """One stored file (JSON keys as shown; ``gitBlob`` in camel case like in-toto)."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid", frozen=True)

    repository: str
    commit: str = Field(pattern=r"^[0-9a-f]{40}$")
    resolved_from: str | None = None
    path: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    git_blob: str = Field(alias="gitBlob", pattern=r"^[0-9a-f]{40}$")
    last_commit: str | None = None
    last_commit_date: str | None = None
    fetched_from: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """``(repository, commit, path)``."""
        return (self.repository, self.commit, self.path)

    @classmethod
    def of(cls, prov: Provenance) -> LockEntry:
        """The entry for verified bytes described by ``prov``."""
        if prov.repository is None or prov.commit is None:
            raise SourceError(f"{prov.path}: only files of a pinned commit can be stored")
        return cls(repository=prov.repository, commit=prov.commit,
                   resolved_from=prov.resolved_from, path=prov.path, sha256=prov.sha256,
                   gitBlob=prov.git_blob, last_commit=prov.last_commit,
                   last_commit_date=prov.last_commit_date, fetched_from=prov.fetched_from)

    def provenance(self) -> Provenance:
        """The entry as a :class:`Provenance`."""
        return Provenance(path=self.path, sha256=self.sha256, git_blob=self.git_blob,
                          repository=self.repository, commit=self.commit,
                          resolved_from=self.resolved_from, last_commit=self.last_commit,
                          last_commit_date=self.last_commit_date,
                          fetched_from=self.fetched_from)


class TreeListing(BaseModel):
    """The data files of one commit (sorted repository-relative paths)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    repository: str
    commit: str = Field(pattern=r"^[0-9a-f]{40}$")
    paths: list[str]


class LockFile(BaseModel):
    """The whole lock file: one entry per ``(repository, commit, path)`` and one listing
    per ``(repository, commit)`` (a second one is refused: which would be the commit's?)."""

    model_config = ConfigDict(extra="forbid")

    version: int = LOCK_VERSION
    files: list[LockEntry] = Field(default_factory=list)
    trees: list[TreeListing] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_per_key(self) -> LockFile:
        keys = [e.key for e in self.files]
        if len(set(keys)) != len(keys):
            dup = next(k for k in keys if keys.count(k) > 1)
            raise ValueError(f"two entries for {dup[0]}@{dup[1]}:{dup[2]}")
        commits = [(t.repository, t.commit) for t in self.trees]
        if len(set(commits)) != len(commits):
            raise ValueError("two file listings for one commit")
        return self
