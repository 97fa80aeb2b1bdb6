"""``PROV003``, ``PROV007``: a stored snapshot file that does not match its lock entry, a lock
entry that does not belong to its commit (emitted by :mod:`validator.source`'s snapshot
store)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

SNAPSHOT_MISMATCH = declare(
    "PROV003",
    Severity.ERROR,
    "Stored snapshot file does not match its lock entry",
    """A file in the snapshot store no longer hashes to the SHA-256 (or git blob id) its
    lock file entry records: it was altered or damaged on disk after it was verified and
    stored. ``recipe-check snapshot verify`` reports every such file; ``--offline``
    re-verifies each file on every read and refuses to check altered bytes.""",
)


UNBOUND_ENTRY = declare(
    "PROV007",
    Severity.ERROR,
    "Snapshot lock entry does not belong to its commit",
    """A snapshot lock entry is tied to its commit by the git objects stored beside it
    (``objects/git/``): the commit object, which must hash to the entry's commit id, the
    tree objects from its root tree down to the file, whose entry must record the entry's
    ``gitBlob``, and the last commit's object, whose id and committer date must be the
    entry's ``last_commit`` and ``last_commit_date``. An entry whose ``sha256``,
    ``gitBlob``, ``path``, ``last_commit`` or date was edited or swapped with another
    entry, or whose objects are missing, fails: its bytes are not that commit's file.

    How to fix: delete the store's entry (or the whole store) and run
    ``recipe-check fetch`` again for the commit.

    Failing: a lock whose entry for ``taxonomy.yaml`` carries the ``sha256`` and
    ``gitBlob`` of ``strategies/single_node_tp.yaml``.
    Passing: the lock as ``recipe-check fetch`` wrote it.""",
)
