"""What a cached result depends on, from the rules' declarations.

Every check rule declares the parts of its input it reads besides the recipe
(``@rule(..., reads=...)``, :class:`~validator.rules.metadata.Reads`). The audit groups the rules
by that declaration (a :class:`RuleGroup`), and caches each group's findings on one blob
under a *label*: the group's name and the digest of exactly the declared parts at the
revision (:func:`part_digests`, :meth:`RuleGroup.label`). A taxonomy edit thus re-runs
only the groups that read the taxonomy, a new recipe only those that read the recipe
list, and a new vLLM release window only those that read the CLI registries or the
release list; a group that reads the recipe alone is checked once per blob.

Cache entry of one blob (see :mod:`validator.cache`)::

    {"stage": {"rows": [...], "ok": true},       # loader and schema findings
     "<group>:<inputs digest>": {"rows": [...]}, # one per group and inputs
     ...}

``ok`` is false when the document did not load (no rule runs on it, whatever the
context).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from functools import cached_property, lru_cache
from typing import Any

from validator.cache import FileDigests, FindingRow, as_row, checks_digest
from validator.findings import Finding
from validator.format_history import undone_at
from validator.history.gitdata import NotFile
from validator.paths import is_recipe_path, name_bytes
from validator.rules.metadata import Reads, Rule
from validator.settings import Settings
from validator.source.tree import SourceError

TAXONOMY_FILE = "taxonomy.yaml"
PLATFORMS_FILE = "platforms.yaml"
FOLDERS: dict[Reads, str] = {Reads.STRATEGIES: "strategies/", Reads.KV_STORES: "kv_store/"}
RELEASE_PARTS = frozenset({Reads.CLI_REGISTRY, Reads.RELEASES})
"""Parts that depend on the release window, not on the revision's files."""
STAGE = "stage"
"""Cache label of the loader and schema findings of a blob in today's format; in an
older format (:func:`stage_label`) the label names the format changes not yet made."""


def is_context_file(path: str) -> bool:
    """Whether ``path`` is one of the data files a :class:`~validator.context.Context`
    loads (taxonomy, strategies, kv-store options) or a rule reads by name
    (``platforms.yaml``)."""
    return path in (TAXONOMY_FILE, PLATFORMS_FILE) or path.startswith(tuple(FOLDERS.values()))


@lru_cache(maxsize=1 << 16)
def path_part(path: str) -> Reads | None:
    """The part of a revision the file ``path`` belongs to: :attr:`Reads.RECIPE_LIST`
    for a recipe, the taxonomy, platforms, strategies or kv-store part for a context file
    (:func:`is_context_file`), ``None`` for any other file (asked once per path: a
    history holds a few thousand paths over thousands of revisions)."""
    if is_recipe_path(path):
        return Reads.RECIPE_LIST
    if path == TAXONOMY_FILE:
        return Reads.TAXONOMY
    if path == PLATFORMS_FILE:
        return Reads.PLATFORMS
    return next((part for part, folder in FOLDERS.items() if path.startswith(folder)), None)


def _digest(lines: Iterable[str]) -> str:
    """Hex SHA-256 of ``lines``, each ended by a line feed (hashed as one text)."""
    held = list(lines)
    text = "\n".join(held) + "\n" if held else ""
    return hashlib.sha256(name_bytes(text)).hexdigest()


def part_digests(files: Mapping[str, str], window: str, claims: str = "") -> dict[Reads, str]:
    """Digest of each part of a revision: ``files`` is ``{path: blob id}`` of its tree
    (every file), ``window`` names the release window it is judged in, ``claims`` is the
    digest of its recipes' variant claims (:class:`~validator.history.claims.ClaimsIndex`;
    ``""`` when no rule reads them)."""
    paths = sorted(files)
    lines = [f"{p}\0{files[p]}" for p in paths]
    parts = [path_part(p) for p in paths]
    out = {Reads.TAXONOMY: _digest([files.get(TAXONOMY_FILE, "-")]),
           Reads.PLATFORMS: _digest([files.get(PLATFORMS_FILE, "-")]),
           Reads.VARIANT_CLAIMS: _digest([claims])}
    for part in FOLDERS:
        out[part] = _digest(line for line, of in zip(lines, parts, strict=True) if of is part)
    out[Reads.RECIPE_LIST] = _digest(p for p, of in zip(paths, parts, strict=True)
                                     if of is Reads.RECIPE_LIST)
    out[Reads.TREE] = _digest(lines)
    window_digest = _digest([window])
    for part in RELEASE_PARTS:
        out[part] = window_digest
    return out


def window_label(window: str, settings: Settings) -> str:
    """What decides the releases a revision is judged with: the window date, or the
    settings' own ``--as-of``/``--vllm`` when the audit does not judge by commit date."""
    return window or f"settings as_of={settings.as_of} vllm={settings.vllm}"


def stage_label(window: str, settings: Settings) -> str:
    """Cache label of a blob's loader and schema findings in release ``window`` (``""``:
    the settings' own date). The schema is the format of that date
    (:func:`validator.format_history.undone_at`), so blobs judged before a format change
    and after it are cached apart."""
    as_of = date.fromisoformat(window) if window else settings.as_of
    undone = undone_at("recipe", as_of)
    return f"{STAGE}:{'+'.join(undone)}" if undone else STAGE


def _did_not_load(entry: Mapping[str, Any]) -> bool:
    return any(isinstance(v, dict) and v.get("ok") is False
               for k, v in entry.items() if k == STAGE or k.startswith(STAGE + ":"))


@dataclass(frozen=True)
class RuleGroup:
    """The check rules that declare the same :attr:`reads`, by id (:attr:`ids`): a warm
    audit knows the groups without importing a rule (:mod:`validator.history.tool`)."""

    reads: frozenset[Reads]
    ids: tuple[str, ...]

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The rules of :attr:`ids` (every rule family imported)."""
        from validator.rule_index import rule_by_id

        return tuple(rule_by_id(i) for i in self.ids)

    @cached_property
    def name(self) -> str:
        """``"recipe"`` or the parts' values joined by ``+`` (e.g. ``"strategies+taxonomy"``)."""
        return "+".join(sorted(p.value for p in self.reads)) or "recipe"

    @cached_property
    def _ordered(self) -> tuple[Reads, ...]:
        return tuple(sorted(self.reads, key=lambda p: p.value))

    def label(self, parts: Mapping[Reads, str]) -> str:
        """Cache label of this group's findings at a revision with part digests ``parts``
        (made once per group and digests: most revisions' states share most of them)."""
        return _label(self.name, tuple((p.value, parts[p]) for p in self._ordered))

    def same_inputs(self, a: Mapping[Reads, str], b: Mapping[Reads, str], *,
                    but: frozenset[Reads] = frozenset()) -> bool:
        """Whether revisions with part digests ``a`` and ``b`` give this group the same
        inputs, ignoring the parts in ``but``."""
        return all(a[p] == b[p] for p in self.reads - but)


@lru_cache(maxsize=1 << 14)
def _label(name: str, parts: tuple[tuple[str, str], ...]) -> str:
    """:meth:`RuleGroup.label` of the group ``name`` with ``(part, digest)`` pairs."""
    return f"{name}:{_digest(f'{part}={digest}' for part, digest in parts)}"


def rule_groups(rules: Iterable[Rule]) -> tuple[RuleGroup, ...]:
    """``rules`` grouped by declaration, in a stable order."""
    by: dict[frozenset[Reads], list[Rule]] = {}
    for r in rules:
        by.setdefault(r.reads, []).append(r)
    groups = (RuleGroup(reads, tuple(r.id for r in rs)) for reads, rs in by.items())
    return tuple(sorted(groups, key=lambda g: g.name))


def finding_row(f: Finding) -> FindingRow:
    """A :class:`Finding` as a cache row ``(rule, severity, pointer, line, column, msg)``."""
    return (f.rule, f.severity.value, f.pointer, f.line, f.column, f.message)


def refused_row(path: str, entry: NotFile) -> FindingRow:
    """The ``PROV005`` finding ``check`` and ``pr`` give a recipe path they do not read
    (:meth:`validator.checker.DocumentResult.refused`), for a path that is a symbolic link
    or a submodule entry in a revision's tree."""
    from validator.checker import DocumentResult

    (finding,) = DocumentResult.refused(path, SourceError(entry.why(path)), None).findings
    return finding_row(finding)


def undecodable_row(escaped: str) -> FindingRow:
    """The ``PROV006`` finding ``check`` and ``pr`` give a recipe path whose name is not
    valid UTF-8 (reported under ``escaped``, its ``\\xff`` form), for such a path in a
    revision's tree: nothing of it is read or checked (the message and hint of
    :meth:`validator.session.Session.unhandled`)."""
    from validator.rules.prov.unread_files import NOT_UTF8, UNHANDLED_PATH, rename_hint
    from validator.source.verify import prov_finding

    return finding_row(prov_finding(UNHANDLED_PATH.id, escaped, f"file not checked: {NOT_UTF8}",
                                    rename_hint(escaped)))


def rows_of(findings: Iterable[Finding]) -> list[FindingRow]:
    """Cache rows of ``findings``, sorted."""
    return [finding_row(f) for f in sorted(findings, key=Finding.sort_key)]


def lookup(entry: Mapping[str, Any], labels: Iterable[str], stage_at: str = STAGE
           ) -> list[FindingRow] | None:
    """Findings of a blob at a revision whose groups have cache ``labels`` and whose
    schema stage is ``stage_at`` (:func:`stage_label`), from its cache ``entry``;
    ``None`` when the entry lacks one or holds a malformed value (then recomputed)."""
    try:
        stage = entry.get(stage_at)
        if stage is None:
            return None
        rows = [as_row(r) for r in stage["rows"]]
        if stage["ok"]:
            for label in labels:
                found = entry.get(label)
                if found is None:
                    return None
                rows += [as_row(r) for r in found["rows"]]
        rows.sort(key=lambda r: (r[3], r[4], r[0], r[2], r[5]))
        return rows
    except (KeyError, TypeError, ValueError):
        return None


def missing_labels(entry: Mapping[str, Any], labels: Iterable[str]) -> list[str]:
    """The ``labels`` whose results ``entry`` lacks (none when the blob did not load)."""
    if _did_not_load(entry):
        return []
    out = []
    for label in labels:
        found = entry.get(label)
        if not isinstance(found, dict) or not isinstance(found.get("rows"), list):
            out.append(label)
    return out


def tool_digest(settings: Settings, digests: FileDigests | None = None) -> str:
    """:func:`validator.cache.checks_digest` of every registered rule: what produced a
    cached result of the audit (the files hashed through ``digests``, the run's)."""
    from validator.rule_index import all_rules

    return checks_digest(settings, all_rules(), digests)
