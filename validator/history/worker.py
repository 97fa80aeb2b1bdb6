"""Checking blobs for the audit, in this process or in worker processes.

A :data:`Task` is one recipe blob and the rule groups (:class:`~validator.history.keys.
RuleGroup`) it still needs at some :class:`~validator.history.revisions.State`\\ s. The
blob is loaded and schema-validated once; then, per state, the needed groups run on the
state's context limited to what they declare (:meth:`~validator.context.Context.
limited_to`: a rule reading an undeclared part is an internal error, not a wrongly keyed
result), and each group's findings are stored under its label.
"""

from __future__ import annotations

import dataclasses
import os
from collections import OrderedDict
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from validator.cache import ResultCache
from validator.context import Context, Settings, build_context
from validator.findings import Finding
from validator.history.gitdata import GitObjects
from validator.history.keys import RuleGroup, rows_of, rule_groups
from validator.history.revisions import CommitTree, Progress, State
from validator.load import LoadedDocument, load_yaml
from validator.paths import is_recipe_path
from validator.render.cache import kept_recent, share_renderings
from validator.render.carry import Table
from validator.rules.metadata import Reads
from validator.unit_pool import run_units

if TYPE_CHECKING:
    from validator.schema import SchemaValidator


RENDER_INPUTS = frozenset({Reads.TAXONOMY, Reads.STRATEGIES, Reads.KV_STORES})
"""What a rendering reads besides the recipe."""

KEEP_MORE = 64
"""How many times the default sizes the memos of a worker's CLI registries keep
(:meth:`~validator.vllm_cli.data_source.CliRegistries.keep_more`). Measured on the
``--all-refs`` history of ``models/zai-org/GLM-5.2.yaml`` (41 blobs in 162 contexts):
23.4 s user CPU with the defaults, 18.2 s with 64 times them; peak RSS 332 and 335 MB."""

Task = tuple[str, str, str, tuple[str, ...], tuple[tuple[str, tuple[str, ...]], ...]]
"""``(path, blob id, blob key, (state id per schema stage needed, ...), ((state id, group
names needed there), ...))``: a blob's schema stage is computed once per format it is
judged in (:func:`~validator.history.keys.stage_label`)."""
TaskResult = tuple[str, dict[str, Any], list[str]]
"""``(blob key, new cache labels -> values, internal errors)``."""


class Worker:
    """Per-process state: a git reader, the rule groups, the schema stage, and the
    contexts of recent states (LRU), so rules' per-context caches keep working across
    blobs."""

    MAX_CONTEXTS = 128
    MAX_DOCUMENTS = 1024
    """How many loaded context files a worker keeps (:meth:`context_document`)."""

    def __init__(self, repo: Path, states: dict[str, State], settings: Settings,
                 cache_dir: Path | None) -> None:
        from validator.rule_index import check_rules
        from validator.schema import SchemaValidator
        from validator.session import Session

        self.objects = GitObjects(repo)
        self.states = states
        self.settings = settings
        self.groups = {g.name: g for g in rule_groups(check_rules())}
        self.schema = SchemaValidator(strict=settings.strict, as_of=settings.as_of)
        self.session = Session(settings, check_rules(), schema=self.schema)
        # a blob's argument lists come back in each of its revisions' contexts, a pass
        # over all of them later: keep their parses and verdicts until then
        self.session.cli.keep_more(KEEP_MORE)
        self._dated: dict[str, SchemaValidator] = {}
        self.cache = ResultCache(cache_dir, owner=cache_dir and cache_dir.parent, fast=True)
        self._data: OrderedDict[tuple[str, str, str, str], Context] = OrderedDict()
        self._documents: OrderedDict[tuple[str, str], LoadedDocument] = OrderedDict()
        self._renderings: OrderedDict[tuple[str, str, str], OrderedDict[str, Any]] = \
            OrderedDict()
        self._limited: OrderedDict[tuple[frozenset[Reads], tuple[str, ...]], Context] = \
            OrderedDict()
        self._carried: OrderedDict[Any, Table] = OrderedDict()

    def context(self, state: State, reads: frozenset[Reads]) -> Context:
        """The context of ``state`` limited to ``reads``, shared by every state whose
        ``reads`` parts have the digests of ``state``'s (what the rules may see of them
        is the same, and so are the views they memoise on it: REF025's claims, the
        hardware groups...). A context of the context files is made once per (taxonomy,
        strategies, kv-store, window) and shared by the states that only differ in their
        recipes; each file content is loaded once (:meth:`context_document`)."""
        seen = tuple(state.parts[p] for p in sorted(reads, key=lambda p: p.value))
        return kept_recent(self._limited, (reads, seen),
                           lambda: self._limited_context(state, reads), self.MAX_CONTEXTS)

    def _limited_context(self, state: State, reads: frozenset[Reads]) -> Context:
        files = (state.parts[Reads.TAXONOMY], state.parts[Reads.STRATEGIES],
                 state.parts[Reads.KV_STORES])
        tree = CommitTree(self.objects, state.commit, state.files)

        def load() -> Context:
            settings = (dataclasses.replace(self.settings,
                                            as_of=date.fromisoformat(state.window))
                        if state.window else self.settings)
            return build_context(tree, settings, self.session.cli,
                                 load=lambda path: self.context_document(tree, path))

        base = kept_recent(self._data, (*files, state.window), load, self.MAX_CONTEXTS)
        full = Context(tree=tree, taxonomy=base.taxonomy, strategies=base.strategies,
                       kv_stores=base.kv_stores,
                       recipe_paths=frozenset(p for p in state.files if is_recipe_path(p)),
                       settings=base.settings, cli=base.cli)
        found = full.limited_to(reads)
        if reads >= RENDER_INPUTS:  # the window does not change a rendering: share it
            # the rendering store of the contexts with these taxonomy, strategy and
            # kv-store digests (validator.render.cache.share_renderings)
            # and, across all contexts, the site renderings of the blobs rendered last
            # (validator.render.carry: reused where their hardware reads hold)
            share_renderings(found, kept_recent(self._renderings, files, OrderedDict,
                                                self.MAX_CONTEXTS), self._carried)
        return found

    def context_document(self, tree: CommitTree, path: str) -> LoadedDocument:
        """The context file ``path`` of ``tree`` loaded, once per ``(path, blob id)``
        across the contexts of this worker (the :data:`~validator.context.Loader` of
        their :func:`~validator.context.build_context`): a loaded document depends on its
        path, its bytes (named by the blob id) and ``max_bytes``, which is the same for
        every context of the worker (a release window changes only ``as_of``). A
        revision that changes one strategy file loads that file alone, not the whole
        folder and the taxonomy again, and so does each release window of a revision."""
        oid = tree.files[path]
        return kept_recent(self._documents, (path, oid), lambda: load_yaml(
            self.objects.blob(oid), path, max_bytes=self.settings.max_bytes),
            self.MAX_DOCUMENTS)

    def schema_of(self, state: State) -> SchemaValidator:
        """The schema validator of the format of ``state``'s window."""
        if not state.window:
            return self.schema
        found = self._dated.get(state.stage)
        if found is None:
            from validator.schema import SchemaValidator
            found = self._dated[state.stage] = SchemaValidator(
                strict=self.settings.strict, as_of=date.fromisoformat(state.window))
        return found

    def run(self, task: Task) -> TaskResult:
        """Check one blob: load and schema once, then the needed groups per state through
        the run driver (:meth:`validator.session.Session.run_rules`); mirrors
        :meth:`validator.checker.Checker.check_recipe`."""
        path, oid, key, stage_states, needs = task
        doc = load_yaml(self.objects.blob(oid), path, max_bytes=self.settings.max_bytes)
        results: dict[str, Any] = {}
        for state_id in stage_states:
            state = self.states[state_id]
            staged: list[Finding] = list(doc.findings)
            if doc.ok:
                staged += self.schema_of(state).validate(doc, "recipe")
            results[state.stage] = {"rows": rows_of(staged), "ok": doc.ok}
        crashes = self.session.result.internal_errors
        if doc.ok:
            for state_id, names in needs:
                state = self.states[state_id]
                groups: list[RuleGroup] = [self.groups[n] for n in names]
                reads = frozenset().union(*(g.reads for g in groups))
                before = len(crashes)
                findings = self.session.run_rules(self.context(state, reads), doc,
                                                  [r for g in groups for r in g.rules])
                if len(crashes) > before:
                    return key, results, crashes[before:]
                for g in groups:
                    ids = {r.id for r in g.rules}
                    results[state.labels[g.name]] = {
                        "rows": rows_of(f for f in findings if f.rule in ids)}
        self.cache.put(key, results)
        return key, results, []



class WorkerPerProcess:
    """The task function handed to the worker processes
    (:func:`validator.unit_pool.run_units`): each process that calls it builds its own
    :class:`Worker` (a git reader of its own, its own memos) on its first task and keeps
    it in this object, its copy of the one the parent made before the fork.

    Args:
        init: the arguments of :class:`Worker`.
    """

    def __init__(self, init: tuple[Path, dict[str, State], Settings, Path | None]) -> None:
        self.init = init
        self._pid = 0
        self._worker: Worker | None = None

    def __call__(self, task: Task) -> TaskResult | Exception:
        """``Worker.run(task)`` with this process's worker, or the exception it raised
        (handed to the parent, which raises it: a worker process must not die of it)."""
        try:
            if self._worker is None or self._pid != os.getpid():
                # a copy of the parent's worker must not share its git reader
                self._worker, self._pid = Worker(*self.init), os.getpid()
            return self._worker.run(task)
        except Exception as exc:  # any: the parent raises it, as it would in one process
            return exc

    def close(self) -> None:
        """Close this process's git reader, if it made a worker."""
        if self._worker is not None and self._pid == os.getpid():
            self._worker.objects.close()
        self._worker = None


def execute(tasks: list[Task], repo: Path, states: dict[str, State], settings: Settings,
            cache_dir: Path | None, jobs: int, progress: Progress | None = None
            ) -> Iterator[TaskResult]:
    """Run ``tasks`` in ``jobs`` processes (1: in this one; see
    :func:`validator.unit_pool.run_units`: a worker that dies costs only time, its tasks
    are run here); each worker writes its results to the cache as they are made, and
    they are yielded in the order of the tasks once all are done."""
    if not tasks:
        return
    advance = progress("checking", len(tasks)) if progress else (lambda _n: None)
    run = WorkerPerProcess((repo, states, settings, cache_dir))
    # biggest tasks first, so that the last ones to finish are short
    tasks = sorted(tasks, key=lambda t: -sum(len(names) for _s, names in t[4]))
    try:
        results = run_units(run, tasks, max(1, jobs), done=lambda: advance(1))
    finally:
        run.close()
    for result in results:
        if isinstance(result, Exception):
            raise result
        yield result
