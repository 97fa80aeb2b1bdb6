"""Findings of one document unit, kept across runs (the persistent cache of ``check``).

A *unit* is one recipe checked against one context. Its key is the SHA-256 of everything
that decides its findings:

* what produces findings: :func:`validator.cache.checks_digest` (version, registered
  rules, the source of every module that decides findings, schemas, vendored CLI
  registries and release list, the settings that change findings);
* the run's settings (``--as-of``, ``--vllm``, ``--rendered`` ...), its policy (the
  configuration: select, ignore, severities, per-file ignores) and the rules it runs;
* the context of the revision: the bytes of ``taxonomy.yaml``, of every strategy and
  kv-store document, and the list of recipe paths (:func:`context_digest`);
* the document: its path, the SHA-256 of its bytes and its provenance.

An entry holds the findings as reported (after the policy) and the install ranges the
rules recorded. Entries live in a :class:`~validator.cache.ResultCache` (atomic writes, a
lock per entry, an HMAC under the cache's own secret): an entry that is damaged, forged or
of another format is recomputed, never trusted. A run whose rules crashed on a document
caches nothing for it.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from validator.api_claims import attach_store, claims_digest, may_claim
from validator.cache import RESULTS as RESULTS  # re-exported: the folder of the entries
from validator.cache import RUNS, ResultCache, checks_digest, digests_kept_in
from validator.context import PLATFORMS, Context, Settings
from validator.file_digests import FileDigests as FileDigests  # re-exported: the run's
from validator.findings import Finding, Related, Severity
from validator.paths import name_bytes
from validator.rules.metadata import Rule
from validator.source.provenance import Provenance

LABEL = "check"
"""The entry's one label (the history audit's entries use labels per context)."""
MAX_ENTRIES = 20_000
"""Entries the results folder keeps (about 20 KiB each: some 400 MiB at the most, the
corpus's 173 recipes in over a hundred contexts); past it the oldest are removed."""

_FIELDS = tuple(f.name for f in dataclasses.fields(Finding))


@dataclass
class CachedUnit:
    """What a unit's entry gives back: its findings and recorded install ranges."""

    findings: list[Finding]
    install_ranges: Any


def context_digest(ctx: Context) -> str:
    """Hex SHA-256 of what a recipe's rules may read of ``ctx``: the tree's label, the
    bytes (by SHA-256) of its taxonomy, strategy and kv-store documents, and its recipe
    paths."""
    h = hashlib.sha256(name_bytes(f"{ctx.tree.label}\0"))
    tax = ctx.taxonomy
    h.update(name_bytes(f"taxonomy\0{tax.path if tax else '-'}\0{tax.sha256 if tax else '-'}\n"))
    for kind, docs in (("strategy", ctx.strategies), ("kv_store", ctx.kv_stores)):
        for name in sorted(docs):
            h.update(name_bytes(f"{kind}\0{name}\0{docs[name].path}\0{docs[name].sha256}\n"))
    for path in sorted(ctx.recipe_paths):
        h.update(name_bytes(f"recipe\0{path}\n"))
    return h.hexdigest()


def tree_reads_digest(ctx: Context, rules: Sequence[str], path: str, raw: bytes) -> str:
    """Hex SHA-256 of what the rules ``rules`` read of the tree besides the context
    documents when they check the recipe ``raw`` at ``path``: REF025 the variant ids of
    every recipe (:func:`validator.api_claims.claims_digest`; only when this recipe may
    promote a variant itself, else it finds nothing), REF026 the bytes of
    ``platforms.yaml``."""
    h = hashlib.sha256()
    if "REF025" in rules and may_claim(ctx, path, raw):
        h.update(f"claims\0{claims_digest(ctx)}\n".encode())
    if "REF026" in rules:
        h.update(f"platforms\0{_platforms_digest(ctx)}\n".encode())
    return h.hexdigest()


def _platforms_digest(ctx: Context) -> str:
    def compute() -> str:
        try:
            if not ctx.tree.exists(PLATFORMS):
                return "absent"
            return hashlib.sha256(ctx.tree.read(PLATFORMS)).hexdigest()
        except Exception as exc:  # REF026 reads it the same way: unreadable, no ids
            return f"unreadable {type(exc).__name__}"
    return ctx.memoised("unit_cache:platforms", compute)


def _row(f: Finding) -> dict[str, Any]:
    row = dataclasses.asdict(f)
    row["severity"] = f.severity.value
    return row


def _finding(row: Any) -> Finding:
    """A finding from its cached row.

    Raises:
        TypeError, ValueError, KeyError: the row is not one :func:`_row` wrote.
    """
    if not isinstance(row, dict) or set(row) != set(_FIELDS):
        raise ValueError("not a finding row")
    values = dict(row)
    values["severity"] = Severity(values["severity"])
    values["related"] = tuple(Related(**r) for r in values["related"])
    if values["identity"] is not None:
        values["identity"] = tuple(values["identity"])
    values["aliases"] = tuple(values["aliases"])
    return Finding(**values)


class UnitCache:
    """The findings of document units, in the ``results`` folder of a cache folder.

    Args:
        root: the cache folder (``--cache-dir``; entries go to ``root / "results"``).
        settings: the run's settings (part of every key).
        rules: every rule the run may run (their declarations are part of every key).
        digests: the run's digests of the tool's files (default: one of the cache's
            own), through which the tool digest and REF025's index key are hashed.

    Attributes:
        hits, misses: units answered from the cache, and units computed, this run.
    """

    def __init__(self, root: Path, settings: Settings, rules: Sequence[Rule],
                 digests: FileDigests | None = None) -> None:
        self.store = ResultCache(root / RESULTS, owner=root)
        self.root = root
        self.digests = digests or FileDigests()
        with digests_kept_in(ResultCache(root / RUNS, owner=root), self.digests):
            self.tool = checks_digest(settings, rules, self.digests)
        self._prefix = f"{self.tool}\0{settings!r}\0"
        self.hits = 0
        self.misses = 0

    @property
    def notes(self) -> list[str]:
        """What the store had to say about itself (a replaced or unusable secret)."""
        return self.store.notes

    def attach(self, ctx: Context) -> None:
        """Keep the variant ids REF025 reads of ``ctx``'s recipes in this cache folder
        (:func:`validator.api_claims.attach_store`)."""
        if self.store.root is not None:
            attach_store(ctx, self.root, self.digests)

    def key(self, context: str, policy: str, rules: Sequence[str], path: str,
            sha256: str, provenance: Provenance) -> str:
        """The key of one unit: ``context`` (:func:`context_digest`), ``policy`` (the
        configuration's ``repr``), ``rules`` (the ids run), the document's ``path``, the
        SHA-256 of its bytes and its ``provenance``."""
        text = (f"{self._prefix}{context}\0{policy}\0{','.join(rules)}\0{path}\0{sha256}\0"
                f"{provenance!r}")
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def _off(self, exc: OSError) -> None:
        """Turn the cache off for the rest of the run: its folder cannot be used."""
        self.store.notes.append(f"the result cache is off for this run: {exc}")
        self.store.root = None

    def get(self, key: str) -> CachedUnit | None:
        """The unit's cached result, or ``None`` (absent, damaged or unreadable)."""
        try:
            entry = self.store.get(key).get(LABEL)
        except OSError as exc:  # no access to the folder: the run goes on without it
            self._off(exc)
            entry = None
        try:
            if not isinstance(entry, dict):
                raise ValueError("no entry")
            found = CachedUnit([_finding(r) for r in entry["findings"]],
                               entry["install_ranges"])
        except (TypeError, ValueError, KeyError):
            self.misses += 1
            return None
        self.hits += 1
        return found

    def put(self, key: str, findings: Sequence[Finding], install_ranges: Any) -> None:
        """Keep the unit's result (findings as reported, install ranges recorded)."""
        try:
            self.store.put(key, {LABEL: {"findings": [_row(f) for f in findings],
                                         "install_ranges": install_ranges}})
        except OSError as exc:  # a read-only or full disk must not fail the check
            self._off(exc)

    def close(self) -> None:
        """End of the run: keep the folder within :data:`MAX_ENTRIES` when this run
        added entries."""
        if self.misses and self.store.root is not None:
            self.store.prune(MAX_ENTRIES)
