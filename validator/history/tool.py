"""What produced the audit's results, known without importing a rule when the package is
unchanged.

Every result of the audit is keyed on :func:`~validator.cache.checks_digest` of every
registered rule (:func:`~validator.history.keys.tool_digest`), the check rules are grouped
by what they declare they read (:func:`~validator.history.keys.rule_groups`), and REF025's
index of variant ids is keyed on :func:`~validator.cache.code_digest`. All three are
functions of the package's files (and of the settings that change findings), and
computing them imports every rule family and hashes every source, schema and vendored
file: on a warm audit (every unit cached) that was more than half of the run's CPU.

So they are kept in the cache folder's ``runs`` part (one entry under the cache's MAC,
like every entry, beside the tool stamps ``check``'s whole-run cache keeps there) under the
package's *tool stamp* (:func:`validator.run_cache.tool_stamp`: the digest of
the bytes of every file of the package, its schemas and vendored data, itself kept under
the digest of the files' ``stat`` results, as ``check``'s whole-run cache keys it) and the
settings :func:`~validator.cache.checks_digest` reads. A run with the same stamp reads
them back and imports no rule; a changed file gives a new stamp and they are computed
again. An entry that is damaged or malformed is computed again, never trusted.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from validator.cache import (
    FileDigests,
    ResultCache,
    code_digest,
    digests_kept_in,
)
from validator.history.keys import RuleGroup, rule_groups, tool_digest
from validator.rules.metadata import Reads
from validator.settings import Settings

FORMAT = 1
"""Version of the entry's key and value."""
LABEL = "history-tool"
"""The label of the facts in their entry."""


@dataclass(frozen=True)
class ToolFacts:
    """What produced the audit's results.

    Attributes:
        digest: :func:`~validator.history.keys.tool_digest` of the settings.
        code: :func:`~validator.cache.code_digest`.
        groups: the check rules grouped by their declared reads
            (:func:`~validator.history.keys.rule_groups`).
    """

    digest: str
    code: str
    groups: tuple[RuleGroup, ...]

    def to_json(self) -> dict[str, Any]:
        """The cached form: ``digest``, ``code`` and ``groups`` as ``[reads, ids]``."""
        return {"digest": self.digest, "code": self.code,
                "groups": [[sorted(p.value for p in g.reads), list(g.ids)]
                           for g in self.groups]}

    @classmethod
    def from_json(cls, value: Any) -> ToolFacts | None:
        """The facts of a cached value; ``None`` when it is malformed."""
        try:
            digest, code, groups = value["digest"], value["code"], value["groups"]
            if not (isinstance(digest, str) and isinstance(code, str)
                    and isinstance(groups, list)):
                return None
            made = []
            for reads, ids in groups:
                if not (isinstance(reads, list) and isinstance(ids, list)
                        and all(isinstance(i, str) for i in ids)):
                    return None
                made.append(RuleGroup(frozenset(Reads(r) for r in reads), tuple(ids)))
            return cls(digest, code, tuple(made))
        except (KeyError, TypeError, ValueError):
            return None


def computed(settings: Settings, digests: FileDigests | None = None) -> ToolFacts:
    """The facts, computed: every rule family imported, every deciding file hashed
    (through ``digests``, the run's: each file once)."""
    from validator.rule_index import check_rules

    digests = digests or FileDigests()
    return ToolFacts(tool_digest(settings, digests), code_digest(digests),
                     rule_groups(check_rules()))


def tool_facts(settings: Settings, store: ResultCache | None,
               digests: FileDigests | None = None) -> ToolFacts:
    """The facts for ``settings``: read from ``store`` (the cache folder's ``runs`` part)
    under the tool stamp when it holds them, else computed and kept there. ``None`` (the
    cache off) or a vendored folder of the settings' own (not part of the stamp):
    computed. REF025's index is keyed on the code digest read back
    (kept as ``digests.code``). ``digests``: the run's digests of
    the tool's files (default: the call's own).

    Raises:
        OSError: the cache folder cannot be written.
    """
    digests = digests or FileDigests()
    if store is None or store.root is None or settings.vendored_dir is not None:
        return computed(settings, digests)
    from validator.run_cache import tool_stamp

    stamp = tool_stamp(store, digests)
    key = hashlib.sha256(f"{LABEL}\0{FORMAT}\0{stamp}\0{settings.strict}\0"
                         f"{settings.offline}\0{settings.max_bytes}".encode()).hexdigest()
    found = ToolFacts.from_json(store.get(key).get(LABEL))
    if found is None:
        with digests_kept_in(store, digests):
            found = computed(settings, digests)
        store.put(key, {LABEL: found.to_json()}, replace=True)
    digests.code = found.code
    return found
