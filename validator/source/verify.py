"""``PROV`` rules: digests of fetched bytes, expected digests, snapshots, pinning.

Every pinned source computes two digests of the exact bytes it read — SHA-256 and git's
blob id ``sha1(b"blob <size>\\0" + bytes)`` — and compares the blob id with the entry of
the commit's tree. A source that cannot prove the bytes are the commit's raises
:class:`VerificationError`; the ``check`` command reports it as a finding on the document
(nothing else is checked in untrusted bytes) and ``fetch`` stores nothing.

Rules (ids stable forever):

* ``PROV001`` error — blob id of the bytes differs from the tree entry.
* ``PROV002`` error — SHA-256 differs from an expected digest (``--expect-sha256`` or the
  snapshot lock file's entry for the same repository, commit and path).
* ``PROV003`` error — a stored snapshot file no longer hashes to its lock entry.
* ``PROV004`` warning — the revision was a branch, tag or short id resolved at run time,
  not a full commit id, so the same command may check other bytes tomorrow.
"""

from __future__ import annotations

from validator.findings import Finding, Severity
from validator.rules import RULES, declare
from validator.source.provenance import Provenance
from validator.source.tree import SourceError

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
SNAPSHOT_MISMATCH = declare(
    "PROV003",
    Severity.ERROR,
    "Stored snapshot file does not match its lock entry",
    """A file in the snapshot store no longer hashes to the SHA-256 (or git blob id) its
    lock file entry records: it was altered or damaged on disk after it was verified and
    stored. ``recipe-check snapshot verify`` reports every such file; ``--offline``
    re-verifies each file on every read and refuses to check altered bytes.""",
)
NOT_PINNED = declare(
    "PROV004",
    Severity.WARNING,
    "Revision is a branch, tag or short id rather than a full commit",
    """The document was fetched at a revision given by name (a branch or tag) or by a short
    commit id, resolved once to a full commit for this run. The findings name that
    commit, but the same command can fetch other bytes later. Pin the full 40-hex commit
    id for reproducible results and records.""",
)


REFUSED = declare(
    "PROV005",
    Severity.ERROR,
    "File refused: not read",
    """A file selected for checking was not read: a symbolic link that leaves the recipes
    root, something other than a regular file (FIFO, device, socket, directory), or a file
    too large to read. Nothing in it was checked, so the run fails rather than passing it
    by in silence.""",
)


UNHANDLED_PATH = declare(
    "PROV006",
    Severity.ERROR,
    "Changed file cannot be handled: the change is not checked",
    """A pull request changes a file whose name or change recorded by git cannot be
    handled (a name that is not valid UTF-8, a change type git reports that PR mode does
    not know). PR mode lists changed files from git's NUL-separated output, so every name
    is seen; one it cannot interpret fails the run instead of being skipped.

    How to fix: rename the file to a UTF-8 name (recipes live at
    ``models/<org>/<model>.yaml``).

    Failing: a pull request adding ``models/a/\\xff.yaml`` (byte 0xFF in the name).
    Passing: the same file named ``models/a/model.yaml``.""",
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


class VerificationError(SourceError):
    """Bytes failed verification; carries the ``PROV`` rule that says why.

    Attributes:
        rule_id: ``PROV001``, ``PROV002`` or ``PROV003``.
        path: repository-relative path of the document.
        hint: what to do about it.
        actual: provenance with the digests of the bytes that failed (for a snapshot
            object that is missing, the lock entry's, since no bytes exist).
    """

    def __init__(self, rule_id: str, path: str, message: str, hint: str | None = None,
                 actual: Provenance | None = None) -> None:
        super().__init__(f"{path}: {rule_id} {message}")
        self.rule_id = rule_id
        self.path = path
        self.detail = message
        self.hint = hint
        self.actual = actual

    def finding(self) -> Finding:
        """The error as a finding on line 1 of the document (pointer ``""``)."""
        return prov_finding(self.rule_id, self.path, self.detail, self.hint)


def prov_finding(rule_id: str, path: str, message: str, hint: str | None = None,
                 *, strict: bool = False) -> Finding:
    """A ``PROV`` finding about a whole document (line 1, column 1, pointer ``""``)."""
    rule = RULES[rule_id]
    return Finding(rule=rule_id, severity=rule.effective_severity(strict), path=path,
                   pointer="", line=1, column=1, message=message, hint=hint)


def check_blob(path: str, data: bytes, tree_blob: str, where: str) -> Provenance:
    """Digests of ``data``, verified against the tree entry's blob id ``tree_blob``.

    Raises:
        VerificationError: PROV001 when the computed blob id differs.
    """
    prov = Provenance.of_bytes(path, data)
    if prov.git_blob != tree_blob.lower():
        raise VerificationError(
            BLOB_MISMATCH.id, path,
            f"bytes from {where} have git blob id {prov.git_blob} ({len(data)} bytes) but the "
            f"commit's tree records {tree_blob}",
            "the download was truncated or altered; fetch again from a trusted source",
            actual=prov)
    return prov


def check_sha256(prov: Provenance, expected: str, origin: str) -> None:
    """Compare ``prov.sha256`` with ``expected`` (from ``origin``, e.g. ``--expect-sha256``).

    Raises:
        VerificationError: PROV002 when they differ.
    """
    if prov.sha256 != expected.lower():
        raise VerificationError(
            SHA256_MISMATCH.id, prov.path,
            f"SHA-256 is {prov.sha256} but {origin} expects {expected.lower()}"
            + (f" (commit {prov.commit})" if prov.commit else ""),
            "check the pinned commit and the expected digest; a commit's file never changes",
            actual=prov)


def pinning_findings(prov: Provenance, *, strict: bool = False) -> list[Finding]:
    """``PROV004`` when ``prov`` came from a revision resolved by name or short id."""
    if not prov.resolved_from or not prov.commit:
        return []
    return [prov_finding(
        NOT_PINNED.id, prov.path,
        f"revision {prov.resolved_from!r} was resolved to commit {prov.commit} for this run",
        f"pin the full commit: {prov.repository}@{prov.commit}:{prov.path}", strict=strict)]


class PinnedTree:
    """Base of the trees pinned at one commit (:class:`~validator.source.git.GitTree`,
    :class:`~validator.source.http.HttpTree`,
    :class:`~validator.source.snapshots.SnapshotTree`): their identity (``repository``,
    ``commit``) and the SHA-256 digests expected per path, checked by ``provenance``.
    """

    repository: str
    commit: str

    def __init__(self) -> None:
        self._expected: dict[str, list[tuple[str, str]]] = {}

    @property
    def revision(self) -> str:
        """The full commit id."""
        return self.commit

    @property
    def label(self) -> str:
        """``owner/name@commit``."""
        return f"{self.repository}@{self.commit}"

    def expect(self, path: str, sha256: str, origin: str) -> None:
        """Require ``path`` to hash to ``sha256``; ``origin`` names who expects it."""
        self._expected.setdefault(path, []).append((sha256.lower(), origin))

    def check_expected(self, prov: Provenance) -> None:
        """Raise PROV002 :class:`VerificationError` if ``prov`` misses an expectation."""
        for sha, origin in self._expected.get(prov.path, []):
            check_sha256(prov, sha, origin)
