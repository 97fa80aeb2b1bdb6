"""The whole-history audit: check every revision of a branch's recipes, reusing results.

How it works:

1. List the revisions (``git rev-list --first-parent <branch>``, oldest first; or every
   commit of every ref with ``all_refs``) and, for each, the tree's recipe files
   (``models/**.yaml``) and its *context*: ``taxonomy.yaml``, ``platforms.yaml``,
   ``strategies/**``, ``kv_store/**`` and the list of recipe paths, summarised by
   :func:`context_digest`. The first parent of every listed revision is walked too, as
   the baseline its changes are measured against.
2. A *unit* is one recipe (path + bytes) checked against one context. Units already in
   the :class:`~validator.history.cache.ResultCache` under the same tool digest
   (:func:`tool_digest`: version, rule set, the package's own source and schemas, and the
   settings) are reused; the others are checked in worker processes, one task per blob
   (the blob is loaded and schema-validated once, then the rules run once per context).
3. Per revision, the findings of each recipe are compared with those at its first
   parent, keyed by ``(rule, pointer, normalised message)`` (not by line, so that an edit above a
   finding does not report it as fixed and introduced again).

``shard=(k, n)`` keeps the recipe paths whose SHA-256 falls in shard ``k`` of ``n``:
each path's history is audited entirely by one shard, so the union of the shards'
reports equals the unsharded report.
"""

from __future__ import annotations

import dataclasses
import hashlib
import multiprocessing
import os
import signal
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from validator import __version__
from validator.context import Context, Settings, build_context
from validator.findings import Finding, finding_key
from validator.history.cache import FindingRow, ResultCache, as_row, blob_key
from validator.history.gitdata import (
    CommitInfo,
    GitObjects,
    ensure_repository,
    resolve,
    rev_list,
)
from validator.load import LoadedDocument
from validator.rules import Rule
from validator.source.provenance import Provenance
from validator.source.tree import SourceError

CONTEXT_FILES = ("taxonomy.yaml", "platforms.yaml")
CONTEXT_FOLDERS = ("strategies/", "kv_store/")
MODELS = "models/"


def is_recipe(path: str) -> bool:
    """Whether ``path`` is a recipe file (``models/**.yaml`` or ``.yml``)."""
    return path.startswith(MODELS) and path.endswith((".yaml", ".yml"))


def is_context_file(path: str) -> bool:
    """Whether ``path`` is one of the data files a :class:`Context` is built from."""
    return path in CONTEXT_FILES or path.startswith(CONTEXT_FOLDERS)


def context_digest(files: dict[str, str], *, with_recipes: bool = True) -> str:
    """Hex SHA-256 of a revision's context: the ``(path, blob id)`` of every context file
    and, ``with_recipes``, the sorted list of recipe paths (REF013 checks that related
    recipes exist). The *contents* of sibling recipes are not part of it: no rule reads
    them (a rule that starts to must extend this digest)."""
    h = hashlib.sha256()
    for path in sorted(files):
        if is_context_file(path):
            h.update(f"C\0{path}\0{files[path]}\n".encode())
        elif with_recipes and is_recipe(path):
            h.update(f"R\0{path}\n".encode())
    return h.hexdigest()


class _TrackedContext(Context):
    """A copy of a :class:`Context` that records which of its attributes are read.

    A rule family that read nothing but ``settings`` gave a result that depends on the
    recipe alone (level ``B``); one that read only the context files' data (taxonomy,
    strategies, kv-store and what is derived from them) gave a result valid for every
    revision with the same context files (level ``D``); one that read the recipe list or
    the tree depends on the full context (level ``F``). The cache stores each result
    under the narrowest level that holds, so a taxonomy edit does not re-run rules that
    never look at the taxonomy, and adding a recipe re-runs only those that look at the
    recipe list.

    Each rule family gets its own copy per context, kept across blobs: a cache a family
    keeps per context object (``ctx is``) is then shared only within the family, whose
    reads are recorded together, so data one rule derived from the context cannot reach a
    rule of another family unrecorded.
    """

    _FULL = frozenset({"recipe_paths", "tree", "revision"})
    _FREE = frozenset({"settings", "accessed", "level"})
    accessed: set[str]

    def __init__(self, base: Context) -> None:
        state = self.__dict__
        for f in dataclasses.fields(Context):
            state[f.name] = base.__dict__[f.name]
        state["accessed"] = set()

    def __getattribute__(self, name: str) -> Any:
        if not name.startswith("_") and name not in _TrackedContext._FREE:
            object.__getattribute__(self, "__dict__")["accessed"].add(name)
        return super().__getattribute__(name)

    def level(self) -> str:
        """``"B"``, ``"D"`` or ``"F"`` for what was read since ``accessed`` was reset."""
        read = self.__dict__["accessed"]
        if read & self._FULL:
            return "F"
        return "D" if read else "B"


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
    (id and severity), the source of every ``validator`` module that can decide findings
    (all but the parts in ``_NOT_CHECKS``), every schema and vendored data file
    (``schemas/``, ``snapshots/``), and the settings that change findings (``strict``,
    ``offline``, ``max_bytes``). Any edit to a rule, even without a version bump,
    invalidates cached results; edits to reporters or publishing do not."""
    from validator.catalogue import all_rules
    from validator.schema import SCHEMA_DIR

    h = hashlib.sha256(f"{__version__}\0{settings.strict}\0{settings.offline}\0"
                       f"{settings.max_bytes}\n".encode())
    for r in all_rules():
        h.update(f"{r.id}:{r.severity.value}\n".encode())
    package = Path(__file__).resolve().parents[1]
    project = Path(SCHEMA_DIR).parent
    data = [f for folder in (Path(SCHEMA_DIR), project / "snapshots") if folder.is_dir()
            for f in folder.rglob("*") if f.is_file()]
    for f in _check_sources(package) + sorted(data):
        h.update(f.name.encode() + b"\0" + hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def shard_of(path: str, count: int) -> int:
    """0-based shard of ``path`` among ``count`` (stable: SHA-256 of the path)."""
    return int(hashlib.sha256(path.encode()).hexdigest()[:8], 16) % count


class CommitTree:
    """One commit of a git repository as a :class:`~validator.source.tree.RecipeTree`,
    reading blobs through a :class:`GitObjects` reader.

    Args:
        objects: the reader.
        commit: the commit id (the tree's ``revision``).
        files: ``{path: blob id}`` of the files this tree serves.
    """

    def __init__(self, objects: GitObjects, commit: str, files: dict[str, str]) -> None:
        self.objects = objects
        self.commit = commit
        self.files = files

    @property
    def revision(self) -> str:
        """The commit id."""
        return self.commit

    @property
    def label(self) -> str:
        """``<repo>@<commit>``."""
        return f"{self.objects.repo}@{self.commit}"

    def read(self, path: str) -> bytes:
        """Bytes of ``path``; :class:`FileNotFoundError` when the commit has no such file."""
        oid = self.files.get(path)
        if oid is None:
            raise FileNotFoundError(path)
        return self.objects.blob(oid)

    def exists(self, path: str) -> bool:
        """Whether the commit has file ``path``."""
        return path in self.files

    def list(self, prefix: str) -> list[str]:
        """Sorted files under folder ``prefix``."""
        base = prefix.rstrip("/") + "/" if prefix else ""
        return sorted(p for p in self.files if p.startswith(base))

    def provenance(self, path: str, data: bytes) -> Provenance:
        """Digests and the commit id."""
        return Provenance.of_bytes(path, data, commit=self.commit,
                                   fetched_from=str(self.objects.repo))


@dataclass
class Snapshot:
    """What the audit needs of one revision: its commit, context digest, and the
    selected recipes as ``{path: blob key}``."""

    commit: CommitInfo
    context: str
    data_context: str
    recipes: dict[str, str]



@dataclass(frozen=True)
class Change:
    """One finding introduced or fixed in one recipe at one revision.

    ``row`` is the finding (at the new revision for introduced findings, at the parent for
    fixed ones); ``note`` is ``"file added"``/``"file removed"`` when the change comes
    from the file appearing or disappearing, ``"vLLM release"`` (:data:`RELEASED`) when
    neither the recipe nor the context files changed but a vLLM release was published.
    """

    path: str
    row: FindingRow
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``path, rule, severity, pointer, line, column, message, note``."""
        rule, severity, pointer, line, column, message = self.row
        return {"path": self.path, "rule": rule, "severity": severity, "pointer": pointer,
                "line": line, "column": column, "message": message, "note": self.note}


@dataclass
class RevisionReport:
    """Findings introduced and fixed by one revision relative to its first parent."""

    commit: CommitInfo
    parent: str | None
    introduced: list[Change] = field(default_factory=list)
    fixed: list[Change] = field(default_factory=list)
    window: str = ""
    """Date of the newest vLLM release it was judged with (``""``: every release)."""


@dataclass
class AuditResult:
    """Outcome of :func:`run_audit`.

    Attributes:
        mode: ``"first-parent <rev>"`` or ``"all refs"``.
        revisions: one report per audited revision, oldest first (baselines excluded).
        units: number of (recipe blob, context) pairs the revisions need.
        checked: how many of them were checked in this run.
        cached: how many came from the cache.
        corrupt: damaged cache entries detected (and recomputed).
        internal_errors: messages of rules that crashed (not cached; exit 2).
        tip: findings per rule id at the last audited revision.
        recipes: distinct selected recipe paths seen.
    """

    mode: str
    revisions: list[RevisionReport] = field(default_factory=list)
    units: int = 0
    checked: int = 0
    cached: int = 0
    corrupt: int = 0
    internal_errors: list[str] = field(default_factory=list)
    tip: Counter[str] = field(default_factory=Counter)
    recipes: int = 0


# --------------------------------------------------------------------------- workers
#
# Cache labels of one blob's entry (see _TrackedContext for the levels):
#   "B" -> {"rows": [...], "families": [...]}: the load and schema findings and those of
#       the rule families that read nothing from the context; ``families`` lists the
#       families that did (they have D/F results).
#   "D:<data digest>" -> {"rows": [...], "touching": [...]}: findings of the context-
#       dependent families that read only the context files' data; ``touching`` lists
#       the families that also read the recipe list or the tree.
#   "F:<full digest>" -> {"rows": [...]}: findings of the ``touching`` families for one
#       full context (context files + recipe list).

Task = tuple[str, str, str, tuple[tuple[str, str], ...], list[str] | None,
             dict[str, list[str]]]
"""``(path, blob id, blob key, missing (data digest, full digest) pairs, the cached
``B`` families list or ``None``, {data digest: touching families} already cached)``."""
TaskResult = tuple[str, dict[str, Any], list[str]]


class _Worker:
    """Per-process state: a git reader, the rules by family, the schema stage, and the
    contexts of recent context-file sets (one tracked copy per rule family)."""

    MAX_CONTEXTS = 128

    def __init__(self, repo: Path, contexts: dict[str, tuple[str, dict[str, str]]],
                 settings: Settings, cache_dir: Path | None) -> None:
        from validator.catalogue import check_rules
        from validator.schema import SchemaValidator

        self.objects = GitObjects(repo)
        self.context_specs = contexts
        self.settings = settings
        self.families: dict[str, list[Rule]] = {}
        for rule in check_rules():
            self.families.setdefault(rule.family, []).append(rule)
        self.schema = SchemaValidator(strict=settings.strict)
        self.contexts: OrderedDict[str, tuple[str, Context, dict[str, _TrackedContext]]] = \
            OrderedDict()
        self.cache = ResultCache(cache_dir)

    def narrow(self, data_digest: str, full: str) -> tuple[str, Context,
                                                           dict[str, _TrackedContext]]:
        """The context for context files ``data_digest``: ``(full digest it was built
        from, context, {family: tracked copy})``. Built once per data digest (from the
        commit of ``full`` when first needed) and kept (LRU), so rules' own per-context
        caches keep working across blobs."""
        entry = self.contexts.get(data_digest)
        if entry is not None:
            self.contexts.move_to_end(data_digest)
            return entry
        commit, files = self.context_specs[full]
        window = data_digest.partition("@")[2]
        settings = (dataclasses.replace(self.settings, as_of=date.fromisoformat(window))
                    if window else self.settings)
        ctx = build_context(CommitTree(self.objects, commit, files), settings)
        entry = (full, ctx, {fam: _TrackedContext(ctx) for fam in self.families})
        self.contexts[data_digest] = entry
        if len(self.contexts) > self.MAX_CONTEXTS:
            self.contexts.popitem(last=False)
        return entry

    def wide(self, data_digest: str, full: str) -> dict[str, _TrackedContext]:
        """Tracked copies (per family) of the context of full digest ``full``: the narrow
        context of its context files with the tree and recipe list of ``full``'s commit
        (what ``build_context`` derives from them), without loading the context files
        again."""
        built_from, base, copies = self.narrow(data_digest, full)
        if built_from == full:
            return copies
        commit, files = self.context_specs[full]
        tree = CommitTree(self.objects, commit, files)
        recipes = frozenset(p for p in files if is_recipe(p))
        out = {}
        for fam in self.families:
            ctx = _TrackedContext(base)
            ctx.__dict__["tree"] = tree
            ctx.__dict__["recipe_paths"] = recipes
            out[fam] = ctx
        return out

    def run_families(self, doc: LoadedDocument, copies: dict[str, _TrackedContext],
                     families: Iterable[str], errors: list[str]
                     ) -> dict[str, tuple[str, list[Finding]]] | None:
        """Run the rules of ``families`` on their tracked copies: family -> (level,
        findings). ``None`` when a rule crashed (its message goes to ``errors``)."""
        from validator.checker import Checker, RunResult

        out: dict[str, tuple[str, list[Finding]]] = {}
        for fam in families:
            ctx = copies[fam]
            ctx.__dict__["accessed"] = set()
            run = RunResult()
            findings = Checker(ctx, self.families[fam], self.schema).run_rules(doc, run)
            if run.internal_errors:
                errors += run.internal_errors
                return None
            out[fam] = (ctx.level(), findings)
        return out

    def run(self, task: Task) -> TaskResult:
        """Check one blob for each missing context pair; mirrors
        :meth:`validator.checker.Checker.check_recipe` (load, schema, rules), with the
        load and schema stages run once per blob, each rule family once per blob, per
        context-file set or per full context as its reads require."""
        from validator.load import load_yaml

        path, oid, key, pairs, dependent, known = task
        data = self.objects.blob(oid)
        doc = load_yaml(data, path, max_bytes=self.settings.max_bytes)
        staged: list[Finding] = list(doc.findings)
        if doc.ok:
            staged += self.schema.validate(doc, "recipe")
        known = dict(known)
        results: dict[str, Any] = {}
        errors: list[str] = []
        for data_digest, full in pairs:
            if not doc.ok:  # nothing but the loader's findings, whatever the context
                results["B"] = {"rows": _rows(staged), "families": []}
                break
            todo = sorted(self.families) if dependent is None else dependent
            if dependent is not None and data_digest in known:
                todo = []
            if todo:
                built_from, _ctx, copies = self.narrow(data_digest, full)
                ran = self.run_families(doc, copies, todo, errors)
                if ran is None:
                    return key, results, errors
                if dependent is None:
                    dependent = sorted(f for f, (lvl, _) in ran.items() if lvl != "B")
                    results["B"] = {"rows": _rows(staged + [x for f, (_, fs) in ran.items()
                                                            if f not in dependent
                                                            for x in fs]),
                                    "families": dependent}
                touching = sorted(f for f in dependent if ran[f][0] == "F")
                results[f"D:{data_digest}"] = {
                    "rows": _rows([x for f in dependent if f not in touching
                                   for x in ran[f][1]]),
                    "touching": touching}
                known[data_digest] = touching
                if touching:
                    results[f"F:{built_from}"] = {"rows": _rows(
                        [x for f in touching for x in ran[f][1]])}
            if known.get(data_digest) and f"F:{full}" not in results:
                ran = self.run_families(doc, self.wide(data_digest, full),
                                        known[data_digest], errors)
                if ran is None:
                    return key, results, errors
                results[f"F:{full}"] = {"rows": _rows([x for _, fs in ran.values()
                                                       for x in fs])}
        self.cache.put(key, results)
        return key, results, errors


def _rows(findings: list[Finding]) -> list[FindingRow]:
    return [finding_row(f) for f in sorted(findings, key=Finding.sort_key)]


_STATE: _Worker | None = None


def _init_worker(repo: Path, contexts: dict[str, tuple[str, dict[str, str]]],
                 settings: Settings, cache_dir: Path | None) -> None:
    global _STATE
    # Ctrl-C is the parent's to handle (it terminates the pool); a worker that also
    # raised KeyboardInterrupt would print its own traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _STATE = _Worker(repo, contexts, settings, cache_dir)


def _run_task(task: Task) -> TaskResult:
    assert _STATE is not None
    return _STATE.run(task)


def finding_row(f: Finding) -> FindingRow:
    """A :class:`Finding` as a cache row ``(rule, severity, pointer, line, column, msg)``."""
    return (f.rule, f.severity.value, f.pointer, f.line, f.column, f.message)


def lookup(entry: dict[str, Any], data_digest: str, full: str) -> list[FindingRow] | None:
    """Findings of a blob at a revision from its cache ``entry`` (see the labels above),
    or ``None`` when the entry lacks them or holds a malformed value (then recomputed)."""
    try:
        blob = entry.get("B")
        if blob is None:
            return None
        rows = [as_row(r) for r in blob["rows"]]
        if blob["families"]:
            narrow = entry.get(f"D:{data_digest}")
            if narrow is None:
                return None
            rows += [as_row(r) for r in narrow["rows"]]
            if narrow["touching"]:
                wide = entry.get(f"F:{full}")
                if wide is None:
                    return None
                rows += [as_row(r) for r in wide["rows"]]
        rows.sort(key=lambda r: (r[3], r[4], r[0], r[2], r[5]))
        return rows
    except (KeyError, TypeError, ValueError):
        return None


def _known(entry: dict[str, Any]) -> tuple[list[str] | None, dict[str, list[str]]]:
    """The cached ``B`` families list (``None`` if absent) and touching lists by data
    digest of a blob's entry."""
    try:
        dependent = [str(f) for f in entry["B"]["families"]]
    except (KeyError, TypeError):
        return None, {}
    touching: dict[str, list[str]] = {}
    for label, value in entry.items():
        if label.startswith("D:"):
            try:
                touching[label[2:]] = [str(f) for f in value["touching"]]
            except (KeyError, TypeError):
                continue
    return dependent, touching


# --------------------------------------------------------------------------- the audit

@dataclass
class AuditOptions:
    """Inputs of :func:`run_audit`.

    Attributes:
        repo: a git repository (working tree or bare).
        rev: the branch or revision whose first-parent history is audited.
        since: audit only revisions after this one (it is the baseline).
        all_refs: audit every commit of every ref instead (PR heads included).
        paths: recipe paths or folders to audit (``[]``: every ``models/**`` file).
        shard: ``(k, n)``, 1-based ``k``: audit only the paths of shard ``k``.
        jobs: worker processes (1: check in this process).
        cache_dir: result cache folder, ``None`` for no cache.
        settings: check settings.
    """

    repo: Path
    rev: str = "main"
    since: str | None = None
    all_refs: bool = False
    paths: list[str] = field(default_factory=list)
    shard: tuple[int, int] = (1, 1)
    jobs: int = 1
    cache_dir: Path | None = None
    settings: Settings = field(default_factory=Settings)
    at_commit_date: bool = True


def release_window_of(commit_date: str, options: AuditOptions) -> str:
    """The release window a revision is judged in: the ISO date of the newest vendored
    vLLM release published by ``commit_date`` (every commit between two releases sees
    the same releases, so they share results), or ``""`` for the settings' own window
    (``at_commit_date`` off, or ``settings.as_of`` given)."""
    if not options.at_commit_date or options.settings.as_of is not None:
        return ""
    return _release_date_by(datetime.fromisoformat(commit_date).astimezone(UTC))


@lru_cache(maxsize=4096)
def _release_date_by(moment: datetime) -> str:
    from validator.releases import load_vendored

    found = [r.uploaded for r in load_vendored().releases if r.uploaded <= moment]
    return (max(found) if found else moment).date().isoformat()


def _windowed(digest: str, window: str) -> str:
    """``digest`` tagged with the release window (the worker reads it back)."""
    return f"{digest}@{window}" if window else digest


def _unwindowed(digest: str) -> str:
    return digest.partition("@")[0]


RELEASED = "vLLM release"
""":attr:`Change.note` of a change with the same recipe bytes and context files as the
parent, judged in a later release window: the recipe rotted (or healed) under it."""


def _selected(path: str, options: AuditOptions) -> bool:
    if not is_recipe(path):
        return False
    if options.paths and not any(path == p or path.startswith(p.rstrip("/") + "/")
                                 for p in options.paths):
        return False
    k, n = options.shard
    return n == 1 or shard_of(path, n) == k - 1


def run_audit(options: AuditOptions,
              progress: Callable[[str, int], Callable[[int], None]] | None = None
              ) -> AuditResult:
    """Audit the history ``options`` describe.

    Args:
        options: what to audit and how.
        progress: optional factory ``(label, total) -> advance(steps)`` for a progress
            display.

    Raises:
        validator.history.gitdata.GitError: the repository or a revision is missing.
        OSError: the cache folder cannot be written.
    """
    settings = options.settings
    tool = tool_digest(settings)
    mode = "all refs" if options.all_refs else f"first-parent {options.rev}"
    result = AuditResult(mode)
    ensure_repository(options.repo)
    if not options.all_refs:
        resolve(options.repo, options.rev)
    since = resolve(options.repo, options.since) if options.since else None
    revisions = rev_list(options.repo, options.rev, since=since,
                         all_refs=options.all_refs)
    cache = ResultCache(options.cache_dir)
    with GitObjects(options.repo) as objects:
        snapshots, contexts, blobs = _walk(objects, revisions, options, tool, progress)
        result.recipes = len({p for s in snapshots.values() for p in s.recipes})
        needed: dict[str, set[tuple[str, str]]] = {}
        for snap in snapshots.values():
            for key in snap.recipes.values():
                needed.setdefault(key, set()).add((snap.data_context, snap.context))
        results: dict[str, dict[str, Any]] = {}
        tasks: list[Task] = []
        for key, pairs in needed.items():
            result.units += len(pairs)
            have = cache.get(key)
            results[key] = have
            missing = tuple(sorted(pair for pair in pairs if lookup(have, *pair) is None))
            result.cached += len(pairs) - len(missing)
            if missing:
                path, oid = blobs[key]
                dependent, known = _known(have)
                tasks.append((path, oid, key, missing, dependent, known))
    result.corrupt = cache.corrupt
    for key, rows, errors in _execute(tasks, contexts, options, progress):
        results[key].update(rows)
        result.internal_errors += errors
    result.checked = sum(len(t[3]) for t in tasks)
    _report(result, revisions, snapshots, results)
    return result


def _walk(objects: GitObjects, revisions: list[str], options: AuditOptions, tool: str,
          progress: Callable[[str, int], Callable[[int], None]] | None = None
          ) -> tuple[dict[str, Snapshot], dict[str, tuple[str, dict[str, str]]],
                     dict[str, tuple[str, str]]]:
    """Snapshots of the revisions and their first parents; context specs by digest; and
    blob key -> (path, blob id)."""
    snapshots: dict[str, Snapshot] = {}
    contexts: dict[str, tuple[str, dict[str, str]]] = {}
    blobs: dict[str, tuple[str, str]] = {}
    sha_of: dict[str, str] = {}
    key_of: dict[tuple[str, str, str], str] = {}
    window_of: dict[str, str] = {}
    commits = [objects.commit(r) for r in revisions]
    listed = set(revisions)
    baselines = [c.parents[0] for c in commits if c.parents and c.parents[0] not in listed]
    # Consecutive revisions mostly share sub-trees: memoise per (context files, models
    # tree) ids so that an unchanged state is not flattened and hashed again.
    memo: dict[tuple[str | None, ...], tuple[str, str, dict[str, str]]] = {}
    walk = [objects.commit(b) for b in dict.fromkeys(baselines)] + commits
    advance = progress("reading revisions", len(walk)) if progress else (lambda _n: None)
    for info in walk:
        advance(1)
        top = {name: oid for _mode, name, oid in objects.tree_entries(info.tree)}
        # a revision is judged no earlier than its first parent (committer dates can go
        # backwards along the history; the window must not)
        window = max(release_window_of(info.date, options),
                     window_of.get(info.parents[0], "") if info.parents else "")
        window_of[info.id] = window
        state = (*(top.get(n) for n in ("taxonomy.yaml", "platforms.yaml", "strategies",
                                        "kv_store", "models")), window)
        known = memo.get(state)
        if known is None:
            files = objects.files(info.tree)
            digest = _windowed(context_digest(files), window)
            if digest not in contexts:
                contexts[digest] = (info.id, {p: o for p, o in files.items()
                                              if is_context_file(p) or is_recipe(p)})
            recipes: dict[str, str] = {}
            for path, oid in files.items():
                key = key_of.get((path, oid, window))
                if key is None:
                    if not _selected(path, options):
                        continue
                    sha = sha_of.get(oid)
                    if sha is None:
                        sha = sha_of[oid] = hashlib.sha256(objects.blob(oid)).hexdigest()
                    key = key_of[(path, oid, window)] = _windowed(blob_key(tool, path, sha),
                                                                  window)
                    blobs.setdefault(key, (path, oid))
                recipes[path] = key
            known = memo[state] = (digest, _windowed(context_digest(files, with_recipes=False),
                                                     window), recipes)
        snapshots[info.id] = Snapshot(info, known[0], known[1], known[2])
    return snapshots, contexts, blobs


def _execute(tasks: list[Task], contexts: dict[str, tuple[str, dict[str, str]]],
             options: AuditOptions,
             progress: Callable[[str, int], Callable[[int], None]] | None
             ) -> Iterator[TaskResult]:
    if not tasks:
        return
    advance = progress("checking", len(tasks)) if progress else (lambda _n: None)
    init = (options.repo, contexts, options.settings, options.cache_dir)
    # biggest tasks first, so that the last ones to finish are short
    tasks = sorted(tasks, key=lambda t: -len(t[3]))
    jobs = max(1, min(options.jobs, len(tasks)))
    if jobs == 1:
        _init_worker(*init)
        try:
            for task in tasks:
                yield _run_task(task)
                advance(1)
        finally:
            assert _STATE is not None
            _STATE.objects.close()
        return
    # one task at a time: tasks are sorted biggest first, so chunks would hand the
    # biggest ones to the same worker
    chunk = 1
    with multiprocessing.get_context().Pool(jobs, _init_worker, init) as pool:
        for item in pool.imap_unordered(_run_task, tasks, chunksize=chunk):
            yield item
            advance(1)


def _compare(old: list[FindingRow], new: list[FindingRow]
             ) -> tuple[list[FindingRow], list[FindingRow]]:
    """``(introduced, fixed)`` between two finding lists, keyed by
    :func:`~validator.findings.finding_key` (rule, pointer, normalised message) as a
    multiset."""
    def key(r: FindingRow) -> tuple[str, str, str]:
        return finding_key(r[0], r[2], r[5])

    old_c, new_c = Counter(map(key, old)), Counter(map(key, new))
    gained, lost = new_c - old_c, old_c - new_c
    return _take(new, gained, key), _take(old, lost, key)


def _take(rows: Iterable[FindingRow], wanted: Counter[tuple[str, str, str]],
          key: Callable[[FindingRow], tuple[str, str, str]]) -> list[FindingRow]:
    out = []
    left = Counter(wanted)
    for r in rows:
        k = key(r)
        if left[k] > 0:
            left[k] -= 1
            out.append(r)
    return out


def _report(result: AuditResult, revisions: list[str], snapshots: dict[str, Snapshot],
            results: dict[str, dict[str, Any]]) -> None:
    memo: dict[tuple[str, str, str], list[FindingRow]] = {}

    def rows(snap: Snapshot, path: str) -> list[FindingRow]:
        key = (snap.recipes[path], snap.data_context, snap.context)
        found = memo.get(key)
        if found is None:
            found = memo[key] = lookup(results.get(key[0], {}), key[1], key[2]) or []
        return found

    for rev in revisions:
        snap = snapshots[rev]
        parent_id = snap.commit.parents[0] if snap.commit.parents else None
        parent = snapshots.get(parent_id) if parent_id else None
        report = RevisionReport(snap.commit, parent_id, window=snap.context.partition("@")[2])
        old_paths = parent.recipes if parent else {}
        same_context = parent is not None and parent.context == snap.context
        for path in sorted(set(old_paths) | set(snap.recipes)):
            if path not in snap.recipes:
                assert parent is not None
                report.fixed += [Change(path, r, "file removed") for r in rows(parent, path)]
            elif path not in old_paths or parent is None:
                report.introduced += [Change(path, r, "file added")
                                      for r in rows(snap, path)]
            elif same_context and old_paths[path] == snap.recipes[path]:
                continue
            else:
                before, after = rows(parent, path), rows(snap, path)
                if before is after or before == after:
                    continue
                gained, lost = _compare(before, after)
                # same bytes and context files, another release window: vLLM changed
                note = RELEASED if (_unwindowed(old_paths[path]) == _unwindowed(
                    snap.recipes[path]) and _unwindowed(parent.context) == _unwindowed(
                        snap.context)) else ""
                report.introduced += [Change(path, r, note) for r in gained]
                report.fixed += [Change(path, r, note) for r in lost]
        result.revisions.append(report)
    if revisions:
        last = snapshots[revisions[-1]]
        result.tip = Counter(r[0] for p in last.recipes for r in rows(last, p))


def default_jobs() -> int:
    """Worker processes to use by default: the CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def check_each_blob(repo: Path, revisions: list[str], *, jobs: int = 1,
                    settings: Settings | None = None,
                    progress: Callable[[str, int], Callable[[int], None]] | None = None
                    ) -> Iterator[tuple[str, str, str, list[FindingRow], list[str]]]:
    """Check every distinct recipe blob of ``revisions`` once, at the path and against the
    context of the first revision (in the order given) that holds it.

    Yields ``(blob id, path, commit, findings, internal errors)`` in completion order.

    Raises:
        validator.history.gitdata.GitError: the repository or an object is missing.
    """
    settings = settings or Settings()
    first: dict[str, tuple[str, str, str, str]] = {}
    contexts: dict[str, tuple[str, dict[str, str]]] = {}
    with GitObjects(repo) as objects:
        for rev in revisions:
            files = objects.files(objects.commit(rev).tree)
            digest = context_digest(files)
            for path, oid in files.items():
                if is_recipe(path) and oid not in first:
                    contexts.setdefault(digest, (rev, {p: o for p, o in files.items()
                                                       if is_context_file(p) or is_recipe(p)}))
                    narrow = context_digest(files, with_recipes=False)
                    first[oid] = (path, rev, narrow, digest)
    tasks: list[Task] = [(path, oid, oid, ((narrow, full),), None, {})
                         for oid, (path, _rev, narrow, full) in first.items()]
    options = AuditOptions(repo=repo, jobs=jobs, settings=settings)
    for oid, results, errors in _execute(tasks, contexts, options, progress):
        path, rev, narrow, full = first[oid]
        rows = lookup(results, narrow, full)
        yield oid, path, rev, rows or [], errors


__all__ = ["AuditOptions", "AuditResult", "Change", "CommitTree", "RevisionReport",
           "SourceError", "check_each_blob", "context_digest", "default_jobs", "run_audit",
           "tool_digest"]
