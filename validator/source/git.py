"""git backend: one commit of a repository, read from a cached mirror with GitPython.

``OWNER/REPO`` is cloned once (``git clone --mirror``, so branches, tags and
``refs/pull/*`` are all there) into ``<cache>/git/<owner>/<name>-<url digest>.git`` and
fetched again only when a revision is not yet in the cache or names a branch or tag
(resolved against the remote *now*, once per run). Files are read from the commit's tree
without a checkout; the blob id recorded in the tree is compared with the one computed
from the bytes read (PROV001), and the last commit touching a path at or before the
commit is ``git log -1 <commit> -- <path>`` (git's default history simplification, the
same answer as GitHub's ``commits?path=`` API).

Clones and fetches of one cache folder are serialised with a :mod:`filelock` lock so that
concurrent runs do not corrupt it; a fresh clone goes to a temporary folder first and is
renamed into place.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import tempfile
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import git
from filelock import FileLock

from validator.owned_folder import tag_cache_folder
from validator.source.git_objects import unsupported_object_format
from validator.source.options import FetchOptions
from validator.source.provenance import Provenance
from validator.source.spec import FULL_COMMIT, check_path, check_rev
from validator.source.tree import SourceError
from validator.source.verify import PinnedTree, check_blob

_GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": "",
            "LC_ALL": "C"}
_REGULAR_MODES = (0o100644, 0o100755)
_SYMLINK_MODE = 0o120000


def redact_url(url: str) -> str:
    """``url`` without user-info (``https://user:token@host/...`` -> ``https://host/...``)."""
    return re.sub(r"^([a-z][a-z0-9+.-]*://)[^/@]*@", r"\1", url, flags=re.IGNORECASE)


def utc_iso(date: str) -> str:
    """An ISO 8601 date with offset as UTC ``YYYY-MM-DDTHH:MM:SSZ`` (GitHub's API form),
    so that both backends record the same text for the same instant."""
    parsed = datetime.fromisoformat(date.replace("Z", "+00:00"))
    return parsed.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _git_error(action: str, url: str, exc: git.GitCommandError) -> SourceError:
    stderr = str(exc.stderr or "").strip().replace("stderr: ", "").strip("'\n ")
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    detail = lines[-1] if lines else f"git exited with status {exc.status}"
    return SourceError(f"git {action} {redact_url(url)} failed: {redact_url(detail)}")


def cache_path(cache_dir: Path, repository: str, url: str) -> Path:
    """Folder of the mirror of ``repository`` cloned from ``url`` inside ``cache_dir``.

    The URL's digest is part of the name: a fork or mirror never shares a cache with
    the canonical repository, so branch names resolve against the remote asked for.
    """
    owner, _, name = repository.partition("/")
    digest = hashlib.sha256(url.encode()).hexdigest()[:12]
    return cache_dir / "git" / owner / f"{name}-{digest}.git"


def _has_commit(repo: git.Repo, sha: str) -> bool:
    try:
        repo.git.cat_file("-e", f"{sha}^{{commit}}")
    except git.GitCommandError:
        return False
    return True


def _fetch(repo: git.Repo, url: str, *refspecs: str) -> None:
    try:
        repo.git.fetch("--quiet", "--prune", "origin", *refspecs, env=_GIT_ENV)
    except git.GitCommandError as exc:
        raise _git_error("fetch from", url, exc) from exc


def open_mirror(repository: str, url: str, cache_dir: Path) -> git.Repo:
    """The cached mirror of ``repository`` from ``url``, cloning it on first use.

    Raises:
        SourceError: the clone failed (unreachable URL, not a repository), or the
            repository is not in SHA-1 object format
            (:func:`validator.source.git_objects.unsupported_object_format`).
    """
    dest = cache_path(cache_dir, repository, url)
    tag_cache_folder(cache_dir)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(dest) + ".lock"):
        if not (dest / "HEAD").is_file():
            tmp = Path(tempfile.mkdtemp(prefix=".clone-", dir=dest.parent))
            try:
                git.Repo.clone_from(url, tmp / "repo.git", mirror=True, env=_GIT_ENV)
            except git.GitCommandError as exc:
                raise _git_error("clone", url, exc) from exc
            except git.exc.UnsafeProtocolError as exc:
                raise SourceError(f"git clone {redact_url(url)}: refused: {exc}") from exc
            finally:
                if (tmp / "repo.git").is_dir() and not dest.exists():
                    os.replace(tmp / "repo.git", dest)
                shutil.rmtree(tmp, ignore_errors=True)
        problem = unsupported_object_format(dest)
        if problem is not None:
            raise SourceError(f"{redact_url(url)}: {problem}")
        return git.Repo(dest)


def resolve(repo: git.Repo, url: str, rev: str) -> tuple[str, str | None]:
    """Full commit id for ``rev`` and what it was resolved from (``None`` when ``rev`` is
    already a full commit id).

    A full commit not yet in the mirror triggers one fetch of every ref, then a fetch of
    that commit by id. A branch or tag name always fetches first. A short id is looked up
    in the mirror, fetching once if absent.

    Raises:
        SourceError: the revision does not exist at ``url`` or is ambiguous.
    """
    check_rev(rev)
    lock = FileLock(str(repo.git_dir).rstrip("/") + ".lock")
    if FULL_COMMIT.match(rev):
        if not _has_commit(repo, rev):
            with lock:
                _fetch(repo, url)
                if not _has_commit(repo, rev):
                    with contextlib.suppress(SourceError):
                        _fetch(repo, url, rev)
        if not _has_commit(repo, rev):
            raise SourceError(f"commit {rev} not found in {redact_url(url)}")
        return rev, None
    short = bool(re.fullmatch(r"[0-9a-fA-F]{4,39}", rev))
    if not short or _rev_parse(repo, rev) is None:
        with lock:
            _fetch(repo, url)
    found = _rev_parse(repo, rev)
    if found is None:
        raise SourceError(f"revision {rev!r} not found in {redact_url(url)} "
                          "(no such branch, tag or commit)")
    return found, rev


def present_commit(repo: git.Repo, rev: str) -> str | None:
    """Full id of the commit ``rev`` names when that commit object is in ``repo``, else None.

    ``repo.commit(rev)`` takes a 40-hex id on trust, and in a shallow clone follows a
    commit's parent field to an object the clone does not hold; ``git rev-parse --verify``
    reads the object, so neither passes here.

    Raises:
        SourceError: ``rev`` is an ambiguous short commit id.
    """
    if rev.startswith("-"):
        return None
    return _rev_parse(repo, rev)


def _rev_parse(repo: git.Repo, rev: str) -> str | None:
    try:
        out: str = repo.git.rev_parse("--verify", "--quiet", f"{rev}^{{commit}}")
    except git.GitCommandError as exc:
        if "ambiguous" in str(exc.stderr):
            raise SourceError(f"short commit id {rev!r} is ambiguous; give more digits") from exc
        return None
    return out.strip() or None


class GitTree(PinnedTree):
    """One commit of a git repository (implements
    :class:`~validator.source.tree.RecipeTree`).

    Args:
        repository: ``owner/name``.
        commit: full 40-hex commit id.
        resolved_from: the branch, tag or short id ``commit`` was resolved from, or
            ``None`` when a full id was given.
        repo: the GitPython repository holding the commit.
        fetched_from: URL or folder the repository was cloned from (user-info removed).

    Raises:
        SourceError: ``commit`` is not a full commit id of ``repo``.
    """

    def __init__(self, repository: str, commit: str, resolved_from: str | None,
                 repo: git.Repo, fetched_from: str) -> None:
        super().__init__()
        if not FULL_COMMIT.match(commit):
            raise SourceError(f"{commit!r} is not a full 40-hex commit id")
        self.repository = repository
        self.commit = commit
        self.resolved_from = resolved_from
        self.repo = repo
        self.fetched_from = redact_url(fetched_from)
        try:
            self._commit = repo.commit(commit)
        except (ValueError, git.BadName) as exc:
            raise SourceError(f"commit {commit} not found in {self.fetched_from}") from exc
        self._last: dict[str, tuple[str, str] | None] = {}

    @classmethod
    def open(cls, repository: str, rev: str, options: FetchOptions) -> GitTree:
        """Clone or fetch ``repository`` per ``options`` and open revision ``rev``.

        Raises:
            SourceError: clone/fetch failed or the revision does not exist.
        """
        url = options.clone_url(repository)
        repo = open_mirror(repository, url, Path(options.cache_dir))
        commit, resolved_from = resolve(repo, url, rev)
        return cls(repository, commit, resolved_from, repo, url)

    def _entry(self, path: str) -> Any:
        check_path(path, typed=False)
        try:
            return self._commit.tree / path
        except KeyError:
            return None

    def _blob(self, path: str) -> Any:
        entry = self._entry(path)
        if entry is None or entry.type == "tree":
            raise FileNotFoundError(f"{path}: not in {self.repository} at commit {self.commit}")
        if entry.type != "blob":  # a submodule: the tree names a commit of another repository
            raise SourceError(f"{path}: is a submodule entry (gitlink to commit {entry.hexsha}) "
                              f"in commit {self.commit}, not a file; not read")
        if entry.mode == _SYMLINK_MODE:
            raise SourceError(f"{path}: is a symbolic link in commit {self.commit}; not followed")
        if entry.mode not in _REGULAR_MODES:
            raise SourceError(f"{path}: has git file mode {entry.mode:o} in commit "
                              f"{self.commit}, not a regular file; not read")
        return entry

    def _raw_object(self, obj: Any) -> bytes:
        stream = self.repo.odb.stream(obj.binsha)
        body: bytes = stream.read()
        return f"{stream.type.decode()} {stream.size}".encode() + b"\0" + body

    def object_chain(self, path: str) -> list[bytes]:
        """Raw git objects that tie ``path`` to the commit id: the commit, every tree from
        the root down to the file's folder, and the last commit touching the path."""
        tree = self._commit.tree
        chain = [self._raw_object(self._commit), self._raw_object(tree)]
        for part in path.split("/")[:-1]:
            tree = tree / part
            chain.append(self._raw_object(tree))
        last = self.last_commit(path)
        if last is not None:
            chain.append(self._raw_object(self.repo.commit(last[0])))
        return chain

    def tree_blob_id(self, path: str) -> str:
        """Blob id the commit's tree records for ``path``.

        Raises:
            FileNotFoundError: no such file in the commit.
        """
        return str(self._blob(path).hexsha)

    def read(self, path: str) -> bytes:
        """Bytes of ``path`` at the commit, verified against its tree entry.

        Raises:
            FileNotFoundError: no such file in the commit.
            SourceError: a symbolic link or an unreadable object.
            VerificationError: PROV001, the object's bytes do not hash to its id.
        """
        blob = self._blob(path)
        try:
            data: bytes = blob.data_stream.read()
        except (ValueError, git.GitCommandError) as exc:
            raise SourceError(f"{path}: cannot read blob {blob.hexsha}: {exc}") from exc
        check_blob(path, data, blob.hexsha, self.label)
        return data

    def exists(self, path: str) -> bool:
        """Whether ``path`` is a regular file in the commit."""
        try:
            entry = self._entry(path)
        except SourceError:
            return False
        return entry is not None and entry.type == "blob" and entry.mode in _REGULAR_MODES

    def _entries(self, prefix: str) -> list[Any]:
        """Every entry below folder ``prefix`` at the commit (none when it is no folder)."""
        if prefix.strip("/"):
            folder = self._entry(prefix.strip("/"))
            if folder is None or folder.type != "tree":
                return []
        else:
            folder = self._commit.tree
        return [item for item in folder.traverse() if item.type != "tree"]

    def not_files(self, prefix: str) -> list[str]:
        """Entries under folder ``prefix`` that :meth:`list` leaves out because they are
        no regular file (symbolic links, submodule entries), sorted: reading one raises
        :class:`SourceError`, so a caller that must not pass them by can report them."""
        return sorted(str(item.path) for item in self._entries(prefix)
                      if not (item.type == "blob" and item.mode in _REGULAR_MODES))

    def gitlinks(self, prefix: str) -> list[str]:
        """Submodule entries (gitlinks) under folder ``prefix``, sorted: each names a
        commit of another repository, whose files (recipes among them, maybe) this commit
        does not hold."""
        return sorted(str(item.path) for item in self._entries(prefix)
                      if item.type == "submodule")

    def list(self, prefix: str) -> list[str]:
        """Regular files under folder ``prefix`` at the commit (recursive, sorted)."""
        return sorted(str(item.path) for item in self._entries(prefix)
                      if item.type == "blob" and item.mode in _REGULAR_MODES)

    def last_commit(self, path: str) -> tuple[str, str] | None:
        """``(commit id, committer date as UTC ISO 8601)`` of the last commit that touched
        ``path`` at or before this commit, or ``None`` when none did."""
        if path not in self._last:
            out = self.repo.git.log("-1", "--format=%H %cI", self.commit, "--", path).strip()
            self._last[path] = (out.split(" ")[0], utc_iso(out.split(" ")[1])) if out else None
        return self._last[path]

    def provenance(self, path: str, data: bytes) -> Provenance:
        """Digests of ``data`` verified against the tree entry, with repository, commit,
        resolved-from, last commit (id and date) and fetched-from.

        Raises:
            FileNotFoundError: ``path`` is not in the commit.
            VerificationError: PROV001 (blob id) or PROV002 (expected SHA-256).
        """
        blob_id = self.tree_blob_id(path)
        prov = check_blob(path, data, blob_id, self.label)
        last = self.last_commit(path)
        prov = replace(prov, repository=self.repository, commit=self.commit,
                       resolved_from=self.resolved_from,
                       last_commit=last[0] if last else None,
                       last_commit_date=last[1] if last else None,
                       fetched_from=self.fetched_from)
        self.check_expected(prov)
        return prov

    def close(self) -> None:
        """Stop the git helper processes GitPython keeps for this repository."""
        self.repo.close()
