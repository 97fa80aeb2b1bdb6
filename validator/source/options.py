"""How pinned sources are fetched: backend, URLs, cache and snapshot folders, token.

One :class:`FetchOptions` is built per run from the command line and the environment
(:func:`fetch_options_from`) and handed to :func:`validator.source.targets.open_spec`.
``add_fetch_arguments`` adds the shared options to any subcommand that takes specs
(``check``, ``fetch``).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from validator.paths import default_store_dir, option_path
from validator.source.roots import default_cache_dir as default_cache_dir  # re-exported
from validator.source.tree import SourceError

GIT_URL_ENV = "RECIPE_CHECK_GIT_URL"
"""Environment variable: where to clone ``OWNER/REPO`` from (same as ``--git-url``)."""

TOKEN_ENV = "GITHUB_TOKEN"
"""Environment variable holding the GitHub token the HTTP backend sends (never printed)."""

DEFAULT_RAW_BASE = "https://raw.githubusercontent.com"
DEFAULT_API_BASE = "https://api.github.com"

DEFAULT_STORE_DIR = default_store_dir()
"""The store of verified recipe snapshots when the process started
(:func:`validator.paths.default_store_dir`; the command line reads it again per run)."""


CACHE_DIR_HELP = ("cache folder: git clones of pinned sources, check results, the history "
                  "audit's results (default $XDG_CACHE_HOME/recipe-check)")
"""``--cache-dir``'s help, the same in every command that takes it."""


def add_store_dir(parser: argparse._ActionsContainer, what: str) -> None:
    """``--store-dir DIR`` (the snapshot store) on ``parser`` (a parser or an argument
    group), and its old spelling ``--snapshot-dir``, accepted but not shown in --help."""
    detail = f"{what}; " if what else ""
    parser.add_argument("--store-dir", type=option_path, default=None, metavar="DIR",
                        help=f"snapshot store of verified recipes ({detail}default: "
                             "$RECIPE_CHECK_STORE, else "
                             "$XDG_DATA_HOME/recipe-check/snapshots/recipes)")
    parser.add_argument("--snapshot-dir", dest="store_dir", type=option_path,
                        help=argparse.SUPPRESS)


MAX_RESPONSE_BYTES = 32 * 1024 * 1024
"""Largest HTTP response body, after decompression: 32 MiB (GitHub caps a recursive tree
listing at 7 MB; recipes are tens of KiB)."""
REQUEST_DEADLINE = 120.0
"""Seconds one HTTP request may take in all (connection, retries, backoff, body), at most."""
REQUEST_DEADLINE_PER_TIMEOUT = 4
"""One request's deadline in read timeouts (``--http-timeout``): the default 30 s gives
:data:`REQUEST_DEADLINE`; a shorter timeout stops a server that trickles its answer (one
byte within each read timeout) sooner too."""
COMMAND_DEADLINE = 1800.0
"""Seconds all HTTP requests of one command may take together."""


GIT_SCHEMES = ("https", "http", "ssh", "git", "file")
"""URL schemes ``--git-url`` may use; git's remote-helper transports (``ext::``, ``fd::``,
any ``<name>::``) run programs and are refused."""
_HELPER = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)::")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def check_git_url(url: str) -> str:
    """``url`` if git may clone from it: an ``https``/``http``/``ssh``/``git``/``file`` URL,
    ``user@host:path``, or a folder.

    Raises:
        SourceError: a remote-helper transport (``ext::``, ``fd::`` ...), another scheme,
            or an option-like value (leading ``-``).
    """
    helper = _HELPER.match(url)
    if helper:
        raise SourceError(f"--git-url {url!r}: git's '{helper.group(1)}::' transport runs "
                          "programs and is refused; give an https, ssh or file:// URL or a "
                          "folder")
    scheme = _SCHEME.match(url)
    if scheme and scheme.group(1).lower() not in GIT_SCHEMES:
        raise SourceError(f"--git-url {url!r}: scheme '{scheme.group(1)}' is not one of "
                          f"{', '.join(GIT_SCHEMES)}")
    if url.startswith("-"):
        raise SourceError(f"--git-url {url!r}: must not start with '-'")
    return url


@dataclass(frozen=True)
class FetchOptions:
    """Settings of the git and HTTP backends and the snapshot store.

    Attributes:
        backend: ``"git"`` (default) or ``"http"``.
        git_url: clone ``OWNER/REPO`` from here instead of
            ``https://github.com/OWNER/REPO.git`` (https or ``file://`` URL, or a local
            folder); ``{owner}`` and ``{repo}`` placeholders are filled in.
        cache_dir: folder for git clones (default :func:`default_cache_dir`).
        raw_base_url: raw-content server (``{raw}/{owner}/{repo}/{commit}/{path}``).
        api_base_url: GitHub-shaped REST API root.
        store_dir: the verified snapshot store (objects + lock file).
        offline: read only from the snapshot store, never clone or download.
        token: GitHub token for the HTTP backend, from ``GITHUB_TOKEN``; excluded from
            ``repr`` so that it is never printed.
        timeout: HTTP (connect, read) timeout in seconds.
        retries: HTTP retries on connection errors, timeouts and 5xx answers.
        backoff: urllib3 backoff factor in seconds (sleep ``backoff * 2**(n-1)``).
        expect_sha256: the SHA-256 the (single) fetched document must have, or ``None``.
        max_response_bytes: most bytes one HTTP response body may have, counted after
            decompression while it streams (:data:`MAX_RESPONSE_BYTES`).
        request_deadline: seconds one HTTP request may take in all, retries and body
            included (:data:`REQUEST_DEADLINE`).
        command_deadline: seconds all HTTP requests of one command may take, counted from
            ``started`` (:data:`COMMAND_DEADLINE`).
        started: :func:`time.monotonic` when the options were made (the command's start).
    """

    backend: str = "git"
    git_url: str | None = None
    cache_dir: Path = field(default_factory=default_cache_dir)
    raw_base_url: str = DEFAULT_RAW_BASE
    api_base_url: str = DEFAULT_API_BASE
    store_dir: Path = DEFAULT_STORE_DIR
    offline: bool = False
    token: str | None = field(default=None, repr=False)
    timeout: tuple[float, float] = (10.0, 30.0)
    retries: int = 4
    backoff: float = 0.5
    expect_sha256: str | None = None
    max_response_bytes: int = MAX_RESPONSE_BYTES
    request_deadline: float = REQUEST_DEADLINE
    command_deadline: float = COMMAND_DEADLINE
    started: float = field(default_factory=time.monotonic, compare=False)

    def clone_url(self, repository: str) -> str:
        """URL or folder to clone ``repository`` (``owner/name``) from."""
        owner, _, name = repository.partition("/")
        if self.git_url:
            url = check_git_url(self.git_url.replace("{owner}", owner).replace("{repo}", name))
            if "://" not in url and not url.startswith("git@"):
                return str(Path(url).expanduser().resolve())
            return url
        return f"https://github.com/{owner}/{name}.git"


def sha256_digest(text: str) -> str:
    """argparse type of ``--expect-sha256``: 64 hex digits, returned in lower case (a
    usage error otherwise, exit 2: a digest that can match nothing is a typo)."""
    value = text.strip().lower()
    if len(value) != 64 or any(ch not in "0123456789abcdef" for ch in value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a SHA-256 (64 hex digits)")
    return value


def http_timeout(text: str) -> float:
    """argparse type of ``--http-timeout``: seconds, finite, above 0 and at most
    :data:`COMMAND_DEADLINE` (a usage error otherwise, exit 2)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds above 0, "
                                         f"got {text!r}")
    if value > COMMAND_DEADLINE:
        raise argparse.ArgumentTypeError(f"must be at most {COMMAND_DEADLINE:g} s (all HTTP "
                                         f"requests of one command stop there), got {text!r}")
    return value


def add_fetch_arguments(parser: argparse.ArgumentParser, *, offline: bool = True) -> None:
    """Add the backend, URL, cache and snapshot options to ``parser``.

    ``offline=False`` leaves out ``--offline`` (for commands that define it themselves).
    """
    group = parser.add_argument_group("pinned sources (OWNER/REPO@REV:PATH)")
    group.add_argument("--backend", choices=["git", "http"], default="git",
                       help="fetch pinned revisions with git (default) or over HTTP")
    group.add_argument("--git-url", metavar="URL",
                       help=f"clone OWNER/REPO from this URL or folder (env {GIT_URL_ENV})")
    group.add_argument("--cache-dir", type=option_path, metavar="DIR",
                       help=CACHE_DIR_HELP)
    group.add_argument("--raw-base-url", metavar="URL", default=DEFAULT_RAW_BASE,
                       help=f"raw content server for --backend http (default {DEFAULT_RAW_BASE})")
    group.add_argument("--api-base-url", metavar="URL", default=DEFAULT_API_BASE,
                       help=f"GitHub REST API root for --backend http (default {DEFAULT_API_BASE})")
    add_store_dir(group, "")
    group.add_argument("--expect-sha256", metavar="HEX", type=sha256_digest,
                       help="fail (PROV002) unless the document's SHA-256 is this")
    group.add_argument("--http-timeout", type=http_timeout, default=30.0, metavar="SECONDS",
                       help="HTTP read timeout; one request, retries and body included, "
                            f"stops after {REQUEST_DEADLINE_PER_TIMEOUT}x this, at most "
                            f"{REQUEST_DEADLINE:g} s (default 30)")
    if offline:
        group.add_argument("--offline", action="store_true",
                           help="no network: pinned sources are read from the snapshot "
                                "store only")


def fetch_options_from(args: argparse.Namespace) -> FetchOptions:
    """The :class:`FetchOptions` an argument namespace and the environment describe.

    ``--git-url`` wins over ``RECIPE_CHECK_GIT_URL``; ``GITHUB_TOKEN`` is read here.
    """
    git_url = getattr(args, "git_url", None) or os.environ.get(GIT_URL_ENV) or None
    expect = getattr(args, "expect_sha256", None)
    read_timeout = float(getattr(args, "http_timeout", 30.0))
    return FetchOptions(
        backend=getattr(args, "backend", "git") or "git",
        git_url=git_url,
        cache_dir=getattr(args, "cache_dir", None) or default_cache_dir(),
        raw_base_url=(getattr(args, "raw_base_url", None) or DEFAULT_RAW_BASE).rstrip("/"),
        api_base_url=(getattr(args, "api_base_url", None) or DEFAULT_API_BASE).rstrip("/"),
        store_dir=getattr(args, "store_dir", None) or default_store_dir(),
        offline=bool(getattr(args, "offline", False)),
        token=os.environ.get(TOKEN_ENV) or None,
        timeout=(min(10.0, read_timeout), read_timeout),
        request_deadline=min(REQUEST_DEADLINE, REQUEST_DEADLINE_PER_TIMEOUT * read_timeout),
        expect_sha256=expect.lower() if isinstance(expect, str) else None,
    )
