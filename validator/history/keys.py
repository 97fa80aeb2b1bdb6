"""What a cached result depends on, from the rules' declarations.

Every check rule declares the parts of its input it reads besides the recipe
(``@rule(..., reads=...)``, :class:`~validator.rules.Reads`). The audit groups the rules
by that declaration (a :class:`RuleGroup`), and caches each group's findings on one blob
under a *label*: the group's name and the digest of exactly the declared parts at the
revision (:func:`part_digests`, :meth:`RuleGroup.label`). A taxonomy edit thus re-runs
only the groups that read the taxonomy, a new recipe only those that read the recipe
list, and a new vLLM release window only those that read the CLI registries or the
release list; a group that reads the recipe alone is checked once per blob.

Cache entry of one blob (see :mod:`validator.history.cache`)::

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
from pathlib import Path
from typing import Any

from validator import __version__
from validator.context import Settings
from validator.findings import Finding
from validator.history.cache import FindingRow, as_row
from validator.rules import Reads, Rule

MODELS = "models/"
TAXONOMY_FILE = "taxonomy.yaml"
FOLDERS: dict[Reads, str] = {Reads.STRATEGIES: "strategies/", Reads.KV_STORES: "kv_store/"}
RELEASE_PARTS = frozenset({Reads.CLI_REGISTRY, Reads.RELEASES})
"""Parts that depend on the release window, not on the revision's files."""
STAGE = "stage"
"""Cache label of the loader and schema findings of a blob."""


def is_recipe(path: str) -> bool:
    """Whether ``path`` is a recipe file (``models/**.yaml`` or ``.yml``)."""
    return path.startswith(MODELS) and path.endswith((".yaml", ".yml"))


def is_context_file(path: str) -> bool:
    """Whether ``path`` is one of the data files a :class:`~validator.context.Context`
    loads (taxonomy, strategies, kv-store options)."""
    return path == TAXONOMY_FILE or path.startswith(tuple(FOLDERS.values()))


def _digest(lines: Iterable[str]) -> str:
    h = hashlib.sha256()
    for line in lines:
        h.update(line.encode() + b"\n")
    return h.hexdigest()


def part_digests(files: Mapping[str, str], window: str) -> dict[Reads, str]:
    """Digest of each part of a revision: ``files`` is ``{path: blob id}`` of its tree
    (every file), ``window`` names the release window it is judged in."""
    out = {Reads.TAXONOMY: _digest([files.get(TAXONOMY_FILE, "-")])}
    for part, folder in FOLDERS.items():
        out[part] = _digest(f"{p}\0{files[p]}" for p in sorted(files) if p.startswith(folder))
    out[Reads.RECIPE_LIST] = _digest(p for p in sorted(files) if is_recipe(p))
    out[Reads.TREE] = _digest(f"{p}\0{files[p]}" for p in sorted(files))
    for part in RELEASE_PARTS:
        out[part] = _digest([window])
    return out


def window_label(window: str, settings: Settings) -> str:
    """What decides the releases a revision is judged with: the window date, or the
    settings' own ``--as-of``/``--vllm`` when the audit does not judge by commit date."""
    return window or f"settings as_of={settings.as_of} vllm={settings.vllm}"


@dataclass(frozen=True)
class RuleGroup:
    """The check rules that declare the same :attr:`reads`."""

    reads: frozenset[Reads]
    rules: tuple[Rule, ...]

    @property
    def name(self) -> str:
        """``"recipe"`` or the parts' values joined by ``+`` (e.g. ``"strategies+taxonomy"``)."""
        return "+".join(sorted(p.value for p in self.reads)) or "recipe"

    def label(self, parts: Mapping[Reads, str]) -> str:
        """Cache label of this group's findings at a revision with part digests ``parts``."""
        ordered = sorted(self.reads, key=lambda p: p.value)
        return f"{self.name}:{_digest(f'{p.value}={parts[p]}' for p in ordered)}"

    def same_inputs(self, a: Mapping[Reads, str], b: Mapping[Reads, str], *,
                    but: frozenset[Reads] = frozenset()) -> bool:
        """Whether revisions with part digests ``a`` and ``b`` give this group the same
        inputs, ignoring the parts in ``but``."""
        return all(a[p] == b[p] for p in self.reads - but)


def rule_groups(rules: Iterable[Rule]) -> tuple[RuleGroup, ...]:
    """``rules`` grouped by declaration, in a stable order."""
    by: dict[frozenset[Reads], list[Rule]] = {}
    for r in rules:
        by.setdefault(r.reads, []).append(r)
    groups = (RuleGroup(reads, tuple(rs)) for reads, rs in by.items())
    return tuple(sorted(groups, key=lambda g: g.name))


def finding_row(f: Finding) -> FindingRow:
    """A :class:`Finding` as a cache row ``(rule, severity, pointer, line, column, msg)``."""
    return (f.rule, f.severity.value, f.pointer, f.line, f.column, f.message)


def rows_of(findings: Iterable[Finding]) -> list[FindingRow]:
    """Cache rows of ``findings``, sorted."""
    return [finding_row(f) for f in sorted(findings, key=Finding.sort_key)]


def lookup(entry: Mapping[str, Any], labels: Iterable[str]) -> list[FindingRow] | None:
    """Findings of a blob at a revision whose groups have cache ``labels``, from its
    cache ``entry``; ``None`` when the entry lacks one or holds a malformed value (then
    recomputed)."""
    try:
        stage = entry.get(STAGE)
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
    stage = entry.get(STAGE)
    if isinstance(stage, dict) and stage.get("ok") is False:
        return []
    out = []
    for label in labels:
        found = entry.get(label)
        if not isinstance(found, dict) or not isinstance(found.get("rows"), list):
            out.append(label)
    return out


_NOT_CHECKS = ("commands/", "report/", "evidence/", "history/", "source/", "pr/", "cli.py",
               "docs.py", "__main__.py")
"""Package parts that do not decide findings (output, publishing, fetching, this audit);
``source/tree.py`` and ``source/provenance.py`` are kept (the context is built on them)."""


def _check_sources(package: Path) -> list[Path]:
    keep = ("source/tree.py", "source/provenance.py")
    out = []
    for f in sorted(package.rglob("*.py")):
        rel = f.relative_to(package).as_posix()
        if rel in keep or not rel.startswith(_NOT_CHECKS):
            out.append(f)
    return out


def tool_digest(settings: Settings) -> str:
    """Hex SHA-256 identifying what produced a result: the version, the registered rules
    (id, severity and declared reads), the source of every ``validator`` module that can
    decide findings (all but the parts in ``_NOT_CHECKS``), every schema and vendored
    data file (``schemas/``, the settings' vendored folder, default ``snapshots/``: the
    CLI registries and the release list), and the settings that change findings
    (``strict``, ``offline``, ``max_bytes``). Any edit to a rule, even without a version
    bump, invalidates cached results; edits to reporters or publishing do not."""
    from validator.catalogue import all_rules
    from validator.schema import SCHEMA_DIR

    h = hashlib.sha256(f"{__version__}\0{settings.strict}\0{settings.offline}\0"
                       f"{settings.max_bytes}\n".encode())
    for r in all_rules():
        reads = ",".join(sorted(p.value for p in r.reads))
        h.update(f"{r.id}:{r.severity.value}:{reads}\n".encode())
    package = Path(__file__).resolve().parents[1]
    project = Path(SCHEMA_DIR).parent
    vendored = settings.vendored_dir or project / "snapshots"  # the CLI registries the run reads
    data = [f for folder in (Path(SCHEMA_DIR), Path(vendored)) if folder.is_dir()
            for f in folder.rglob("*") if f.is_file()]
    for f in _check_sources(package) + sorted(data):
        h.update(f.name.encode() + b"\0" + hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()
