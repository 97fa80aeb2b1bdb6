"""HTTP backend: one commit read from a raw-content server and a GitHub-shaped REST API.

Requests (GitHub REST API v3 shapes; base URLs are settings, so GitHub Enterprise or a
test server work the same):

* ``GET {api}/repos/{owner}/{repo}/commits/{rev}`` — resolves ``rev`` (full or short
  commit id, branch, tag) to the full commit and its tree id; a 404/422 here means the
  *commit* is missing.
* ``GET {api}/repos/{owner}/{repo}/git/trees/{tree}?recursive=1`` — every entry of the
  commit's tree (path, mode, type, blob id). The listing is verified by recomputing each
  tree object's id from its entries (git's tree format) up to the root tree id the commit
  names, so the recipe list and the blob ids are those of the commit. A path not in it is
  *missing at that commit* (:class:`FileNotFoundError`).
* ``GET {raw}/{owner}/{repo}/{commit}/{path}`` — the file's bytes, compared by git blob id
  with the tree entry (PROV001 on an altered or truncated body).
* ``GET {api}/repos/{owner}/{repo}/commits?sha={commit}&path={path}&per_page=1`` — the
  last commit touching the path at or before the commit, with its committer date. The
  claim is proven before it is used: ``git/commits`` of that commit and of its parents
  (each checked to hash to its id) and ``git/trees`` of their root trees (checked to hash
  to them) must show that the commit states that date, holds the path's blob of this
  commit, and changed the path against every parent (a root commit added it); else a
  :class:`~validator.source.tree.SourceError` says what disagrees. (Proven: it touched
  the path. Not provable from these answers: that no later ancestor did.)

Transport: one :class:`requests.Session` with a urllib3 :class:`~urllib3.util.Retry`
(retries with exponential backoff on connection errors, read timeouts and 500/502/503/504),
(connect, read) timeouts on every request, ``Authorization: Bearer $GITHUB_TOKEN`` when set
(the token is never put in a URL or a message). 403/429 answers that are rate limiting
(``X-RateLimit-Remaining: 0`` or 429) are reported with the reset time from
``X-RateLimit-Reset`` / ``Retry-After``; a body shorter than its ``Content-Length`` is
reported as a short body.
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import quote

from validator.source.git import redact_url, utc_iso
from validator.source.github_objects import (
    TreeEntry,
    commit_links,
    tree_objects,
    verify_commit,
    verify_listing,
)
from validator.source.http_client import HttpClient
from validator.source.options import FetchOptions
from validator.source.provenance import Provenance
from validator.source.spec import FULL_COMMIT, check_path, check_rev
from validator.source.tree import SourceError
from validator.source.verify import PinnedTree, check_blob

__all__ = ["HttpClient", "HttpTree", "TreeEntry", "tree_objects", "verify_commit",
           "verify_listing"]
"""The transport (:mod:`validator.source.http_client`) and the rebuilt git objects
(:mod:`validator.source.github_objects`) are importable from here too."""

_REGULAR_MODES = ("100644", "100755")


class HttpTree(PinnedTree):
    """One commit read over HTTP (implements :class:`~validator.source.tree.RecipeTree`).

    Args:
        repository: ``owner/name``.
        commit: full commit id.
        resolved_from: the name or short id it was resolved from, or ``None``.
        entries: the commit's verified recursive tree listing.
        client: the HTTP client.
    """

    def __init__(self, repository: str, commit: str, resolved_from: str | None,
                 entries: list[TreeEntry], client: HttpClient) -> None:
        super().__init__()
        self.repository = repository
        self.commit = commit
        self.resolved_from = resolved_from
        self.client = client
        self.entries = {e.path: e for e in entries}
        self.objects: dict[str, bytes] = {}
        self._last: dict[str, tuple[str, str] | None] = {}
        self._commits: dict[str, bytes] = {}
        self._trees: dict[str, dict[str, tuple[str, str]]] = {}

    @classmethod
    def open(cls, repository: str, rev: str, options: FetchOptions,
             client: HttpClient | None = None) -> HttpTree:
        """Resolve ``rev`` and fetch and verify the commit's tree listing.

        Raises:
            SourceError: the commit does not exist, the listing is truncated or does not
                hash to the commit's tree id, or any transport failure.
        """
        check_rev(rev)
        client = client or HttpClient(options)
        api = f"{options.api_base_url}/repos/{repository}"
        info = client.json(f"{api}/commits/{quote(rev, safe='')}", f"{repository}@{rev}")
        if info is None:
            raise SourceError(f"{repository}@{rev}: commit not found at {options.api_base_url} "
                              "(no such commit, branch or tag)")
        try:
            commit = str(info["sha"])
            tree_sha = str(info["commit"]["tree"]["sha"])
        except (KeyError, TypeError) as exc:
            raise SourceError(f"{repository}@{rev}: malformed commit answer from the API") from exc
        if not FULL_COMMIT.match(commit) or (FULL_COMMIT.match(rev) and commit != rev):
            raise SourceError(f"{repository}@{rev}: the API answered with commit {commit!r}")
        raw_commit = verify_commit(client.json(f"{api}/git/commits/{commit}",
                                               f"{repository}@{commit} object"),
                                   commit, tree_sha)
        listing = client.json(f"{api}/git/trees/{tree_sha}?recursive=1",
                              f"{repository}@{commit} tree")
        if listing is None:
            raise SourceError(f"{repository}@{commit}: tree {tree_sha} not found")
        if listing.get("truncated"):
            raise SourceError(f"{repository}@{commit}: the API truncated the tree listing; "
                              "use --backend git for a repository this large")
        try:
            entries = [TreeEntry(e["path"], e["mode"], e["type"], e["sha"])
                       for e in listing["tree"]]
        except (KeyError, TypeError) as exc:
            raise SourceError(f"{repository}@{commit}: malformed tree listing") from exc
        trees = tree_objects(entries, tree_sha)
        if trees is None:
            raise SourceError(f"{repository}@{commit}: the tree listing does not hash to the "
                              f"commit's tree {tree_sha}; refusing it")
        made = cls(repository, commit, None if FULL_COMMIT.match(rev) else rev, entries,
                   client)
        made.objects = {"": raw_commit} | {f"{k}/": v for k, v in trees.items()}
        return made

    def object_chain(self, path: str) -> list[bytes]:
        """Raw git objects that tie ``path`` to the commit id: the commit, every tree from
        the root down to the file's folder, and the last commit touching the path."""
        parts = path.split("/")[:-1]
        chain = [self.objects[""], self.objects["/"]]
        chain += [self.objects["/".join(parts[:i + 1]) + "/"] for i in range(len(parts))]
        last = self.last_commit(path)
        if last is not None:
            chain.append(self._commit_object(last[0], f"{self.label}:{path} last commit"))
        return chain

    def _commit_object(self, commit: str, what: str) -> bytes:
        """The raw object of ``commit``, rebuilt from the API and checked to hash to it."""
        if commit not in self._commits:
            api = f"{self.client.options.api_base_url}/repos/{self.repository}"
            self._commits[commit] = verify_commit(
                self.client.json(f"{api}/git/commits/{commit}", what), commit, None)
        return self._commits[commit]

    def _entry_in(self, tree: str, path: str, what: str) -> tuple[str, str] | None:
        """``(mode, object id)`` of ``path`` in the root tree ``tree`` (``None``: absent),
        from its recursive listing checked to hash to ``tree``."""
        if tree not in self._trees:
            api = f"{self.client.options.api_base_url}/repos/{self.repository}"
            listing = self.client.json(f"{api}/git/trees/{tree}?recursive=1", what)
            try:
                entries = [TreeEntry(e["path"], e["mode"], e["type"], e["sha"])
                           for e in listing["tree"]]
            except (KeyError, TypeError) as exc:
                raise SourceError(f"{what}: malformed tree listing of {tree}") from exc
            if listing.get("truncated") or tree_objects(entries, tree) is None:
                raise SourceError(f"{what}: the listing of tree {tree} is truncated or does "
                                  "not hash to it; the claim cannot be checked")
            self._trees[tree] = {e.path: (e.mode, e.sha) for e in entries}
        return self._trees[tree].get(path)

    def _prove_last(self, path: str, commit: str, date: str) -> None:
        """Check the API's claim that ``commit`` (of committer date ``date``) last touched
        ``path``: its object hashes to its id and states that date, it holds the file this
        commit holds, and it changed the file against every parent (a root commit added
        it), which the verified trees of both show.

        Raises:
            SourceError: the claim is not proven, naming what disagrees.
        """
        what = f"{self.label}:{path} last commit {commit}"
        claim = f"{path}: the API names {commit} as the last commit touching it at " \
                f"{self.commit}, but "
        if not FULL_COMMIT.match(commit):
            raise SourceError(claim + "that is not a full commit id; not claimed")
        tree, parents, stated = commit_links(self._commit_object(commit, what))
        if stated != date:
            raise SourceError(claim + f"its commit object states committer date {stated}, "
                              f"not {date}; not claimed")
        here = self.entries.get(path)
        want = (here.mode, here.sha) if here is not None else None
        there = self._entry_in(tree, path, what)
        if there != want:
            raise SourceError(claim + f"the file there is {_entry_text(there)}, not "
                              f"{_entry_text(want)} as here; not claimed")
        for parent in parents:
            parent_tree = commit_links(self._commit_object(parent, what))[0]
            if self._entry_in(parent_tree, path, what) == there:
                raise SourceError(claim + f"it did not change the file: its parent {parent} "
                                  f"holds the same {_entry_text(there)}; not claimed")

    def _blob(self, path: str) -> TreeEntry:
        check_path(path, typed=False)
        entry = self.entries.get(path)
        if entry is not None and entry.type == "commit":
            raise SourceError(f"{path}: is a submodule entry (gitlink to commit {entry.sha}) "
                              f"in commit {self.commit}, not a file; not read")
        if entry is None or entry.type != "blob":
            raise FileNotFoundError(f"{path}: not in {self.repository} at commit {self.commit} "
                                    "(the commit exists; the path does not)")
        if entry.mode not in _REGULAR_MODES:
            raise SourceError(f"{path}: mode {entry.mode} in commit {self.commit} (symbolic "
                              "link or submodule); not followed")
        return entry

    def raw_url(self, path: str) -> str:
        """``{raw}/{owner}/{repo}/{commit}/{path}`` with the path percent-encoded."""
        return (f"{self.client.options.raw_base_url}/{self.repository}/{self.commit}/"
                f"{quote(path, safe='/')}")

    def read(self, path: str) -> bytes:
        """Raw bytes of ``path`` at the commit, verified against the tree entry.

        Raises:
            FileNotFoundError: the path is not in the commit.
            SourceError: transport failure, or the raw server lacks a listed file.
            VerificationError: PROV001, the body does not hash to the tree entry.
        """
        entry = self._blob(path)
        url = self.raw_url(path)
        resp = self.client.get(url, f"{self.label}:{path}")
        if resp.status_code in (404, 422):
            raise SourceError(f"{path}: the raw server has no such file at {self.commit} "
                              f"although the commit's tree lists it ({redact_url(url)})")
        data = resp.content
        check_blob(path, data, entry.sha, redact_url(url))
        return data

    def exists(self, path: str) -> bool:
        """Whether ``path`` is a regular file in the commit."""
        entry = self.entries.get(path)
        return entry is not None and entry.type == "blob" and entry.mode in _REGULAR_MODES

    def not_files(self, prefix: str) -> list[str]:
        """Entries under folder ``prefix`` that :meth:`list` leaves out because they are
        no regular file (symbolic links, submodule entries), sorted."""
        base = prefix.strip("/")
        return sorted(p for p, e in self.entries.items() if e.type != "tree"
                      and not self.exists(p) and (not base or p.startswith(base + "/")))

    def gitlinks(self, prefix: str) -> list[str]:
        """Submodule entries (gitlinks) under folder ``prefix``, sorted."""
        base = prefix.strip("/")
        return sorted(p for p, e in self.entries.items() if e.type == "commit"
                      and (not base or p.startswith(base + "/")))

    def list(self, prefix: str) -> list[str]:
        """Regular files under folder ``prefix`` (recursive, sorted)."""
        base = prefix.strip("/")
        return sorted(p for p in self.entries
                      if self.exists(p) and (not base or p.startswith(base + "/")))

    def last_commit(self, path: str) -> tuple[str, str] | None:
        """``(commit id, committer date UTC)`` of the last commit touching ``path`` at or
        before this commit, from the API's ``commits?sha=&path=`` list."""
        if path not in self._last:
            api = f"{self.client.options.api_base_url}/repos/{self.repository}"
            url = f"{api}/commits?sha={self.commit}&path={quote(path, safe='')}&per_page=1"
            found = self.client.json(url, f"{self.label}:{path} history")
            try:
                first = found[0] if found else None
                last = (str(first["sha"]), utc_iso(first["commit"]["committer"]["date"])
                        ) if first else None
            except (KeyError, TypeError, ValueError) as exc:
                raise SourceError(f"{path}: malformed commit list from the API") from exc
            if last is not None:
                self._prove_last(path, *last)
            self._last[path] = last
        return self._last[path]

    def provenance(self, path: str, data: bytes) -> Provenance:
        """Digests of ``data`` verified against the tree entry, with repository, commit,
        resolved-from, last commit and the raw URL.

        Raises:
            VerificationError: PROV001 (blob id) or PROV002 (expected SHA-256).
        """
        entry = self._blob(path)
        prov = check_blob(path, data, entry.sha, self.label)
        last = self.last_commit(path)
        prov = replace(prov, repository=self.repository, commit=self.commit,
                       resolved_from=self.resolved_from,
                       last_commit=last[0] if last else None,
                       last_commit_date=last[1] if last else None,
                       fetched_from=redact_url(self.raw_url(path)))
        self.check_expected(prov)
        return prov


def _entry_text(entry: tuple[str, str] | None) -> str:
    return "absent" if entry is None else f"blob {entry[1]} (mode {entry[0]})"
