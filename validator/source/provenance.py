"""Digests and provenance of fetched bytes (in-toto / SLSA digest names: ``sha256``,
``gitBlob``, ``gitCommit``)."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from typing import Any


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of ``data`` (64 lowercase hex digits)."""
    return hashlib.sha256(data).hexdigest()


def git_blob_id(data: bytes) -> str:
    """Git's blob object id of ``data``: ``sha1(b"blob <size>\\0" + data)`` as 40 hex digits.

    Source: git's object format (``git hash-object``), SHA-1 repositories.
    """
    header = f"blob {len(data)}\0".encode()
    return hashlib.sha1(header + data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True)
class Provenance:
    """Where one file's bytes came from and what they hash to.

    Attributes:
        path: repository-relative path (``models/zai-org/GLM-5.2.yaml``).
        sha256: hex SHA-256 of the bytes.
        git_blob: git blob id computed from the bytes (verified against the tree entry
            when the source has one).
        repository: ``owner/name`` or ``None`` for a plain local file.
        commit: full 40-hex commit id the bytes are from, ``None`` for a working tree.
        resolved_from: the revision as the user gave it (branch, tag, short id), when it
            had to be resolved; ``None`` when a full commit was given.
        last_commit: id of the last commit that touched ``path`` at or before ``commit``.
        last_commit_date: its committer date, ISO 8601 with offset.
        fetched_from: URL or folder the bytes were read from.
    """

    path: str
    sha256: str
    git_blob: str
    repository: str | None = None
    commit: str | None = None
    resolved_from: str | None = None
    last_commit: str | None = None
    last_commit_date: str | None = None
    fetched_from: str | None = None

    @classmethod
    def of_bytes(cls, path: str, data: bytes, **fields: Any) -> Provenance:
        """Provenance for ``data`` with both digests computed here."""
        return cls(path=path, sha256=sha256_hex(data), git_blob=git_blob_id(data), **fields)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict with the field names above."""
        return asdict(self)
