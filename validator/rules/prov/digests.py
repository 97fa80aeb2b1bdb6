"""``PROV001``, ``PROV002``: fetched bytes that are not the commit's file (its git blob id)
or not the expected document (its SHA-256) (emitted by :mod:`validator.source.verify`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

BLOB_MISMATCH = declare(
    "PROV001",
    Severity.ERROR,
    "Fetched bytes do not match the git blob id of the commit's tree",
    """The git blob id computed from the fetched bytes (``sha1("blob <size>\\0" + bytes)``,
    git's object format) differs from the blob id the commit's tree records for the path.
    The bytes are not the file at that commit: a truncated or altered download, a proxy
    rewriting content, or a corrupted clone. Nothing is stored and nothing else is
    checked in those bytes.""",
)
SHA256_MISMATCH = declare(
    "PROV002",
    Severity.ERROR,
    "Document SHA-256 differs from the expected digest",
    """The SHA-256 of the document's bytes differs from the digest it was expected to have:
    the one given with ``--expect-sha256``, or the one the snapshot lock file records for
    the same repository, commit and path. A pinned commit's file cannot change, so the
    pin, the lock file or the source is wrong.""",
)



