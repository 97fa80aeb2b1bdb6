"""Fast read-only access to a git repository's objects through ``git cat-file --batch``.

One long-lived ``git cat-file --batch`` process serves every object read (commits, trees,
blobs), so walking thousands of commits costs no process start per object. Trees are
parsed from git's binary tree format (``<mode> SP <name> NUL <20-byte id>`` entries) and
cached by id, so unchanged sub-trees shared by consecutive commits are read once.

Source: git's object formats (``git help format-pack`` / ``git cat-file --batch``
output ``<oid> SP <type> SP <size> LF <contents> LF``).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from validator.source.git_objects import unsupported_object_format
from validator.source.tree import SourceError

_GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_CONFIG_NOSYSTEM": "1"}
_TREE_MODE = b"40000"
_SYMLINK_MODE = b"120000"
_SUBMODULE_MODE = b"160000"


class GitError(SourceError):
    """A git command failed or an object is missing; the message names the repository."""


def _env() -> dict[str, str]:
    import os

    return {**os.environ, **_GIT_ENV}


def git(repo: Path, *args: str) -> str:
    """Run ``git -C repo ARGS`` and return its standard output (text).

    Raises:
        GitError: git is missing or exits non-zero (its last stderr line is quoted).
    """
    try:
        proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                              env=_env(), check=False)
    except OSError as exc:
        raise GitError(f"cannot run git: {exc.strerror or exc}") from exc
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        detail = lines[-1] if lines else f"exit status {proc.returncode}"
        raise GitError(f"{repo}: git {args[0]} failed: {detail}")
    return proc.stdout


@dataclass(frozen=True)
class NotFile:
    """A tree entry that is no file: a symbolic link (``link``; ``oid`` is the blob of
    its target) or a submodule entry (``oid`` is a commit of another repository)."""

    link: bool
    oid: str

    def why(self, path: str) -> str:
        """Why ``path`` is not read, worded as :class:`validator.source.git.GitTree` words
        it (without the commit: the audit reports each revision under its own)."""
        if self.link:
            return f"{path}: is a symbolic link; not followed"
        return (f"{path}: is a submodule entry (gitlink to commit {self.oid}), not a file; "
                "not read")


@dataclass(frozen=True)
class CommitInfo:
    """One commit: ``id`` (40 hex), ``tree`` id, ``parents`` ids, committer ``date`` (ISO
    8601 with offset) and the first line of its message (``subject``)."""

    id: str
    tree: str
    parents: tuple[str, ...]
    date: str
    subject: str


_ENTRY = re.compile(rb"([0-7]+) ([^\0]*)\0(.{20})", re.DOTALL)
"""One entry of a tree object: ``<mode> SP <name> NUL <20-byte id>``."""
_TREE = re.compile(rb"(?:[0-7]+ [^\0]*\0.{20})*", re.DOTALL)
"""A whole tree object: its entries, nothing else."""

BATCH = 256
"""Objects asked of ``git cat-file --batch`` at once (41 bytes a request: 10 KiB)."""


class GitObjects:
    """Reads objects of ``repo`` through one ``git cat-file --batch`` process.

    Use as a context manager or call :meth:`close`. Not thread-safe; each process opens
    its own.

    Raises:
        GitError: ``repo`` is not a git repository, or git cannot be started.
    """

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self._trees: dict[str, list[tuple[bytes, str, str]]] = {}
        self._leaves: dict[tuple[str, str], tuple[dict[str, str], dict[str, NotFile]]] = {}
        """Files and links or submodule entries (by path) of each tree read that holds
        no folder, by tree id and the path it was met at: most of a revision's folders
        are those of the revision before, and their paths are made once."""
        git(repo, "rev-parse", "--git-dir")
        try:
            self._proc = subprocess.Popen(
                ["git", "-C", str(repo), "cat-file", "--batch"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_env())
        except OSError as exc:
            raise GitError(f"cannot run git: {exc.strerror or exc}") from exc

    def __enter__(self) -> GitObjects:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the ``cat-file`` process."""
        if self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.wait()

    def _shallow_hint(self) -> str:
        """Why an object named by a commit may be absent: the clone is shallow."""
        try:
            shallow = git(self.repo, "rev-parse", "--is-shallow-repository").strip() == "true"
        except GitError:
            return ""
        return (" (the clone is shallow, so older commits are absent: audit a full clone, "
                "'git fetch --unshallow' or 'fetch-depth: 0')") if shallow else ""

    def read(self, oid: str) -> tuple[str, bytes]:
        """``(type, contents)`` of object ``oid`` (``blob``, ``tree``, ``commit``, ``tag``).

        Raises:
            GitError: the object does not exist or the process died.
        """
        return self.read_many([oid])[0]

    def read_many(self, oids: list[str]) -> list[tuple[str, bytes]]:
        """:meth:`read` of each of ``oids``, asked :data:`BATCH` at a time: one round trip
        to ``git`` per batch, not per object (thousands of commits on a loaded machine).
        The requests of a batch fit in the pipe, and ``git`` has answered every earlier
        one, so writing them never blocks.

        Raises:
            GitError: an object does not exist or the process died.
        """
        stdin = self._proc.stdin
        assert stdin is not None
        out: list[tuple[str, bytes]] = []
        for start in range(0, len(oids), BATCH):
            chunk = oids[start:start + BATCH]
            try:
                stdin.write(b"".join(oid.encode("ascii") + b"\n" for oid in chunk))
                stdin.flush()
            except (BrokenPipeError, OSError) as exc:
                raise GitError(f"{self.repo}: git cat-file stopped") from exc
            answers = [self._answer() for _oid in chunk]  # every one: the pipe stays in step
            for oid, answer in zip(chunk, answers, strict=True):
                if answer is None:
                    raise GitError(f"{self.repo}: object {oid} not found"
                                   f"{self._shallow_hint()}")
                out.append(answer)
        return out

    def _answer(self) -> tuple[str, bytes] | None:
        """The next answer of ``git cat-file``: ``None`` for a missing object."""
        stdout = self._proc.stdout
        assert stdout is not None
        header = stdout.readline()
        if not header:
            raise GitError(f"{self.repo}: git cat-file stopped")
        parts = header.split()
        if len(parts) != 3:
            return None
        size = int(parts[2])
        data = stdout.read(size)
        stdout.read(1)  # the LF after the contents
        if len(data) != size:
            raise GitError(f"{self.repo}: short read of object {parts[0].decode()}")
        return parts[1].decode("ascii"), data

    def blob(self, oid: str) -> bytes:
        """Contents of blob ``oid``.

        Raises:
            GitError: missing, or not a blob.
        """
        kind, data = self.read(oid)
        if kind != "blob":
            raise GitError(f"{self.repo}: object {oid} is a {kind}, not a blob")
        return data

    def commit(self, oid: str) -> CommitInfo:
        """Parse commit ``oid`` (headers only: tree, parents, committer date, subject)."""
        return self.commits([oid])[0]

    def commits(self, oids: list[str]) -> list[CommitInfo]:
        """:meth:`commit` of each of ``oids`` (read in batches, :meth:`read_many`)."""
        return [self._commit(oid, kind, data)
                for oid, (kind, data) in zip(oids, self.read_many(oids), strict=True)]

    def _commit(self, oid: str, kind: str, data: bytes) -> CommitInfo:
        if kind != "commit":
            raise GitError(f"{self.repo}: object {oid} is a {kind}, not a commit")
        head, _, message = data.partition(b"\n\n")
        tree = ""
        parents: list[str] = []
        date = ""
        for line in head.split(b"\n"):
            if line.startswith(b"tree "):
                tree = line[5:].decode("ascii")
            elif line.startswith(b"parent "):
                parents.append(line[7:].decode("ascii"))
            elif line.startswith(b"committer "):
                date = _git_date(line)
        subject = message.split(b"\n", 1)[0].decode("utf-8", "replace")
        return CommitInfo(oid, tree, tuple(parents), date, subject)

    def prefetch_trees(self, oids: list[str]) -> None:
        """Read the trees ``oids`` not yet cached, in batches (:meth:`read_many`), so that
        :meth:`tree_entries` of them asks ``git`` nothing."""
        wanted = [oid for oid in dict.fromkeys(oids) if oid not in self._trees]
        for oid, (kind, data) in zip(wanted, self.read_many(wanted), strict=True):
            self._tree(oid, kind, data)

    def tree_entries(self, oid: str) -> list[tuple[bytes, str, str]]:
        """Entries of tree ``oid`` as ``(mode, name, id)``, cached by id."""
        cached = self._trees.get(oid)
        if cached is not None:
            return cached
        kind, data = self.read(oid)
        return self._tree(oid, kind, data)

    def _tree(self, oid: str, kind: str, data: bytes) -> list[tuple[bytes, str, str]]:
        if kind != "tree":
            raise GitError(f"{self.repo}: object {oid} is a {kind}, not a tree")
        if _TREE.fullmatch(data) is None:
            raise GitError(f"{self.repo}: tree {oid} is malformed")
        entries = [(mode, name.decode("utf-8", "surrogateescape"), ident.hex())
                   for mode, name, ident in _ENTRY.findall(data)]
        self._trees[oid] = entries
        return entries

    def files(self, tree: str, prefix: str = "",
              not_files: dict[str, NotFile] | None = None) -> dict[str, str]:
        """Every regular file below ``tree`` as ``{path: blob id}`` (paths joined with
        ``/`` under ``prefix``). Symbolic links and submodules are left out: a link in a
        recipes tree is never followed. ``not_files``, when given, receives them."""
        out: dict[str, str] = {}
        self._collect(tree, prefix, out, not_files)
        return out

    def _collect(self, tree: str, prefix: str, out: dict[str, str],
                 not_files: dict[str, NotFile] | None) -> None:
        """Add the files below ``tree`` to ``out`` (:meth:`files`), in the order of the
        tree's entries; a folder of files only, met before at the same path, is added
        from :attr:`_leaves` without reading or naming anything again."""
        leaf = self._leaves.get((tree, prefix))
        if leaf is not None:
            held, odd = leaf
            out.update(held)
            if not_files is not None and odd:
                not_files.update(odd)
            return
        entries = self.tree_entries(tree)
        # the sub-trees not read yet, in one round trip (a revision changes a few of them)
        folders = [oid for mode, _name, oid in entries if mode == _TREE_MODE]
        self.prefetch_trees(folders)
        here: dict[str, str] = {}
        odd_here: dict[str, NotFile] = {}
        for mode, name, oid in entries:
            path = f"{prefix}{name}"
            if mode == _TREE_MODE:
                self._collect(oid, path + "/", out, not_files)
            elif mode not in (_SYMLINK_MODE, _SUBMODULE_MODE):
                out[path] = here[path] = oid
            else:
                odd_here[path] = NotFile(mode == _SYMLINK_MODE, oid)
                if not_files is not None:
                    not_files[path] = odd_here[path]
        if not folders:
            self._leaves[(tree, prefix)] = (here, odd_here)


def _git_date(line: bytes) -> str:
    """ISO 8601 date of a ``committer Name <mail> <epoch> <+hhmm>`` header line."""
    from datetime import datetime, timedelta, timezone

    parts = line.rsplit(b" ", 2)
    try:
        epoch = int(parts[1])
        off = parts[2].decode("ascii")
        sign = -1 if off.startswith("-") else 1
        delta = timedelta(hours=int(off[1:3]), minutes=int(off[3:5])) * sign
        return datetime.fromtimestamp(epoch, timezone(delta)).isoformat()
    except (IndexError, ValueError):
        return ""


def rev_list(repo: Path, rev: str, *, since: str | None = None, first_parent: bool = True,
             all_refs: bool = False) -> list[str]:
    """Commit ids to audit, oldest first (``--topo-order``, so parents come first).

    Args:
        rev: the branch (or any revision) whose history is walked.
        since: when given, only commits after it (``since..rev``).
        first_parent: follow only first parents (the branch's own sequence of states).
        all_refs: every commit reachable from any ref (branches and ``refs/pull/*``);
            ``rev`` and ``first_parent`` are then ignored.

    Raises:
        GitError: a revision does not exist.
    """
    args = ["rev-list", "--reverse", "--topo-order"]
    if all_refs:
        args.append("--all")
    else:
        if first_parent:
            args.append("--first-parent")
        args.append(rev)
    if since:
        args += ["--not", since]
    return git(repo, *args, "--").split()


def is_ancestor(repo: Path, ancestor: str, rev: str) -> bool:
    """Whether commit ``ancestor`` is ``rev`` or an ancestor of it (both full ids).

    Raises:
        GitError: git is missing or fails otherwise.
    """
    try:
        proc = subprocess.run(["git", "-C", str(repo), "merge-base", "--is-ancestor",
                               ancestor, rev], capture_output=True, text=True, env=_env(),
                              check=False)
    except OSError as exc:
        raise GitError(f"cannot run git: {exc.strerror or exc}") from exc
    if proc.returncode not in (0, 1):
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        detail = lines[-1] if lines else f"exit status {proc.returncode}"
        raise GitError(f"{repo}: git merge-base failed: {detail}")
    return proc.returncode == 0


def ensure_repository(repo: Path) -> None:
    """Raise :class:`GitError` unless ``repo`` is a git repository ("not a git
    repository") in SHA-1 object format
    (:func:`validator.source.git_objects.unsupported_object_format`)."""
    try:
        git(repo, "rev-parse", "--git-dir")
    except GitError as exc:
        raise GitError(f"{repo}: not a git repository") from exc
    problem = unsupported_object_format(repo)
    if problem is not None:
        raise GitError(f"{repo}: {problem}")


def resolve(repo: Path, rev: str) -> str:
    """Full commit id of ``rev``.

    Raises:
        GitError: ``rev`` does not name a commit (or starts with ``-``).
    """
    if rev.startswith("-"):
        raise GitError(f"{rev!r}: not a revision")
    try:
        return git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options",
                   f"{rev}^{{commit}}").strip()
    except GitError as exc:
        raise GitError(f"{rev!r}: no such commit in {repo}") from exc
