"""The revisions an audit walks: each commit's recipes, the digests of the parts of its
context the rules read (:mod:`validator.history.keys`), and its release window."""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache

from validator.cache import FindingRow, blob_key
from validator.claims_store import ClaimsStore
from validator.history.claims import ClaimsIndex
from validator.history.gitdata import CommitInfo, GitObjects, NotFile
from validator.history.keys import (
    RuleGroup,
    part_digests,
    path_part,
    refused_row,
    stage_label,
    undecodable_row,
    window_label,
)
from validator.paths import undecodable_name
from validator.rules.metadata import Reads
from validator.settings import Settings
from validator.source.provenance import Provenance

Progress = Callable[[str, int], Callable[[int], None]]
"""``(label, total) -> advance(steps)``: a progress display factory."""


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

    def blob_id(self, path: str) -> str | None:
        """The git blob id of file ``path`` (``None``: the commit has no such file),
        named without reading the blob."""
        return self.files.get(path)

    def list(self, prefix: str) -> list[str]:
        """Sorted files under folder ``prefix``."""
        base = prefix.rstrip("/") + "/" if prefix else ""
        return sorted(p for p in self.files if p.startswith(base))

    def provenance(self, path: str, data: bytes) -> Provenance:
        """Digests and the commit id."""
        return Provenance.of_bytes(path, data, commit=self.commit,
                                   fetched_from=str(self.objects.repo))


@dataclass(frozen=True)
class State:
    """What the rules may read at a revision, besides the recipe: the part digests, the
    cache label of each rule group, and the first commit seen in this state (whose tree
    a context is built from).

    Attributes:
        id: digest of :attr:`parts`.
        commit: the commit id the state's context is built from.
        files: ``{path: blob id}`` the context's tree serves.
        window: the release window (ISO date, ``""`` for the settings' own).
        parts: part digests (:func:`~validator.history.keys.part_digests`).
        labels: group name -> cache label.
        stage: cache label of the loader and schema findings in the format of the
            window (:func:`~validator.history.keys.stage_label`).
    """

    id: str
    commit: str
    files: dict[str, str]
    window: str
    parts: dict[Reads, str]
    labels: dict[str, str]
    stage: str


@dataclass
class Snapshot:
    """One revision: its commit, :class:`State` id, and selected recipes as
    ``{path: blob key}``."""

    commit: CommitInfo
    state: str
    recipes: dict[str, str]


def release_window_of(commit_date: str, at_commit_date: bool, settings: Settings) -> str:
    """The release window a revision is judged in: the ISO date of the newest vendored
    vLLM release published by ``commit_date`` (every commit between two releases sees
    the same releases, so they share results), or ``""`` for the settings' own window
    (``at_commit_date`` off, or ``settings.as_of`` given)."""
    if not at_commit_date or settings.as_of is not None:
        return ""
    return _release_date_by(datetime.fromisoformat(commit_date).astimezone(UTC))


@lru_cache(maxsize=4096)
def _release_date_by(moment: datetime) -> str:
    times = _upload_times()
    newest = bisect_right(times, moment)  # the releases published by ``moment``
    return (times[newest - 1] if newest else moment).date().isoformat()


@lru_cache(maxsize=1)
def _upload_times() -> tuple[datetime, ...]:
    """Upload times of the vendored vLLM releases, ascending: read once per process (a
    history of thousands of commits asks for as many dates)."""
    from validator.releases import load_vendored

    return tuple(sorted(r.uploaded for r in load_vendored().releases))


READ_TOP_LEVEL = ("taxonomy.yaml", "platforms.yaml", "strategies", "kv_store", "models")
"""The entries of a revision's top folder the rules read, when none reads the whole tree:
revisions with the same entries (and window) are one state."""


@dataclass
class Walk:
    """What :func:`walk` found: ``snapshots`` by commit id (the revisions and their first
    parents), ``states`` by id, ``blobs``: blob key -> ``(path, blob id)``, and
    ``refused``: the key of a selected recipe path that is no file (a symbolic link, a
    submodule entry) -> its one ``PROV005`` finding (nothing is read or checked)."""

    snapshots: dict[str, Snapshot]
    states: dict[str, State]
    blobs: dict[str, tuple[str, str]]
    refused: dict[str, FindingRow] = field(default_factory=dict)


def walk(objects: GitObjects, revisions: list[str], groups: tuple[RuleGroup, ...],
         selected: Callable[[str], bool], tool: str, settings: Settings, *,
         at_commit_date: bool = True, progress: Progress | None = None,
         claims_store: ClaimsStore | None = None) -> Walk:
    """Snapshots of ``revisions`` and of their first parents (the baselines), with the
    recipes ``selected`` keeps. ``claims_store``: REF025's index, where the recipes'
    variant claims are kept between runs (:class:`~validator.history.claims.ClaimsIndex`;
    ``None``: in this run only)."""
    found = Walk({}, {}, {})
    claims = (ClaimsIndex(claims_store,
                          lambda oids: [data for _kind, data in objects.read_many(oids)])
              if any(Reads.VARIANT_CLAIMS in g.reads for g in groups) else None)
    keys = _BlobKeys(tool, found.blobs, found.refused)
    window_of: dict[str, str] = {}
    commits = objects.commits(revisions)
    listed = set(revisions)
    baselines = [c.parents[0] for c in commits if c.parents and c.parents[0] not in listed]
    whole_tree = any(Reads.TREE in g.reads for g in groups)
    # Consecutive revisions mostly share sub-trees: memoise per (read sub-trees, window)
    # so that an unchanged state is not flattened and hashed again.
    memo: dict[tuple[str | None, ...], tuple[str, dict[str, str]]] = {}
    order = objects.commits(list(dict.fromkeys(baselines))) + commits
    if not whole_tree:  # each revision's top folders are compared below: read them at once
        objects.prefetch_trees([info.tree for info in order])
    advance = progress("reading revisions", len(order)) if progress else (lambda _n: None)
    for info in order:
        advance(1)
        # a revision is judged no earlier than its first parent (committer dates can go
        # backwards along the history; the window must not)
        window = max(release_window_of(info.date, at_commit_date, settings),
                     window_of.get(info.parents[0], "") if info.parents else "")
        window_of[info.id] = window
        if whole_tree:
            memo_key: tuple[str | None, ...] = (info.tree, window)
        else:
            top = {name: oid for _mode, name, oid in objects.tree_entries(info.tree)}
            memo_key = (*(top.get(n) for n in READ_TOP_LEVEL), window)
        known = memo.get(memo_key)
        if known is None:
            not_files: dict[str, NotFile] = {}
            files = objects.files(info.tree, not_files=not_files)
            recipes = _refused(found, not_files, selected, tool)
            recipes.update(keys.of_selected(files, selected))
            # the claims of a revision without a selected recipe are never asked for
            claimed = "" if claims is None or not recipes else claims.digest(
                {p: o for p, o in files.items() if path_part(p) is Reads.RECIPE_LIST})
            state = _state(found, info.id, files, window, claimed, groups, whole_tree,
                           settings)
            known = memo[memo_key] = (state, recipes)
        found.snapshots[info.id] = Snapshot(info, known[0], known[1])
    if claims is not None:
        claims.save()
    return found


@dataclass
class _BlobKeys:
    """The blob key of each selected recipe file (path, blob id) of the revisions walked:
    keyed by the git blob id (no blob is read), ``selected`` asked once per path; a new
    key is recorded in ``blobs`` (:attr:`Walk.blobs`). A path whose name is not valid
    UTF-8 is listed under its ``\\xff`` form (as ``check`` names it) with a key of its
    own, whose one ``PROV006`` row is recorded in ``refused`` (:attr:`Walk.refused`):
    its blob is neither read nor checked, as ``check`` and ``pr`` do not read it."""

    tool: str
    blobs: dict[str, tuple[str, str]]
    refused: dict[str, FindingRow]
    chosen: dict[str, bool] = field(default_factory=dict)
    key_of: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)

    def of_selected(self, files: Mapping[str, str], selected: Callable[[str], bool]
                    ) -> dict[str, str]:
        """``{path: key}`` of the files (path -> blob id) of one tree that ``selected``
        keeps."""
        out: dict[str, str] = {}
        chosen, key_of = self.chosen, self.key_of
        for path, oid in files.items():
            keep = chosen.get(path)
            if keep is None:
                keep = chosen[path] = selected(path)
            if not keep:
                continue  # most files of a tree, when a few recipes are audited
            named = key_of.get((path, oid))
            if named is None:
                named = key_of[(path, oid)] = self._key(path, oid)
            out[named[0]] = named[1]
        return out

    def _key(self, path: str, oid: str) -> tuple[str, str]:
        """``(name reported, key)`` of the selected file ``path`` of blob ``oid``."""
        escaped = undecodable_name(path)
        if escaped is not None:
            key = blob_key(self.tool, path, f"undecodable:{oid}")
            self.refused.setdefault(key, undecodable_row(escaped))
            return escaped, key
        key = blob_key(self.tool, path, f"blob:{oid}")
        self.blobs.setdefault(key, (path, oid))
        return path, key


def _refused(found: Walk, not_files: Mapping[str, NotFile], selected: Callable[[str], bool],
             tool: str) -> dict[str, str]:
    """``{path: key}`` of the selected recipe paths that are no file, their ``PROV005``
    rows recorded in ``found.refused`` (as ``check`` and ``pr`` report such a path)."""
    out: dict[str, str] = {}
    for path, entry in not_files.items():
        if selected(path):
            kind = "link" if entry.link else "gitlink"
            key = out[path] = blob_key(tool, path, f"{kind}:{entry.oid}")
            found.refused.setdefault(key, refused_row(path, entry))
    return out


def _state(found: Walk, commit: str, files: Mapping[str, str], window: str, claims: str,
           groups: tuple[RuleGroup, ...], whole_tree: bool, settings: Settings) -> str:
    parts = part_digests(files, window_label(window, settings), claims)
    state_id = hashlib.sha256("".join(f"{p.value}={d}\n" for p, d in sorted(
        parts.items(), key=lambda kv: kv[0].value)).encode()).hexdigest()
    if state_id not in found.states:
        served = dict(files) if whole_tree else {p: o for p, o in files.items()
                                                 if path_part(p) is not None}
        found.states[state_id] = State(state_id, commit, served, window, parts,
                                       {g.name: g.label(parts) for g in groups},
                                       stage_label(window, settings))
    return state_id
