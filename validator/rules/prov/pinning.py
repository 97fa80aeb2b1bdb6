"""``PROV004``: a revision named by a branch, tag or short id rather than a full commit
(emitted by :mod:`validator.source.verify`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

NOT_PINNED = declare(
    "PROV004",
    Severity.WARNING,
    "Revision is a branch, tag or short id rather than a full commit",
    """The document was fetched at a revision given by name (a branch or tag) or by a short
    commit id, resolved once to a full commit for this run. The findings name that
    commit, but the same command can fetch other bytes later. Pin the full 40-hex commit
    id for reproducible results and records.""",
)
