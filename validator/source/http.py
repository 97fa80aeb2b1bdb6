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
  last commit touching the path at or before the commit, with its committer date.

Transport: one :class:`requests.Session` with a urllib3 :class:`~urllib3.util.Retry`
(retries with exponential backoff on connection errors, read timeouts and 500/502/503/504),
(connect, read) timeouts on every request, ``Authorization: Bearer $GITHUB_TOKEN`` when set
(the token is never put in a URL or a message). 403/429 answers that are rate limiting
(``X-RateLimit-Remaining: 0`` or 429) are reported with the reset time from
``X-RateLimit-Reset`` / ``Retry-After``; a body shorter than its ``Content-Length`` is
reported as a short body.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3 import exceptions as urllib3_exceptions
from urllib3.util.retry import Retry

from validator import __version__
from validator.source.git import redact_url, utc_iso
from validator.source.options import FetchOptions
from validator.source.provenance import Provenance
from validator.source.spec import FULL_COMMIT, check_path, check_rev
from validator.source.tree import SourceError
from validator.source.verify import PinnedTree, check_blob

_REGULAR_MODES = ("100644", "100755")
_CHUNK = 16 * 1024
MAX_REDIRECTS = 5
"""Redirects followed per request (each to the same scheme and host only)."""
_RETRY_STATUS = (500, 502, 503, 504)


class DeadlinePassed(Exception):
    """Raised between retries when the next attempt would end past the deadline."""


class DeadlineRetry(Retry):
    """urllib3 :class:`Retry` that stops retrying when the next attempt (backoff plus one
    read timeout) would end after :attr:`deadline` (a :func:`time.monotonic` time)."""

    deadline: float = float("inf")
    attempt: float = 0.0

    def new(self, **kw: Any) -> DeadlineRetry:
        """A copy with the same deadline (urllib3 makes one per attempt)."""
        made = super().new(**kw)
        made.deadline, made.attempt = self.deadline, self.attempt
        return made

    def sleep(self, response: Any = None) -> None:
        """Back off, unless the deadline leaves no room for another attempt."""
        if time.monotonic() + self.get_backoff_time() + self.attempt > self.deadline:
            raise DeadlinePassed()
        super().sleep(response)


def make_retry(options: FetchOptions, deadline: float = float("inf")) -> DeadlineRetry:
    """The retry policy of :func:`make_session`, bounded by ``deadline``."""
    retry = DeadlineRetry(total=options.retries, connect=options.retries, read=options.retries,
                          status=options.retries, other=0, redirect=0,
                          backoff_factor=options.backoff, status_forcelist=_RETRY_STATUS,
                          allowed_methods=frozenset({"GET"}), raise_on_status=False,
                          raise_on_redirect=False, respect_retry_after_header=False)
    retry.deadline, retry.attempt = deadline, sum(options.timeout)
    return retry


def make_session(options: FetchOptions) -> requests.Session:
    """A session with retries, backoff, GitHub headers and the token (if any)."""
    session = requests.Session()
    adapter = HTTPAdapter(max_retries=make_retry(options))
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers.update({"User-Agent": f"recipe-check/{__version__}",
                            "Accept": "application/vnd.github+json",
                            "X-GitHub-Api-Version": "2022-11-28"})
    if options.token:
        session.headers["Authorization"] = f"Bearer {options.token}"
    return session


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


def _reset_time(resp: requests.Response) -> str:
    reset = resp.headers.get("X-RateLimit-Reset")
    if reset and reset.isdigit():
        when = datetime.fromtimestamp(int(reset), tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return f"until {when} (X-RateLimit-Reset)"
    after = resp.headers.get("Retry-After")
    if after:
        return f"for {after} s (Retry-After)"
    return "for an unspecified time"


class HttpClient:
    """GET with retries and clear errors (see the module docstring).

    Args:
        options: timeouts, retries, backoff and token.
    """

    def __init__(self, options: FetchOptions) -> None:
        self.options = options
        self.session = make_session(options)
        self.command_deadline = options.started + options.command_deadline

    def get(self, url: str, what: str) -> requests.Response:
        """The response to ``GET url`` with its body read, unless it is a 404/422 (the
        caller says what is missing) — every other failure raises.

        Redirects are followed only to the same scheme and host (at most
        :data:`MAX_REDIRECTS`); the body is streamed and refused past
        ``options.max_response_bytes`` (counted after decompression); the whole request,
        retries and body included, ends by ``options.request_deadline`` and by the
        command's deadline.

        Raises:
            SourceError: connection failure or timeout after retries, 5xx after retries,
                rate limiting (with the reset time), 401/403, a short body, a redirect to
                another host, a body too large, a deadline passed, any other unexpected
                status.
        """
        deadline = min(time.monotonic() + self.options.request_deadline, self.command_deadline)
        for _ in range(MAX_REDIRECTS + 1):
            resp = self._get_once(url, what, deadline)
            if resp.status_code not in (301, 302, 303, 307, 308):
                break
            target = urljoin(url, resp.headers.get("Location", ""))
            resp.close()
            if _origin(target) != _origin(url):
                raise SourceError(f"{what}: {redact_url(url)} redirected to another host "
                                  f"({redact_url(target)}); refused, since its bytes could "
                                  "not be tied to the commit asked for")
            url = target
        else:
            raise SourceError(f"{what}: more than {MAX_REDIRECTS} redirects from "
                              f"{redact_url(url)}")
        return self._check_status(resp, url, what, deadline)

    def _limit_text(self, deadline: float) -> str:
        if deadline >= self.command_deadline:
            return f"the command's deadline of {self.options.command_deadline:g} s"
        return f"the request deadline of {self.options.request_deadline:g} s"

    def _get_once(self, url: str, what: str, deadline: float) -> requests.Response:
        shown = redact_url(url)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise SourceError(f"{what}: GET {shown} not sent: {self._limit_text(deadline)} "
                              "has passed")
        for adapter in self.session.adapters.values():
            if isinstance(adapter, HTTPAdapter):
                adapter.max_retries = make_retry(self.options, deadline)
        connect, read = self.options.timeout
        timeout = (min(connect, remaining), min(read, remaining))
        try:
            return self.session.get(url, timeout=timeout, stream=True, allow_redirects=False)
        except DeadlinePassed as exc:
            raise SourceError(f"{what}: {shown} kept failing until "
                              f"{self._limit_text(deadline)} left no time to retry") from exc
        except requests.exceptions.RetryError as exc:
            raise SourceError(f"{what}: {shown} kept failing after {self.options.retries} "
                              "retries") from exc
        except requests.exceptions.Timeout as exc:
            raise SourceError(f"{what}: {shown} timed out (read timeout "
                              f"{self.options.timeout[1]} s)") from exc
        except requests.exceptions.ConnectionError as exc:
            kind = "timed out" if "timed out" in str(exc).lower() else "could not be reached"
            raise SourceError(f"{what}: {shown} {kind} after {self.options.retries} retries "
                              f"(timeout {self.options.timeout[1]} s)") from exc
        except requests.exceptions.RequestException as exc:
            raise SourceError(f"{what}: GET {shown} failed: {type(exc).__name__}") from exc

    def _read_body(self, resp: requests.Response, url: str, what: str,
                   deadline: float) -> bytes:
        """The body, decompressed, within the byte limit and the deadline."""
        shown, limit = redact_url(url), self.options.max_response_bytes
        chunks: list[bytes] = []
        size = 0
        try:
            while True:
                if time.monotonic() > deadline:
                    raise SourceError(f"{what}: {shown} was still sending after "
                                      f"{self._limit_text(deadline)} ({size} bytes so far); "
                                      "refused")
                chunk = resp.raw.read1(_CHUNK, decode_content=True)
                if not chunk:  # end of the body (urllib3 decodes at most _CHUNK at a time)
                    break
                size += len(chunk)
                if size > limit:
                    raise SourceError(f"{what}: {shown} sent more than {limit} bytes "
                                      "(after decompression), the limit for one response; "
                                      "refused")
                chunks.append(chunk)
        except (requests.exceptions.RequestException, urllib3_exceptions.HTTPError,
                OSError) as exc:
            if isinstance(exc, urllib3_exceptions.ProtocolError | urllib3_exceptions.
                          IncompleteRead):
                raise SourceError(f"{what}: short body from {shown}: the connection closed "
                                  f"before the announced length was received ({exc})") from exc
            if isinstance(exc, urllib3_exceptions.ReadTimeoutError | TimeoutError):
                raise SourceError(f"{what}: {shown} timed out while sending the body (read "
                                  f"timeout {self.options.timeout[1]} s)") from exc
            raise SourceError(f"{what}: reading the body of {shown} failed: "
                              f"{type(exc).__name__}: {exc}") from exc
        finally:
            resp.close()
        return b"".join(chunks)

    def _check_status(self, resp: requests.Response, url: str, what: str,
                      deadline: float) -> requests.Response:
        shown = redact_url(url)
        status = resp.status_code
        announced = resp.headers.get("Content-Length")
        if announced and announced.isdigit() and int(announced) > self.options.max_response_bytes:
            resp.close()
            raise SourceError(f"{what}: {shown} announces {announced} bytes, more than the "
                              f"limit of {self.options.max_response_bytes} for one response; "
                              "refused")
        resp._content = self._read_body(resp, url, what, deadline)
        if status in (404, 422):
            return resp
        if status == 429 or (status == 403 and resp.headers.get("X-RateLimit-Remaining") == "0"):
            raise SourceError(f"{what}: rate limited by {urlsplit(url).netloc} "
                              f"({status}) {_reset_time(resp)}; set GITHUB_TOKEN for a higher "
                              "limit or wait")
        if status in (401, 403):
            raise SourceError(f"{what}: {status} from {shown}: access denied (check "
                              "GITHUB_TOKEN and the repository's visibility)")
        if status >= 500:
            raise SourceError(f"{what}: {shown} answered {status} after "
                              f"{self.options.retries} retries")
        if status != 200:
            raise SourceError(f"{what}: unexpected {status} from {shown}")
        encoded = resp.headers.get("Content-Encoding", "identity") != "identity"
        if announced and announced.isdigit() and not encoded \
                and int(announced) != len(resp.content):
            raise SourceError(f"{what}: short body from {shown}: {len(resp.content)} of "
                              f"{announced} bytes")
        return resp

    def json(self, url: str, what: str) -> Any:
        """Decoded JSON of ``GET url``; ``None`` for 404/422.

        Raises:
            SourceError: as :meth:`get`, or the body is not JSON.
        """
        resp = self.get(url, what)
        if resp.status_code in (404, 422):
            return None
        try:
            return resp.json()
        except ValueError as exc:
            raise SourceError(f"{what}: {redact_url(url)} did not return JSON") from exc


@dataclass(frozen=True)
class TreeEntry:
    """One entry of a recursive tree listing."""

    path: str
    mode: str
    type: str
    sha: str


def _tree_sort_key(entry: TreeEntry) -> bytes:
    name = entry.path.rsplit("/", 1)[-1].encode()
    return name + b"/" if entry.type == "tree" else name


def tree_objects(entries: list[TreeEntry], root_tree: str) -> dict[str, bytes] | None:
    """Raw tree objects (folder -> ``tree <size>\\0`` + body, ``""`` the root) of the
    recursive ``entries``, or ``None`` unless they hash, tree by tree, to ``root_tree``.

    Each tree object is ``"<mode> <name>\\0<20-byte id>"`` per entry in git's order
    (names compared bytewise, a sub-tree as if its name ended in ``/``); its id is
    ``sha1("tree <size>\\0" + body)``. Source: git's object format (``git mktree``).
    An entry whose folder is not itself a listed tree, or a path listed twice, fails: it
    would be in no hashed tree object.
    """
    children: dict[str, list[TreeEntry]] = {"": []}
    folders = {""} | {e.path for e in entries if e.type == "tree"}
    if len({e.path for e in entries}) != len(entries):
        return None  # one path listed twice: which entry is the commit's?
    for e in entries:
        parent = e.path.rsplit("/", 1)[0] if "/" in e.path else ""
        if parent not in folders or not e.path.rsplit("/", 1)[-1]:
            return None  # an entry under a folder no tree object lists is not hashed
        children.setdefault(parent, []).append(e)
        if e.type == "tree":
            children.setdefault(e.path, [])
    computed: dict[str, str] = {}
    objects: dict[str, bytes] = {}
    for folder in sorted(children, key=lambda p: -p.count("/") - (1 if p else 0)):
        body = b""
        for e in sorted(children[folder], key=_tree_sort_key):
            sha = computed.get(e.path, e.sha) if e.type == "tree" else e.sha
            if e.type == "tree" and sha != e.sha:
                return None
            mode = "40000" if e.type == "tree" else e.mode
            try:
                oid = bytes.fromhex(sha)
            except ValueError:
                return None
            body += f"{mode} {e.path.rsplit('/', 1)[-1]}".encode() + b"\0" + oid
        obj = f"tree {len(body)}".encode() + b"\0" + body
        computed[folder] = hashlib.sha1(obj, usedforsecurity=False).hexdigest()
        objects[folder] = obj
    return objects if computed[""] == root_tree else None


def verify_listing(entries: list[TreeEntry], root_tree: str) -> bool:
    """Whether the recursive ``entries`` hash, tree by tree, to ``root_tree`` (see
    :func:`tree_objects`)."""
    return tree_objects(entries, root_tree) is not None


def _offsets(date: str) -> tuple[int, list[int]]:
    """``(Unix time, candidate UTC offsets in minutes)`` of an ISO 8601 date: its own
    offset when it has one, every offset in use (-12:00 to +14:00, quarter hours, UTC
    first) when it is written in UTC with ``Z`` as GitHub's API does."""
    when = datetime.fromisoformat(date.replace("Z", "+00:00"))
    stamp = int(when.timestamp())
    if date.endswith("Z"):
        return stamp, [0] + [m for m in range(-12 * 60, 14 * 60 + 1, 15) if m]
    offset = when.utcoffset()
    return stamp, [int(offset.total_seconds()) // 60 if offset else 0]


def _zone(minutes: int) -> str:
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}{abs(minutes) % 60:02d}"


def _git_object_id(kind: str, body: bytes) -> str:
    return hashlib.sha1(f"{kind} {len(body)}".encode() + b"\0" + body,
                        usedforsecurity=False).hexdigest()


def _with_signature(payload: bytes, signature: str) -> bytes:
    """A signed commit object: ``payload`` (the object without its signature, as
    GitHub's ``verification.payload`` gives it) with the ``gpgsig`` header git adds after
    the other headers."""
    head, sep, message = payload.partition(b"\n\n")
    sig = signature.rstrip("\n").replace("\n", "\n ")
    return head + b"\ngpgsig " + sig.encode() + sep + message if sep else payload


def verify_commit(info: Any, commit: str, tree: str | None) -> bytes:
    """The raw commit object (``commit <size>\\0`` + body) that GitHub's
    ``git/commits/{commit}`` answer describes, checked to hash to ``commit`` (git's
    object format) and, unless ``tree`` is ``None``, to name ``tree`` as its root tree.

    The object is rebuilt from the answer: the exact ``verification.payload`` for a
    signed commit (with its signature put back), else ``tree``, ``parent`` lines,
    ``author``/``committer`` with Unix time and UTC offset (tried across every offset
    when the API writes dates in UTC) and the message.

    Raises:
        SourceError: the answer is malformed, or no rebuilt object hashes to ``commit``.
    """
    try:
        named_tree = str(info["tree"]["sha"])
        parents = [str(p["sha"]) for p in info["parents"]]
        people = [(str(info[k]["name"]), str(info[k]["email"]), str(info[k]["date"]))
                  for k in ("author", "committer")]
        message = str(info["message"])
        verification = info.get("verification") or {}
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SourceError(f"commit {commit}: malformed git/commits answer from the API") from exc
    if tree is not None and named_tree != tree:
        raise SourceError(f"commit {commit}: the API names tree {tree} for it, but the commit "
                          f"object names tree {named_tree}; refusing both")
    payload, signature = verification.get("payload"), verification.get("signature")
    candidates: list[bytes] = []
    if isinstance(payload, str) and payload:
        body = payload.encode()
        if body.startswith(f"tree {named_tree}\n".encode()):
            candidates = [_with_signature(body, signature) if isinstance(signature, str)
                          else body]
    else:
        try:
            (a_stamp, a_zones), (c_stamp, c_zones) = (_offsets(p[2]) for p in people)
        except ValueError as exc:
            raise SourceError(f"commit {commit}: the API gave a date that is not ISO "
                              "8601") from exc
        head = f"tree {named_tree}\n" + "".join(f"parent {p}\n" for p in parents)
        a_name = f"author {people[0][0]} <{people[0][1]}> {a_stamp} "
        c_name = f"committer {people[1][0]} <{people[1][1]}> {c_stamp} "
        texts = [message] if message.endswith("\n") else [message + "\n", message]
        pairs = [(a, a) for a in a_zones if a in c_zones]
        pairs += [(a, c) for a in a_zones for c in c_zones if a != c]
        for a, c in pairs:
            start = f"{head}{a_name}{_zone(a)}\n{c_name}{_zone(c)}\n\n".encode()
            candidates += [start + t.encode() for t in texts]
    for body in candidates:
        if _git_object_id("commit", body) == commit:
            return f"commit {len(body)}".encode() + b"\0" + body
    raise SourceError(f"commit {commit}: the commit object the API describes does not hash "
                      "to that id (git's object format); refusing its tree. A commit with "
                      "extra headers (encoding, mergetag) cannot be rebuilt from the API: "
                      "use --backend git")


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
            api = f"{self.client.options.api_base_url}/repos/{self.repository}"
            chain.append(verify_commit(self.client.json(f"{api}/git/commits/{last[0]}",
                                                        f"{self.label}:{path} last commit"),
                                       last[0], None))
        return chain

    def _blob(self, path: str) -> TreeEntry:
        check_path(path)
        entry = self.entries.get(path)
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
                self._last[path] = (str(first["sha"]),
                                    utc_iso(first["commit"]["committer"]["date"])
                                    ) if first else None
            except (KeyError, TypeError, ValueError) as exc:
                raise SourceError(f"{path}: malformed commit list from the API") from exc
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
