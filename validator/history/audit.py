"""The whole-history audit: check every revision of a branch's recipes, reusing results.

How it works:

1. List the revisions (``git rev-list --first-parent <branch>``, oldest first; or every
   commit of every ref with ``all_refs``) and, for each, the tree's recipe files
   (``models/**.yaml``), its release window, and the digests of the parts of its context
   the rules read (:mod:`validator.history.revisions`). The first parent of every listed
   revision is walked too, as the baseline its changes are measured against.
2. The rules are grouped by what they declare they read (``@rule(..., reads=...)``); a
   group's findings on one recipe blob are cached under the digest of exactly its
   declared inputs (:mod:`validator.history.keys`), in the
   :class:`~validator.cache.ResultCache` under the same tool digest
   (:func:`~validator.history.keys.tool_digest`: version, rule set, the package's own
   source and schemas, and the settings; with the groups, read back from the cache under
   the package's tool stamp when it is unchanged, :mod:`validator.history.tool`, so a
   warm run imports no rule). What is missing is checked in worker processes
   (:mod:`validator.history.worker`, imported only then), one task per blob.
3. Per revision, the findings of each recipe are compared with those at its first
   parent, keyed by ``(rule, pointer, normalised message)`` (not by line, so that an edit
   above a finding does not report it as fixed and introduced again). A change of a rule
   whose inputs differ from the parent's only in the release window is noted
   :data:`RELEASED`: the recipe rotted (or healed) under it.

``shard=(k, n)`` keeps the recipe paths whose SHA-256 falls in shard ``k`` of ``n``:
each path's history is audited entirely by one shard, so the union of the shards'
reports equals the unsharded report.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from validator.cache import RUNS, FindingRow, ResultCache
from validator.file_digests import FileDigests
from validator.findings import finding_key
from validator.history.findings_at import FindingsAt
from validator.history.gitdata import (
    CommitInfo,
    GitError,
    GitObjects,
    NotFile,
    ensure_repository,
    is_ancestor,
    resolve,
    rev_list,
)
from validator.history.keys import (
    RELEASE_PARTS,
    RuleGroup,
    lookup,
    missing_labels,
    rule_groups,
    tool_digest,
)
from validator.history.revisions import CommitTree, Progress, Snapshot, State, Walk, walk
from validator.history.tool import tool_facts
from validator.paths import is_recipe_path, name_bytes
from validator.settings import Settings
from validator.source.tree import SourceError
from validator.unit_pool import default_jobs

if TYPE_CHECKING:
    from validator.history.worker import Task

RELEASED = "vLLM release"
""":attr:`Change.note` of a change with the same recipe bytes as the parent, whose rule's
declared inputs differ from the parent's only in the release window: the recipe rotted
(or healed) under it because vLLM changed."""


def shard_of(path: str, count: int) -> int:
    """0-based shard of ``path`` among ``count`` (stable: SHA-256 of the path)."""
    return int(hashlib.sha256(name_bytes(path)).hexdigest()[:8], 16) % count


@dataclass(frozen=True)
class Change:
    """One finding introduced or fixed in one recipe at one revision.

    ``row`` is the finding (at the new revision for introduced findings, at the parent for
    fixed ones); ``note`` is ``"file added"``/``"file removed"`` when the change comes
    from the file appearing or disappearing, ``"vLLM release"`` (:data:`RELEASED`) when
    neither the recipe nor the rule's other declared inputs changed but the release
    window did.
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
        units: number of (recipe blob, rule group, inputs) results the revisions need.
        checked: how many of them were checked in this run.
        cached: how many came from the cache.
        corrupt: damaged cache entries detected (and recomputed).
        cache_notes: what was wrong with the cache's secret (replaced, or the cache off).
        internal_errors: messages of rules that crashed (not cached; exit 2).
        tip: findings per rule id at the last audited revision.
        recipes: distinct selected recipe paths seen.
        matched: distinct recipe paths the PATHs match, whatever the shard: in the
            audited revisions, or at the ``--since`` commit when none is audited (0: a
            PATH matches no recipe).
        note: why the report is empty (no commit after ``--since``, no recipe path in
            the shard), else ``None``.
    """

    mode: str
    revisions: list[RevisionReport] = field(default_factory=list)
    units: int = 0
    checked: int = 0
    cached: int = 0
    corrupt: int = 0
    cache_notes: list[str] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)
    tip: Counter[str] = field(default_factory=Counter)
    recipes: int = 0
    matched: int = 0
    note: str | None = None


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
        cache_dir: result cache folder, ``None`` for no cache; REF025's index of the
            recipes' variant ids is kept beside it (``claims``, as ``check`` keeps it in
            its cache folder: ``history`` uses ``<cache folder>/history``).
        settings: check settings.
        at_commit_date: judge each revision with the releases published by its date.
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


def _matches(path: str, options: AuditOptions) -> bool:
    """Whether ``path`` is a recipe path the PATHs of ``options`` name (any shard)."""
    return is_recipe_path(path) and (not options.paths or any(
        path == p or path.startswith(p.rstrip("/") + "/") for p in options.paths))


def _selected(path: str, options: AuditOptions, matched: set[str] | None = None) -> bool:
    """Whether ``path`` is audited: named by the PATHs and in the shard; each path the
    PATHs name is added to ``matched``."""
    if not _matches(path, options):
        return False
    if matched is not None:
        matched.add(path)
    k, n = options.shard
    return n == 1 or shard_of(path, n) == k - 1


def _revisions(options: AuditOptions) -> tuple[list[str], str | None]:
    """The commits to audit, oldest first, and the full id of ``--since`` (or ``None``).

    Raises:
        GitError: a revision is missing, or ``--since`` is not an ancestor of ``--rev``
            (the commits "after" it are then not a part of ``--rev``'s history).
    """
    rev = None if options.all_refs else resolve(options.repo, options.rev)
    since = resolve(options.repo, options.since) if options.since else None
    if since is not None and rev is not None and not is_ancestor(options.repo, since, rev):
        raise GitError(f"--since {options.since!r} ({since[:12]}) is not an ancestor of "
                       f"--rev {options.rev!r} ({rev[:12]}); --since names the baseline, a "
                       "commit of --rev's history, and the commits after it are audited")
    return rev_list(options.repo, options.rev, since=since,
                    all_refs=options.all_refs), since


def _empty_note(result: AuditResult, options: AuditOptions, audited: int,
                since: str | None, matched_at_since: Callable[[], set[str]]) -> None:
    """Set ``result.note`` (and ``matched``, from the ``--since`` commit, when no
    commit is ``audited``) when the audit has nothing to report."""
    if not audited:
        if since is not None:
            result.matched = len(matched_at_since())
        where = "no ref" if options.all_refs else f"--rev {options.rev!r}"
        result.note = (f"no commit was audited: {where} has no commit after --since "
                       f"{options.since!r}" if options.since else
                       "no commit was audited: the history is empty")
    elif not result.recipes and result.matched:
        k, n = options.shard
        result.note = (f"no recipe was audited: none of the {result.matched} recipe path(s) "
                       f"selected falls in shard {k}/{n}")


def _groups() -> tuple[RuleGroup, ...]:
    from validator.rule_index import check_rules

    return rule_groups(check_rules())


def run_audit(options: AuditOptions, progress: Progress | None = None) -> AuditResult:
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
    mode = "all refs" if options.all_refs else f"first-parent {options.rev}"
    result = AuditResult(mode)
    ensure_repository(options.repo)
    revisions, since = _revisions(options)
    cache = ResultCache(options.cache_dir,
                        owner=options.cache_dir and options.cache_dir.parent, fast=True)
    claims = stamps = None
    if options.cache_dir is not None:
        # beside the tool stamp check's whole-run cache keeps (validator.run_cache)
        stamps = ResultCache(options.cache_dir.parent / RUNS, owner=options.cache_dir.parent)
    digests = FileDigests()  # the run's digests of its files
    facts = tool_facts(settings, stamps, digests)
    if options.cache_dir is not None:
        from validator.claims_store import ClaimsStore

        # after the facts: the index is keyed on the code digest they read back
        claims = ClaimsStore.under(options.cache_dir.parent, digests)
    groups = facts.groups
    matched: set[str] = set()
    with GitObjects(options.repo) as objects:
        walked = walk(objects, revisions, groups, lambda p: _selected(p, options, matched),
                      facts.digest, settings, at_commit_date=options.at_commit_date,
                      progress=progress, claims_store=claims)
        result.recipes = len({p for s in walked.snapshots.values() for p in s.recipes})
        result.matched = len(matched)
        _empty_note(result, options, len(revisions), since,
                    lambda: _matched_at(objects, since, options))
    results = {key: cache.get(key) for key in walked.blobs}
    tasks = _tasks(walked, results, result)
    result.corrupt = cache.corrupt
    result.cache_notes = list(cache.notes)
    if tasks:  # the worker, the checker and the rules are imported only to check
        from validator.history.worker import execute

        for key, rows, errors in execute(tasks, options.repo, walked.states, settings,
                                         options.cache_dir, options.jobs, progress):
            results[key].update(rows)
            result.internal_errors += errors
    _report(result, revisions, walked, results, groups)
    return result


def _matched_at(objects: GitObjects, commit: str | None, options: AuditOptions) -> set[str]:
    """The recipe paths of ``commit``'s tree (files, links, submodule entries) that the
    PATHs of ``options`` name."""
    if commit is None:
        return set()
    [info] = objects.commits([commit])
    not_files: dict[str, NotFile] = {}
    files = objects.files(info.tree, not_files=not_files)
    return {p for p in (*files, *not_files) if _matches(p, options)}


def _tasks(walked: Walk, results: dict[str, dict[str, Any]], result: AuditResult
           ) -> list[Task]:
    """One task per blob that lacks results: for each group label it lacks, the first
    state (in walk order) that needs it."""
    states_of: dict[str, dict[str, None]] = {}  # blob key -> its states, in walk order
    for snap in walked.snapshots.values():
        for key in snap.recipes.values():
            if key in walked.refused:
                continue  # no file: nothing to check (its PROV005 is known)
            states_of.setdefault(key, {})[snap.state] = None
    label_sets = {s: frozenset(state.labels.values()) for s, state in walked.states.items()}
    tasks: list[Task] = []
    for key, held in states_of.items():
        state_ids = list(held)
        entry = results[key]
        labels: set[str] = set().union(*{label_sets[s] for s in state_ids})
        result.units += len(labels)
        missing = set(missing_labels(entry, sorted(labels)))
        result.cached += len(labels) - len(missing)
        result.checked += len(missing)
        needs: list[tuple[str, tuple[str, ...]]] = []
        for s in state_ids if missing else ():
            state = walked.states[s]
            names = tuple(n for n, label in sorted(state.labels.items()) if label in missing)
            if names:
                needs.append((s, names))
                missing -= {state.labels[n] for n in names}
        stages: dict[str, str] = {}  # stage label -> the first state in that format
        for s in state_ids:
            stages.setdefault(walked.states[s].stage, s)
        stage_needs = tuple(s for label, s in stages.items()
                            if not isinstance(entry.get(label), dict))
        if needs or stage_needs:
            path, oid = walked.blobs[key]
            tasks.append((path, oid, key, stage_needs, tuple(needs)))
    return tasks


def _compare(old: list[FindingRow], new: list[FindingRow],
             keys: dict[FindingRow, tuple[str, str, str]] | None = None
             ) -> tuple[list[FindingRow], list[FindingRow]]:
    """``(introduced, fixed)`` between two finding lists, keyed by
    :func:`~validator.findings.finding_key` (rule, pointer, normalised message) as a
    multiset; ``keys`` remembers each row's key across calls."""
    known = {} if keys is None else keys

    def key(r: FindingRow) -> tuple[str, str, str]:
        found = known.get(r)
        if found is None:
            found = known[r] = finding_key(r[0], r[2], r[5])
        return found

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


def _released(rule: str, before: State, after: State, by_rule: dict[str, RuleGroup]) -> bool:
    """Whether ``rule``'s declared inputs differ between the two states only in the
    release window (the recipe bytes being the same)."""
    group = by_rule.get(rule)
    return (group is not None and bool(group.reads & RELEASE_PARTS)
            and not group.same_inputs(before.parts, after.parts)
            and group.same_inputs(before.parts, after.parts, but=RELEASE_PARTS))


def _report(result: AuditResult, revisions: list[str], walked: Walk,
            results: dict[str, dict[str, Any]], groups: tuple[RuleGroup, ...]) -> None:
    found = FindingsAt(results, walked.refused, walked.states)
    keys: dict[FindingRow, tuple[str, str, str]] = {}
    by_rule = {i: g for g in groups for i in g.ids}
    for rev in revisions:
        snap = walked.snapshots[rev]
        state = walked.states[snap.state]
        parent_id = snap.commit.parents[0] if snap.commit.parents else None
        parent = walked.snapshots.get(parent_id) if parent_id else None
        report = RevisionReport(snap.commit, parent_id, window=state.window)
        result.revisions.append(report)
        if parent is not None and parent.state == snap.state and parent.recipes is snap.recipes:
            continue  # the same recipes in the same state: nothing changed
        old_paths = parent.recipes if parent else {}
        kept = found.same_paths(old_paths, snap.recipes, parent.state, snap.state) \
            if parent is not None else set()
        for path in sorted(set(old_paths) | set(snap.recipes)):
            if path not in snap.recipes:
                assert parent is not None
                report.fixed += [Change(path, r, "file removed")
                                 for r in found.at(old_paths[path], parent.state)]
            elif path not in old_paths or parent is None:
                report.introduced += [Change(path, r, "file added")
                                      for r in found.at(snap.recipes[path], snap.state)]
            elif path in kept:
                continue
            else:
                _changed(report, path, (parent, snap), found, keys,
                         (walked.states[parent.state], state, by_rule))
    if revisions:
        last = walked.snapshots[revisions[-1]]
        result.tip = Counter(r[0] for p, blob in last.recipes.items()
                             for r in found.at(blob, last.state))


def _changed(report: RevisionReport, path: str, sides: tuple[Snapshot, Snapshot],
             found: FindingsAt, keys: dict[FindingRow, tuple[str, str, str]],
             states: tuple[State, State, dict[str, RuleGroup]]) -> None:
    """The changes of ``path`` between its findings at the parent and at the revision
    (``sides``); ``states``: their states and the rule groups by rule id."""
    parent, snap = sides
    old, new = parent.recipes[path], snap.recipes[path]
    before, after = found.at(old, parent.state), found.at(new, snap.state)
    if before is after or before == after:
        return
    gained, lost = _compare(before, after, keys)
    rotted = set() if old != new else {r[0] for r in gained + lost if _released(r[0], *states)}
    report.introduced += [Change(path, r, RELEASED if r[0] in rotted else "") for r in gained]
    report.fixed += [Change(path, r, RELEASED if r[0] in rotted else "") for r in lost]


def check_each_blob(repo: Path, revisions: list[str], *, jobs: int = 1,
                    settings: Settings | None = None, progress: Progress | None = None
                    ) -> Iterator[tuple[str, str, str, list[FindingRow], list[str]]]:
    """Check every distinct recipe blob of ``revisions`` once, at the path and against the
    context of the first revision (in the order given) that holds it, with every release
    (no commit-date window).

    Yields ``(blob id, path, commit, findings, internal errors)`` in completion order.

    Raises:
        validator.history.gitdata.GitError: the repository or an object is missing.
    """
    settings = settings or Settings()
    groups = _groups()
    with GitObjects(repo) as objects:
        walked = walk(objects, revisions, groups, is_recipe_path, "", settings,
                      at_commit_date=False)
        first: dict[str, tuple[str, str, str, str]] = {}  # blob id -> path, rev, key, state
        for rev in revisions:
            snap = walked.snapshots[rev]
            for path, key in snap.recipes.items():
                if key in walked.refused:
                    continue  # no file (a symbolic link, a submodule entry): no blob
                oid = walked.blobs[key][1]
                if oid not in first:
                    first[oid] = (path, rev, key, snap.state)
    from validator.history.worker import execute

    names = tuple(g.name for g in groups)
    tasks: list[Task] = [(path, oid, key, (state,), ((state, names),))
                         for oid, (path, _rev, key, state) in first.items()]
    done = {key: oid for oid, (_p, _r, key, _s) in first.items()}
    for key, found, errors in execute(tasks, repo, walked.states, settings, None, jobs,
                                      progress):
        oid = done[key]
        path, rev, _key, state = first[oid]
        rows = lookup(found, walked.states[state].labels.values(), walked.states[state].stage)
        yield oid, path, rev, rows or [], errors


__all__ = ["AuditOptions", "AuditResult", "Change", "CommitTree", "RevisionReport",
           "SourceError", "check_each_blob", "default_jobs", "run_audit", "tool_digest"]
