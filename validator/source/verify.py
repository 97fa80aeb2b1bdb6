"""``PROV`` rules: digests of fetched bytes, expected digests, snapshots, pinning.

Every pinned source computes two digests of the exact bytes it read — SHA-256 and git's
blob id ``sha1(b"blob <size>\\0" + bytes)`` — and compares the blob id with the entry of
the commit's tree. A source that cannot prove the bytes are the commit's raises
:class:`VerificationError`; the ``check`` command reports it as a finding on the document
(nothing else is checked in untrusted bytes) and ``fetch`` stores nothing.

Rules (ids stable forever; declared in :mod:`validator.rules.prov`):

* ``PROV001`` error — blob id of the bytes differs from the tree entry.
* ``PROV002`` error — SHA-256 differs from an expected digest (``--expect-sha256`` or the
  snapshot lock file's entry for the same repository, commit and path).
* ``PROV003`` error — a stored snapshot file no longer hashes to its lock entry.
* ``PROV004`` warning — the revision was a branch, tag or short id resolved at run time,
  not a full commit id, so the same command may check other bytes tomorrow.
"""

from __future__ import annotations

import dataclasses

from validator.findings import Finding
from validator.rules.metadata import RULES
from validator.rules.prov.digests import BLOB_MISMATCH, SHA256_MISMATCH
from validator.rules.prov.pinning import NOT_PINNED
from validator.rules.prov.snapshot_lock import SNAPSHOT_MISMATCH, UNBOUND_ENTRY
from validator.rules.prov.unread_files import REFUSED, UNHANDLED_PATH
from validator.source.provenance import Provenance
from validator.source.tree import SourceError

__all__ = ["BLOB_MISMATCH", "NOT_PINNED", "REFUSED", "SHA256_MISMATCH", "SNAPSHOT_MISMATCH",
           "UNBOUND_ENTRY", "UNHANDLED_PATH", "VerificationError", "prov_finding"]


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


def pinning_once(findings_of: list[list[Finding]]) -> None:
    """One ``PROV004`` per revision resolved by name, in the findings (``findings_of``:
    each document's list, in the run's order, edited in place) of the first document read
    from it: the files fetched from ``owner/name@main`` share the one unpinned revision,
    and a warning per file (173 for ``models/``) says nothing more than the first. The one
    kept counts the files it stands for."""
    first: dict[str, tuple[list[Finding], Finding, int]] = {}
    for findings in findings_of:
        kept = []
        for f in findings:
            if f.rule != NOT_PINNED.id:
                kept.append(f)
            elif f.message not in first:
                first[f.message] = (findings, f, 0)
                kept.append(f)
            else:
                owner, finding, more = first[f.message]
                first[f.message] = (owner, finding, more + 1)
        findings[:] = kept
    for owner, finding, more in first.values():
        if more:
            owner[owner.index(finding)] = dataclasses.replace(
                finding, message=f"{finding.message} (and for the {more} other file(s) of "
                                 "this run read from it)")


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
