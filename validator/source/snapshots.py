"""The verified snapshot store: content-addressed bytes plus a lock file.

Layout of a store folder (default :func:`validator.paths.default_store_dir`)::

    objects/sha256/<2 hex>/<62 hex>   the exact bytes, named by their SHA-256
    recipes.lock.json                 what each stored file is (see LockEntry)

The lock file records, per ``(repository, commit, path)``: what the commit was resolved
from, the file's SHA-256 and git blob id, the last commit that touched it (id and date)
and where it was fetched from; and, per ``(repository, commit)``, the list of data files
at that commit (``models/``, ``strategies/``, ``kv_store/`` and top-level files), so an
offline run knows the recipe list and the strategies of the revision.

Only bytes that passed verification (PROV001/PROV002) are ever added. Writers take a
:mod:`filelock` lock, and every file (object or lock) is written to a temporary file in the
same folder and moved into place with :func:`os.replace`, so readers never see a partial
file. Reads re-hash the stored bytes every time and raise PROV003 on any mismatch.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from filelock import FileLock
from pydantic import ValidationError

from validator.atomic import atomic_write, read_input_file
from validator.source.git_objects import (
    chain_objects,
    commit_headers,
    committer_date,
    git_object_hash,
    tree_entries,
)
from validator.source.lockfile import LOCK_NAME, LOCK_VERSION, LockEntry, LockFile, TreeListing
from validator.source.provenance import Provenance, git_blob_id, sha256_hex
from validator.source.spec import FULL_COMMIT, check_path
from validator.source.tree import SourceError
from validator.source.verify import (
    SHA256_MISMATCH,
    SNAPSHOT_MISMATCH,
    UNBOUND_ENTRY,
    PinnedTree,
    VerificationError,
)

if TYPE_CHECKING:
    from validator.source.tree import RecipeTree

__all__ = ["CONTEXT_FILES", "CONTEXT_FOLDERS", "DATA_FOLDERS", "LOCK_NAME", "LOCK_VERSION",
           "LockEntry", "LockFile", "Problem", "SnapshotStore", "SnapshotTree", "TreeListing",
           "chain_objects", "context_paths", "data_listing", "git_object_hash",
           "snapshot_spec", "tree_listing", "verified_files"]

@dataclass(frozen=True)
class Problem:
    """One stored file that failed ``snapshot verify``."""

    entry: LockEntry
    message: str
    rule: str = SNAPSHOT_MISMATCH.id


class SnapshotStore:
    """A store folder (see the module docstring).

    Args:
        root: the store folder; created on first write.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.lock_path = self.root / LOCK_NAME
        self._mutex = FileLock(str(self.root / f".{LOCK_NAME}.lock"))
        self._cache: tuple[float, LockFile] | None = None

    def object_path(self, sha256: str) -> Path:
        """Where the bytes with this SHA-256 are stored."""
        return self.root / "objects" / "sha256" / sha256[:2] / sha256[2:]

    def git_object_path(self, oid: str) -> Path:
        """Where the raw git object (``<type> <size>\\0`` + body) with this id is stored."""
        return self.root / "objects" / "git" / oid[:2] / oid[2:]

    def _git_object(self, oid: str) -> tuple[str, bytes]:
        """``(type, body)`` of a stored git object, re-hashed now.

        Raises:
            LookupError: the object is missing or does not hash to ``oid``.
        """
        try:
            raw = self.git_object_path(oid).read_bytes()
        except OSError as exc:
            raise LookupError(f"git object {oid} is not stored") from exc
        if git_object_hash(raw) != oid:
            raise LookupError(f"stored git object {oid} does not hash to its id")
        head, _, body = raw.partition(b"\0")
        return head.split(b" ")[0].decode("ascii", "replace"), body

    def binding_problem(self, entry: LockEntry) -> str | None:
        """Why ``entry`` is not tied to its commit by the stored git objects (see
        PROV007), or ``None`` when the commit's tree records its ``gitBlob`` at its path
        and the last commit's id and date are the entry's."""
        try:
            kind, body = self._git_object(entry.commit)
            if kind != "commit":
                return f"object {entry.commit} is a {kind}, not a commit"
            oid, mode = commit_headers(body).get("tree", ""), "40000"
            for part in entry.path.split("/"):
                if mode != "40000":
                    return f"{entry.path}: a parent folder is not a tree in {entry.commit}"
                kind, body = self._git_object(oid)
                found = tree_entries(body).get(part)
                if kind != "tree" or found is None:
                    return f"{entry.path} is not in the tree of commit {entry.commit}"
                mode, oid = found
            if oid != entry.git_blob or mode not in ("100644", "100755"):
                return (f"the tree of commit {entry.commit} records blob {oid} (mode {mode}) "
                        f"for {entry.path}, but the lock entry records gitBlob "
                        f"{entry.git_blob}")
            if entry.last_commit is not None:
                kind, body = self._git_object(entry.last_commit)
                date = committer_date(commit_headers(body).get("committer", ""))
                if kind != "commit" or date != entry.last_commit_date:
                    return (f"last commit {entry.last_commit} has committer date {date}, "
                            f"but the lock entry records {entry.last_commit_date}")
            elif entry.last_commit_date is not None:
                return "the lock entry has a last_commit_date but no last_commit"
        except LookupError as exc:
            return f"{exc}: the objects tying the entry to its commit are missing or damaged"
        raw_url = re.search(r"/([0-9a-f]{40})/(.+)$", entry.fetched_from or "")
        if raw_url and (raw_url.group(1) != entry.commit
                        or unquote(raw_url.group(2)) != entry.path):
            return (f"fetched_from {entry.fetched_from} names another commit or path than "
                    "the entry")
        return None

    def load(self) -> LockFile:
        """The lock file (empty when the store has none).

        Raises:
            SourceError: the lock file is not valid JSON of the expected shape.
        """
        try:
            stat = self.lock_path.stat()
        except FileNotFoundError:
            return LockFile()
        if self._cache and self._cache[0] == stat.st_mtime_ns:
            return self._cache[1]
        try:
            lock = LockFile.model_validate_json(read_input_file(self.lock_path))
        except OSError as exc:  # a FIFO, device or folder in its place, too large
            raise SourceError(f"{self.lock_path}: {exc.strerror or exc}") from exc
        except ValidationError as exc:
            raise SourceError(f"{self.lock_path}: not a valid lock file: "
                              f"{exc.errors()[0]['msg']} at "
                              f"{'/'.join(str(p) for p in exc.errors()[0]['loc'])}") from exc
        self._cache = (stat.st_mtime_ns, lock)
        return lock

    def entry(self, repository: str, commit: str, path: str) -> LockEntry | None:
        """The lock entry for a file, or ``None``."""
        for e in self.load().files:
            if e.key == (repository, commit, path):
                return e
        return None

    def listing(self, repository: str, commit: str) -> TreeListing | None:
        """The stored list of data files of a commit, or ``None``."""
        for t in self.load().trees:
            if (t.repository, t.commit) == (repository, commit):
                return t
        return None

    def read_verified(self, entry: LockEntry) -> bytes:
        """The stored bytes of ``entry``, re-hashed now.

        Raises:
            VerificationError: PROV003 when the object is missing or its SHA-256 or git
                blob id differs from the entry.
        """
        obj = self.object_path(entry.sha256)
        try:
            data = obj.read_bytes()
        except FileNotFoundError as exc:
            raise VerificationError(SNAPSHOT_MISMATCH.id, entry.path,
                                    f"stored file {obj} is missing",
                                    "run 'recipe-check fetch' again for this commit",
                                    actual=entry.provenance()) from exc
        except OSError as exc:
            raise SourceError(f"{obj}: {exc.strerror or exc}") from exc
        got_sha, got_blob = sha256_hex(data), git_blob_id(data)
        if got_sha != entry.sha256 or got_blob != entry.git_blob:
            raise VerificationError(
                SNAPSHOT_MISMATCH.id, entry.path,
                f"stored file {obj} hashes to sha256 {got_sha} / gitBlob {got_blob}, but the "
                f"lock entry for {entry.repository}@{entry.commit} records sha256 "
                f"{entry.sha256} / gitBlob {entry.git_blob}",
                "the snapshot was altered on disk; delete it and run 'recipe-check fetch' again",
                actual=replace(entry.provenance(), sha256=got_sha, git_blob=got_blob))
        problem = self.binding_problem(entry)
        if problem is not None:
            raise VerificationError(
                UNBOUND_ENTRY.id, entry.path,
                f"lock entry for {entry.repository}@{entry.commit} does not belong to that "
                f"commit: {problem}",
                "the lock file was edited or damaged; delete the store and run "
                "'recipe-check fetch' again", actual=entry.provenance())
        return data

    def add(self, files: Iterable[tuple[Provenance, bytes]],
            listing: TreeListing | None = None,
            objects: Iterable[bytes] = ()) -> list[LockEntry]:
        """Store verified bytes and record them in the lock file, atomically.

        Each ``(prov, data)`` must already be verified against its commit; the digests are
        recomputed here and must equal ``prov``'s. An existing entry for the same
        ``(repository, commit, path)`` with another SHA-256 is a PROV002 error, and then
        nothing at all is written. ``objects`` are the raw git objects tying the files to
        their commit (each backend's ``object_chain``), stored under ``objects/git/``.

        Raises:
            VerificationError: PROV002 on a conflicting entry or digests that do not match.
        """
        items = [(LockEntry.of(p), d) for p, d in files]
        for entry, data in items:
            if sha256_hex(data) != entry.sha256 or git_blob_id(data) != entry.git_blob:
                raise VerificationError(SHA256_MISMATCH.id, entry.path,
                                        "bytes do not hash to the digests of their provenance")
        with self._mutex:
            self._remove_partial()
            self._cache = None
            lock = self.load()
            current = {e.key: e for e in lock.files}
            for entry, _ in items:
                old = current.get(entry.key)
                if old is not None and old.sha256 != entry.sha256:
                    raise VerificationError(
                        SHA256_MISMATCH.id, entry.path,
                        f"fetched SHA-256 {entry.sha256} differs from lock entry "
                        f"{old.sha256} for {entry.repository}@{entry.commit}",
                        f"inspect {self.lock_path}; a commit's file never changes")
            for raw in objects:
                target = self.git_object_path(git_object_hash(raw))
                if not target.is_file() or target.read_bytes() != raw:
                    atomic_write(target, raw)
            for entry, data in items:
                obj = self.object_path(entry.sha256)
                if not obj.is_file() or sha256_hex(obj.read_bytes()) != entry.sha256:
                    atomic_write(obj, data)
                current[entry.key] = entry
            trees = {(t.repository, t.commit): t for t in lock.trees}
            if listing is not None:
                trees[(listing.repository, listing.commit)] = listing
            new = LockFile(files=sorted(current.values(), key=lambda e: e.key),
                           trees=sorted(trees.values(), key=lambda t: (t.repository, t.commit)))
            text = json.dumps(new.model_dump(mode="json", by_alias=True), indent=2,
                              ensure_ascii=False) + "\n"
            atomic_write(self.lock_path, text.encode("utf-8"))
            self._cache = None
        return [e for e, _ in items]

    def _remove_partial(self) -> list[Path]:
        """Delete the temporary files (``.<name>.<random>.tmp``) that writers killed
        mid-write left; call with the store lock held (every writer holds it while a
        temporary file exists, so any one found then is a killed writer's)."""
        found = [p for p in self.root.glob(".*.tmp") if p.is_file()]
        objects = self.root / "objects"
        if objects.is_dir():
            found += [p for p in objects.rglob(".*.tmp") if p.is_file()]
        for p in found:
            p.unlink(missing_ok=True)
        return found

    def clean(self) -> list[Path]:
        """Take the store lock and delete partial files left by killed writers; the
        paths deleted."""
        with self._mutex:
            return self._remove_partial()

    def verify(self) -> tuple[int, list[Problem]]:
        """Re-hash every stored file: ``(number of entries checked, problems)``."""
        lock = self.load()
        problems = []
        for entry in lock.files:
            try:
                self.read_verified(entry)
            except VerificationError as exc:
                problems.append(Problem(entry, exc.detail, exc.rule_id))
            except SourceError as exc:
                problems.append(Problem(entry, str(exc)))
        return len(lock.files), problems

    def resolve(self, repository: str, rev: str) -> tuple[str, str | None]:
        """Commit of ``repository`` in the store that ``rev`` names: a full id, a unique
        prefix, or the unique name a stored commit was resolved from.

        Raises:
            SourceError: no stored commit, or more than one, matches.
        """
        commits = {e.commit: e.resolved_from for e in self.load().files
                   if e.repository == repository}
        commits.update({t.commit: commits.get(t.commit) for t in self.load().trees
                        if t.repository == repository and t.commit not in commits})
        if FULL_COMMIT.match(rev):
            if rev in commits:
                return rev, None
            found: list[str] = []
        else:
            found = sorted({c for c, origin in commits.items()
                            if c.startswith(rev.lower()) or origin == rev})
        if len(found) == 1:
            return found[0], rev
        if len(found) > 1:
            raise SourceError(f"{repository}@{rev}: matches {len(found)} commits in the "
                              f"snapshot store {self.root}; give the full commit id")
        raise SourceError(f"{repository}@{rev}: not in the snapshot store {self.root} "
                          "(run 'recipe-check fetch' for it first, or drop --offline)")


class SnapshotTree(PinnedTree):
    """One commit as stored in a :class:`SnapshotStore` (implements
    :class:`~validator.source.tree.RecipeTree`); every read re-verifies the digests.

    Args:
        store: the store.
        repository: ``owner/name``.
        commit: full commit id present in the store.
        resolved_from: what the user asked for, when it was not the full id.
    """

    def __init__(self, store: SnapshotStore, repository: str, commit: str,
                 resolved_from: str | None = None) -> None:
        super().__init__()
        self.store = store
        self.repository = repository
        self.commit = commit
        self.resolved_from = resolved_from

    @classmethod
    def open(cls, store: SnapshotStore, repository: str, rev: str) -> SnapshotTree:
        """The stored commit ``rev`` names (see :meth:`SnapshotStore.resolve`)."""
        commit, resolved_from = store.resolve(repository, rev)
        return cls(store, repository, commit, resolved_from)

    @property
    def label(self) -> str:
        """``owner/name@commit (snapshot <folder>)``."""
        return f"{self.repository}@{self.commit} (snapshot {self.store.root})"

    def _paths(self) -> list[str]:
        listing = self.store.listing(self.repository, self.commit)
        if listing is not None:
            return listing.paths
        return sorted(e.path for e in self.store.load().files
                      if (e.repository, e.commit) == (self.repository, self.commit))

    def _entry(self, path: str) -> LockEntry | None:
        return self.store.entry(self.repository, self.commit, check_path(path))

    def read(self, path: str) -> bytes:
        """Stored bytes of ``path``, re-verified against the lock entry.

        Raises:
            FileNotFoundError: the path is not in the commit.
            SourceError: the commit lists the path but it was not stored.
            VerificationError: PROV003, the stored bytes were altered.
        """
        entry = self._entry(path)
        if entry is None:
            if path in self._paths():
                raise SourceError(f"{path}: in {self.repository}@{self.commit} but not in the "
                                  f"snapshot store {self.store.root}; run 'recipe-check "
                                  f"fetch {self.repository}@{self.commit}:{path}'")
            raise FileNotFoundError(f"{path}: not in {self.repository}@{self.commit}")
        return self.store.read_verified(entry)

    def exists(self, path: str) -> bool:
        """Whether ``path`` is a file of the commit (stored or listed)."""
        return path in self._paths() or self._entry(path) is not None

    def list(self, prefix: str) -> list[str]:
        """Data files of the commit under ``prefix`` (from the stored listing)."""
        base = prefix.strip("/")
        return sorted(p for p in self._paths() if not base or p.startswith(base + "/"))

    def provenance(self, path: str, data: bytes) -> Provenance:
        """The lock entry's provenance, after checking ``data`` against it.

        Raises:
            FileNotFoundError: no entry for ``path``.
            VerificationError: PROV003 when ``data`` differs from the entry, PROV002 on a
                missed ``--expect-sha256``.
        """
        entry = self._entry(path)
        if entry is None:
            raise FileNotFoundError(f"{path}: not in the snapshot store for {self.commit}")
        got_sha, got_blob = sha256_hex(data), git_blob_id(data)
        if got_sha != entry.sha256 or got_blob != entry.git_blob:
            raise VerificationError(SNAPSHOT_MISMATCH.id, path,
                                    f"bytes hash to sha256 {got_sha} but the lock entry "
                                    f"records {entry.sha256}",
                                    actual=replace(entry.provenance(), sha256=got_sha,
                                                   git_blob=got_blob))
        prov = entry.provenance()
        if self.resolved_from:
            prov = replace(prov, resolved_from=self.resolved_from)
        self.check_expected(prov)
        return prov


DATA_FOLDERS = ("models", "strategies", "kv_store")
"""Folders whose file list a snapshot records (recipes, strategies, kv-store options)."""

CONTEXT_FILES = ("taxonomy.yaml", "platforms.yaml")
"""Top-level files a check of any recipe reads (``platforms.yaml`` is checked context
too, when the commit has it: an offline check must see what an online one sees)."""
CONTEXT_FOLDERS = ("strategies", "kv_store")
LICENSE_FILES = ("LICENSE", "LICENSE.md", "LICENSE.txt")
"""The repository's licence file, which a record of one of its recipes states
(:mod:`validator.evidence.record`): stored with the recipes, so that ``publish``, which
reads only the snapshot store, finds it."""


def data_listing(tree: RecipeTree) -> list[str]:
    """Sorted data files of ``tree``: everything under :data:`DATA_FOLDERS` plus the files
    at the top level (``taxonomy.yaml``, ``platforms.yaml`` ...)."""
    paths = {p for p in tree.list("") if "/" not in p}
    for folder in DATA_FOLDERS:
        paths.update(tree.list(folder))
    return sorted(paths)


def context_paths(tree: RecipeTree) -> list[str]:
    """The context files a check of any recipe of ``tree`` reads: ``taxonomy.yaml``,
    ``platforms.yaml`` (when there) and the ``*.yaml`` directly in ``strategies/`` and
    ``kv_store/`` (as :func:`validator.context.build_context` loads them)."""
    out = [p for p in CONTEXT_FILES if tree.exists(p)]
    for folder in CONTEXT_FOLDERS:
        out += [p for p in tree.list(folder)
                if p.count("/") == 1 and p.endswith((".yaml", ".yml"))]
    return out


def verified_files(tree: RecipeTree, paths: Iterable[str]) -> list[tuple[Provenance, bytes]]:
    """Read ``paths`` of ``tree`` with their verified provenance.

    Raises:
        FileNotFoundError: a path is not in the commit.
        VerificationError: a file failed verification (PROV001/PROV002/PROV003).
        SourceError: any other fetch failure.
    """
    files = []
    for path in paths:
        data = tree.read(path)
        files.append((tree.provenance(path, data), data))
    return files


def tree_listing(tree: RecipeTree, repository: str) -> TreeListing:
    """The :class:`TreeListing` of a pinned ``tree`` (its :func:`data_listing`).

    Raises:
        SourceError: ``tree`` has no commit (a working tree).
    """
    if tree.revision is None:
        raise SourceError(f"{tree.label}: only a pinned commit can be snapshotted")
    return TreeListing(repository=repository, commit=tree.revision, paths=data_listing(tree))


def snapshot_spec(store: SnapshotStore, tree: RecipeTree, repository: str,
                  paths: Iterable[str]) -> list[LockEntry]:
    """Read, verify and store ``paths``, the context files of ``tree`` (a pinned git or
    HTTP tree of ``repository``) and its licence file, with the tree's data listing.

    Every file is read and verified (PROV001/PROV002) before anything is written, so a
    failure stores nothing.

    Raises:
        FileNotFoundError: a requested path is not in the commit.
        VerificationError: a file failed verification.
        SourceError: any other fetch failure.
    """
    listing = tree_listing(tree, repository)
    licence = [p for p in LICENSE_FILES if tree.exists(p)]
    wanted = list(dict.fromkeys([*paths, *context_paths(tree), *licence]))
    return store.add(verified_files(tree, wanted), listing, chain_objects(tree, wanted))
