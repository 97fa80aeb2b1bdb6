"""A GitHub-shaped HTTP server on 127.0.0.1 serving one real git repository, with faults.

Serves, from the repository's objects (via the ``git`` command):

* ``/raw/{owner}/{repo}/{commit}/{path}`` — raw bytes (raw.githubusercontent.com shape);
* ``/api/repos/{owner}/{repo}/commits/{rev}`` — commit with tree id and committer date;
* ``/api/repos/{owner}/{repo}/git/trees/{tree}?recursive=1`` — recursive tree listing;
* ``/api/repos/{owner}/{repo}/commits?sha=&path=&per_page=1`` — last commit on a path.

Faults are queued with :meth:`GitHubServer.fail` and consumed by matching requests.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import threading
import time
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import parse_qs, unquote, urlsplit

RATE_RESET = 1_900_000_000  # 2030-03-17T17:46:40Z


@dataclass
class Fault:
    """``kind`` applied to the next ``times`` requests whose path starts with ``prefix``."""

    prefix: str
    kind: str
    times: int
    delay: float = 0.0
    old: bytes = b""
    new: bytes = b""
    sent: int = 0
    """Body bytes the hostile kinds ``huge`` and ``trickle`` wrote (socket buffers took
    them; the client may have read fewer): what a test bounds instead of wall time."""
    answered: int = 0
    """Requests this fault answered."""


class GitHubServer:
    """Context manager running the server in a thread; ``raw_base``/``api_base`` are the
    base URLs to configure. ``requests`` records ``(path, Authorization header)``."""

    def __init__(self, repo: Path, repository: str = "vllm-project/recipes") -> None:
        self.repo = repo
        self.repository = repository
        self.faults: list[Fault] = []
        self.requests: list[tuple[str, str | None]] = []
        self._lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,),
                                       daemon=True)

    @property
    def base(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def raw_base(self) -> str:
        """Raw-content base URL."""
        return self.base + "/raw"

    @property
    def api_base(self) -> str:
        """API base URL."""
        return self.base + "/api"

    def fail(self, prefix: str, kind: str, times: int = 1, delay: float = 0.0,
             old: bytes = b"", new: bytes = b"") -> Fault:
        """Queue a fault for requests under ``prefix`` (``/raw``, ``/api/...``; ending in
        ``$``: for that path only).

        Hostile kinds: ``replace`` (``old`` -> ``new`` in the body), ``extra-entry`` (a
        tree listing gains ``new`` as a blob path under a folder it does not list),
        ``redirect`` (302 to ``new`` + the path), ``huge`` (an endless body of zeros,
        announced as 1 GiB, or chunked when ``old == b"chunked"``), ``gzip-bomb``
        (256 MiB of zeros gzip-compressed), ``trickle`` (one byte per ``delay`` s),
        ``silent`` (no answer for ``delay`` s, then the connection closes), ``body`` (200
        with ``new`` as a JSON body). ``rate403`` (``old``: its ``X-RateLimit-Reset``,
        ``new``: a ``Retry-After``) and ``rate429`` (``new``: its ``Retry-After``) answer a
        rate limit. Returns the fault, which counts what it did.
        """
        fault = Fault(prefix, kind, times, delay, old, new)
        with self._lock:
            self.faults.append(fault)
        return fault

    def take_fault(self, path: str) -> Fault | None:
        """The first queued fault matching ``path`` (consumed), or ``None``."""
        with self._lock:
            for f in self.faults:
                exact = f.prefix.endswith("$")
                if f.times > 0 and (path == f.prefix[:-1] if exact
                                    else path.startswith(f.prefix)):
                    f.times -= 1
                    return f
        return None

    def __enter__(self) -> GitHubServer:
        self.thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # --- git answers -------------------------------------------------------------------

    def git(self, *args: str) -> bytes | None:
        """stdout of a git command in the repository, ``None`` when it fails."""
        proc = subprocess.run(["git", "-C", str(self.repo), *args], capture_output=True,
                              check=False)
        return proc.stdout if proc.returncode == 0 else None

    def answer(self, path: str, query: dict[str, list[str]]) -> tuple[int, bytes, str]:
        """``(status, body, content type)`` for a request without faults."""
        prefix_raw = f"/raw/{self.repository}/"
        prefix_api = f"/api/repos/{self.repository}/"
        if path.startswith(prefix_raw):
            commit, _, file_path = path[len(prefix_raw):].partition("/")
            data = self.git("cat-file", "blob", f"{commit}:{unquote(file_path)}")
            if data is None:
                return 404, b"404: Not Found", "text/plain"
            return 200, data, "text/plain; charset=utf-8"
        if not path.startswith(prefix_api):
            return 404, b'{"message": "Not Found"}', "application/json"
        rest = path[len(prefix_api):]
        if rest.startswith("commits/"):
            rev = unquote(rest[len("commits/"):])
            out = self.git("log", "-1", "--format=%H %T %cI", f"{rev}^{{commit}}", "--")
            if out is None:
                status = 422 if all(c in "0123456789abcdef" for c in rev) else 404
                return status, b'{"message": "No commit found for SHA"}', "application/json"
            sha, tree, date = out.decode().split()
            body = {"sha": sha, "commit": {"tree": {"sha": tree},
                                           "committer": {"date": _utc(date)}}}
            return 200, json.dumps(body).encode(), "application/json"
        if rest.startswith("git/commits/"):
            raw = self.git("cat-file", "commit", rest[len("git/commits/"):])
            if raw is None:
                return 404, b'{"message": "Not Found"}', "application/json"
            return 200, json.dumps(commit_answer(raw)).encode(), "application/json"
        if rest.startswith("git/trees/"):
            tree = rest[len("git/trees/"):]
            out = self.git("ls-tree", "-r", "-t", "-z", tree)
            if out is None:
                return 404, b'{"message": "Not Found"}', "application/json"
            entries = []
            for item in out.decode().split("\0"):
                if not item:
                    continue
                meta, name = item.split("\t", 1)
                mode, kind, sha = meta.split()
                entries.append({"path": name, "mode": mode, "type": kind, "sha": sha})
            listing = {"sha": tree, "tree": entries, "truncated": False}
            return 200, json.dumps(listing).encode(), "application/json"
        if rest == "commits":
            sha, file_path = query.get("sha", [""])[0], query.get("path", [""])[0]
            out = self.git("log", "-1", "--format=%H %cI", sha, "--", file_path)
            if out is None:
                return 404, b'{"message": "Not Found"}', "application/json"
            found = []
            if out.strip():
                h, d = out.decode().split()
                found = [{"sha": h, "commit": {"committer": {"date": _utc(d)}}}]
            return 200, json.dumps(found).encode(), "application/json"
        return 404, b'{"message": "Not Found"}', "application/json"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: object) -> None:
                pass

            def send(self, status: int, body: bytes, ctype: str,
                     headers: dict[str, str] | None = None, length: int | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body) if length is None else length))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    self.wfile.write(body)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_GET(self) -> None:
                url = urlsplit(self.path)
                server.requests.append((url.path, self.headers.get("Authorization")))
                fault = server.take_fault(url.path)
                kind = fault.kind if fault else ""
                if kind == "500":
                    self.send(500, b'{"message": "Server Error"}', "application/json")
                    return
                if kind == "rate403":
                    self.send(403, b'{"message": "API rate limit exceeded"}', "application/json",
                              {"X-RateLimit-Remaining": "0",
                               "X-RateLimit-Reset": (fault.old.decode() if fault and fault.old
                                                     else str(RATE_RESET)),
                               **({"Retry-After": fault.new.decode()}
                                  if fault and fault.new else {})})
                    return
                if kind == "rate429":
                    self.send(429, b'{"message": "Too Many Requests"}', "application/json",
                              {"Retry-After": fault.new.decode()
                               if fault and fault.new else "60"})
                    return
                if kind == "404":
                    self.send(404, b"404: Not Found", "text/plain")
                    return
                if kind == "timeout" and fault is not None:
                    time.sleep(fault.delay)
                if fault is not None and self.hostile(fault, url.path):
                    return
                status, body, ctype = server.answer(url.path, parse_qs(url.query))
                if kind == "truncate":
                    self.send(status, body[: len(body) // 2], ctype, length=len(body))
                    self.close_connection = True
                    return
                if kind == "shorten":
                    body = body[:-10]
                elif kind == "alter":
                    body = body.replace(b"a", b"4", 1)
                elif kind == "rename":
                    body = body.replace(b'"taxonomy.yaml"', b'"taxonomy.yml"', 1)
                elif kind == "replace" and fault is not None:
                    body = body.replace(fault.old, fault.new)
                elif kind == "extra-entry" and fault is not None:
                    listing = json.loads(body)
                    listing["tree"].append({"path": fault.new.decode(), "mode": "100644",
                                            "type": "blob", "sha": "1" * 40})
                    body = json.dumps(listing).encode()
                self.send(status, body, ctype)

            def hostile(self, fault: Fault, path: str) -> bool:
                """Answer with a hostile behaviour; ``False`` for the body-editing kinds."""
                fault.answered += 1
                if fault.kind == "redirect":
                    self.send(302, b"", "text/plain",
                              {"Location": fault.new.decode() + path})
                elif fault.kind == "huge":
                    chunked = fault.old == b"chunked"
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain")
                    if chunked:
                        self.send_header("Transfer-Encoding", "chunked")
                    else:
                        self.send_header("Content-Length", str(1 << 30))
                    self.end_headers()
                    block = b"0" * 65536
                    frame = b"%x\r\n%s\r\n" % (len(block), block) if chunked else block
                    try:
                        for _ in range((1 << 30) // len(block)):
                            self.wfile.write(frame)
                            fault.sent += len(block)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                    self.close_connection = True
                elif fault.kind == "gzip-bomb":
                    self.send(200, gzip_bomb(), "application/json",
                              {"Content-Encoding": "gzip"})
                elif fault.kind == "trickle":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain")
                    self.send_header("Content-Length", "15000")
                    self.end_headers()
                    try:
                        for _ in range(15000):
                            self.wfile.write(b"a")
                            self.wfile.flush()
                            fault.sent += 1
                            time.sleep(fault.delay)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                    self.close_connection = True
                elif fault.kind == "body":
                    self.send(200, fault.new, "application/json")
                elif fault.kind == "silent":
                    time.sleep(fault.delay)
                    self.close_connection = True
                else:
                    return False
                return True

        return Handler


def _utc(date: str) -> str:
    return datetime.fromisoformat(date).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _person(value: bytes) -> dict[str, str]:
    """``{"name", "email", "date"}`` of an author/committer header, date in UTC with ``Z``
    (as GitHub's git data API writes it)."""
    text = value.decode()
    name, _, rest = text.partition(" <")
    email, _, stamp_zone = rest.partition("> ")
    stamp = stamp_zone.split()[0]
    date = datetime.fromtimestamp(int(stamp), tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"name": name, "email": email, "date": date}


def commit_answer(raw: bytes) -> dict[str, object]:
    """GitHub's ``git/commits/{sha}`` answer for a raw commit object."""
    head, _, message = raw.partition(b"\n\n")
    headers: list[tuple[bytes, bytes]] = []
    for line in head.split(b"\n"):
        if line.startswith(b" ") and headers:
            headers[-1] = (headers[-1][0], headers[-1][1] + b"\n" + line[1:])
        else:
            key, _, value = line.partition(b" ")
            headers.append((key, value))
    fields = dict(headers)
    verification: dict[str, object] = {"verified": False, "reason": "unsigned",
                                        "signature": None, "payload": None}
    if b"gpgsig" in fields:
        unsigned = b"\n".join(k + b" " + v.replace(b"\n", b"\n ") for k, v in headers
                               if k != b"gpgsig") + b"\n\n" + message
        verification = {"verified": False, "reason": "unknown_key",
                        "signature": fields[b"gpgsig"].decode() + "\n",
                        "payload": unsigned.decode()}
    return {"sha": hashlib.sha1(f"commit {len(raw)}".encode() + b"\0" + raw).hexdigest(),
            "tree": {"sha": fields[b"tree"].decode()},
            "parents": [{"sha": v.decode()} for k, v in headers if k == b"parent"],
            "author": _person(fields[b"author"]), "committer": _person(fields[b"committer"]),
            "message": message.decode(), "verification": verification}


_BOMB: list[bytes] = []


def gzip_bomb() -> bytes:
    """256 MiB of zeros as 16 gzip members of 16 MiB each (about 250 KB), made once."""
    if not _BOMB:
        comp = zlib.compressobj(1, zlib.DEFLATED, 31)
        member = comp.compress(bytes(16 << 20)) + comp.flush()
        _BOMB.append(member * 16)
    return _BOMB[0]
