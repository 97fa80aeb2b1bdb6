"""The vLLM release list: which versions of ``vllm`` are published, and when.

Two sources, one shape (:class:`ReleaseList`):

* **vendored** (the default): ``snapshots/vllm-releases.json``, whose SHA-256 is pinned in
  ``snapshots/vllm-releases.sha256`` (``sha256sum`` format) and verified on every load, so
  that checks are reproducible and work without a network;
* **online** (only when asked for, ``recipe-check check --online-releases``): PyPI's JSON
  API, ``https://pypi.org/pypi/vllm/json`` (https://docs.pypi.org/api/json/), fetched with
  :mod:`requests` and a :class:`urllib3.util.Retry` policy.

``recipe-check data refresh`` rewrites the vendored copy and its digest from the online
source (:func:`refresh_snapshot`).

A release's date is the *earliest* upload time of its files (``upload_time_iso_8601``):
wheels for other platforms are sometimes uploaded days later, and "released on" means the
first day one could ``pip install`` it. Releases without any file are skipped (nothing can
be installed); yanked releases are kept and flagged.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from validator.errors import RecipeCheckError
from validator.paths import SNAPSHOTS_DIR
from validator.state_json import parse_json

if TYPE_CHECKING:
    import requests

PYPI_JSON_URL = "https://pypi.org/pypi/vllm/json"
PACKAGE = "vllm"
SNAPSHOT_DIR = SNAPSHOTS_DIR
SNAPSHOT_NAME = "vllm-releases.json"
DIGEST_NAME = "vllm-releases.sha256"
DEFAULT_TIMEOUT = 15.0
DEFAULT_RETRIES = 3

SOURCE_VENDORED = "vendored"
SOURCE_ONLINE = "online"


class ReleaseListError(RecipeCheckError):
    """The release list could not be loaded: a network failure, a malformed answer, a
    missing vendored file, or a vendored file whose digest does not match the pin."""


@dataclass(frozen=True)
class Release:
    """One published version of vLLM.

    Attributes:
        version: the PEP 440 version.
        uploaded: earliest upload time of the release's files (UTC).
        yanked: every file of the release is yanked (PEP 592).
    """

    version: Version
    uploaded: datetime
    yanked: bool = False

    @property
    def date(self) -> str:
        """``YYYY-MM-DD`` of :attr:`uploaded`."""
        return self.uploaded.date().isoformat()


@dataclass(frozen=True)
class ReleaseList:
    """Published vLLM versions, sorted ascending, with where they came from.

    Attributes:
        releases: every release, ascending by version.
        source: ``"vendored"`` or ``"online"``.
        sha256: hex SHA-256 of the canonical JSON (:meth:`to_json`) — for a vendored list
            the digest of the file that was verified.
        origin: the file path or URL read.
        fetched: when the data was fetched from the index (ISO 8601, UTC) or ``None``.
    """

    releases: tuple[Release, ...]
    source: str
    sha256: str
    origin: str
    fetched: str | None = None

    def get(self, version: Version) -> Release | None:
        """The release equal to ``version`` (PEP 440 equality: ``0.11 == 0.11.0``)."""
        for rel in self.releases:
            if rel.version == version:
                return rel
        return None

    @property
    def latest(self) -> Release | None:
        """Highest non-prerelease, non-yanked release (``None`` for an empty list)."""
        final = [r for r in self.releases if not r.version.is_prerelease and not r.yanked]
        return final[-1] if final else None

    def is_released(self, version: Version) -> bool:
        """Whether ``version`` was published (yanked releases count as published)."""
        return self.get(version) is not None

    def first_at_least(self, version: Version) -> Release | None:
        """The lowest published release ``>= version`` (``None`` when there is none)."""
        for rel in self.releases:
            if rel.version >= version and not rel.version.is_prerelease:
                return rel
        return None

    def published_by(self, day: date) -> ReleaseList:
        """The releases uploaded on or before ``day`` (``--as-of``): the list as it was
        then, so no rule sees a later release."""
        kept = tuple(r for r in self.releases if r.uploaded.date() <= day)
        return ReleaseList(kept, self.source, self.sha256, self.origin, self.fetched)

    def describe(self) -> dict[str, Any]:
        """``{"source", "sha256", "origin", "fetched", "releases", "latest"}`` for reports
        (``RunResult.context["release_list"]``)."""
        latest = self.latest
        # a local file by name only: reports must not carry this machine's paths
        origin = self.origin if "://" in self.origin else Path(self.origin).name
        return {"source": self.source, "sha256": self.sha256, "origin": origin,
                "fetched": self.fetched, "releases": len(self.releases),
                "latest": str(latest.version) if latest else None}

    def to_json(self) -> bytes:
        """Canonical JSON bytes of this list (the vendored file's exact format)."""
        doc = {
            "package": PACKAGE,
            "source": PYPI_JSON_URL,
            "fetched": self.fetched,
            "releases": [
                {"version": str(r.version), "uploaded": _iso(r.uploaded), "yanked": r.yanked}
                for r in self.releases
            ],
        }
        return (json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_time(text: str) -> datetime:
    """Parse PyPI's ``upload_time_iso_8601`` (``...Z``, with or without microseconds)."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(microsecond=0)


def releases_from_pypi(data: Any) -> tuple[Release, ...]:
    """Releases from a PyPI JSON API answer (``{"releases": {version: [file, ...]}}``).

    Raises:
        ReleaseListError: the answer does not have that shape.
    """
    files_by_version = data.get("releases") if isinstance(data, dict) else None
    if not isinstance(files_by_version, dict):
        raise ReleaseListError("PyPI answer has no 'releases' mapping")
    out: list[Release] = []
    for text, files in files_by_version.items():
        try:
            version = Version(text)
        except InvalidVersion:
            continue  # legacy non-PEP 440 versions cannot be compared; vLLM has none
        if not isinstance(files, list):
            raise ReleaseListError(f"PyPI answer: files of {text} are not a list")
        times = [_parse_time(f["upload_time_iso_8601"]) for f in files
                 if isinstance(f, dict) and isinstance(f.get("upload_time_iso_8601"), str)]
        if not times:
            continue
        yanked = all(isinstance(f, dict) and f.get("yanked") is True for f in files)
        out.append(Release(version, min(times), yanked))
    return tuple(sorted(out, key=lambda r: r.version))


def releases_from_snapshot(data: Any) -> tuple[Release, ...]:
    """Releases from the vendored JSON document (the :meth:`ReleaseList.to_json` format).

    Raises:
        ReleaseListError: the document does not have that shape.
    """
    entries = data.get("releases") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ReleaseListError("release snapshot has no 'releases' list")
    out = []
    for entry in entries:
        try:
            out.append(Release(Version(entry["version"]), _parse_time(entry["uploaded"]),
                               bool(entry.get("yanked", False))))
        except (KeyError, TypeError, ValueError, InvalidVersion) as exc:
            raise ReleaseListError(f"release snapshot entry {entry!r} is malformed: "
                                   f"{exc}") from exc
    return tuple(sorted(out, key=lambda r: r.version))


def session_with_retries(retries: int = DEFAULT_RETRIES) -> requests.Session:
    """A :class:`requests.Session` retrying connection errors and 429/5xx answers
    ``retries`` times with exponential back-off (urllib3 ``Retry``)."""
    import requests  # imported here: a plain check, offline, must not pay for it
    from requests.adapters import HTTPAdapter
    from urllib3.util.retry import Retry

    session = requests.Session()
    policy = Retry(total=retries, backoff_factor=0.5,
                   status_forcelist=(429, 500, 502, 503, 504),
                   allowed_methods=frozenset({"GET"}), respect_retry_after_header=True)
    adapter = HTTPAdapter(max_retries=policy)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    session.headers["User-Agent"] = "recipe-check (release list)"
    session.headers["Accept"] = "application/json"
    return session


def fetch_online(url: str = PYPI_JSON_URL, *, timeout: float = DEFAULT_TIMEOUT,
                 retries: int = DEFAULT_RETRIES,
                 session: requests.Session | None = None) -> ReleaseList:
    """Fetch the release list from a PyPI-style JSON API.

    Args:
        url: the project's JSON endpoint (``https://pypi.org/pypi/vllm/json``).
        timeout: seconds, per connect and per read.
        retries: retries on connection errors and 429/5xx.
        session: a session to use (default: :func:`session_with_retries`).

    Raises:
        ReleaseListError: the index could not be reached, answered with an error, or the
            answer is not the expected JSON.
    """
    import requests

    http = session or session_with_retries(retries)
    try:
        response = http.get(url, timeout=timeout)
        response.raise_for_status()
        data = response.json()
    except (requests.RequestException, ValueError) as exc:
        raise ReleaseListError(f"cannot fetch the vLLM release list from {url}: {exc}") from exc
    releases = releases_from_pypi(data)
    if not releases:
        raise ReleaseListError(f"{url} lists no vLLM release")
    fetched = _iso(datetime.now(UTC))
    draft = ReleaseList(releases, SOURCE_ONLINE, "", url, fetched)
    return ReleaseList(releases, SOURCE_ONLINE, hashlib.sha256(draft.to_json()).hexdigest(),
                       url, fetched)


def read_pinned_digest(digest_path: Path) -> str:
    """The hex digest pinned in a ``sha256sum``-format file (``<hex>  <name>``).

    Raises:
        ReleaseListError: the file is missing or holds no 64-hex digest.
    """
    try:
        first = digest_path.read_text(encoding="utf-8").split()
    except OSError as exc:
        raise ReleaseListError(f"{digest_path}: cannot read the pinned digest: "
                               f"{exc.strerror or exc}") from exc
    digest = first[0].lower() if first else ""
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise ReleaseListError(f"{digest_path}: no SHA-256 digest found")
    return digest


def load_vendored(snapshot_dir: Path | None = None) -> ReleaseList:
    """Load ``snapshot_dir/vllm-releases.json`` after verifying it against the pinned
    ``vllm-releases.sha256``.

    Raises:
        ReleaseListError: a file is missing, the digest does not match, or the JSON is
            malformed.
    """
    folder = snapshot_dir or SNAPSHOT_DIR
    path = folder / SNAPSHOT_NAME
    pinned = read_pinned_digest(folder / DIGEST_NAME)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ReleaseListError(f"{path}: cannot read the vendored release list: "
                               f"{exc.strerror or exc}") from exc
    actual = hashlib.sha256(raw).hexdigest()
    if actual != pinned:
        raise ReleaseListError(f"{path}: sha256 {actual} does not match the pinned {pinned} "
                               f"in {DIGEST_NAME}; run 'recipe-check data refresh' or restore "
                               "the file")
    try:
        data = parse_json(raw)
    except ValueError as exc:
        raise ReleaseListError(f"{path}: not JSON: {exc}") from exc
    fetched = data.get("fetched") if isinstance(data, dict) else None
    return ReleaseList(releases_from_snapshot(data), SOURCE_VENDORED, actual, str(path),
                       fetched if isinstance(fetched, str) else None)


def write_snapshot(release_list: ReleaseList, snapshot_dir: Path | None = None) -> str:
    """Write ``release_list`` as the vendored copy plus its digest file; return the digest.

    The JSON is written first, then the digest, each through a temporary file and an
    atomic rename, so a reader never sees a digest that pins a half-written file.
    """
    folder = snapshot_dir or SNAPSHOT_DIR
    folder.mkdir(parents=True, exist_ok=True)
    raw = release_list.to_json()
    digest = hashlib.sha256(raw).hexdigest()
    for name, content in ((SNAPSHOT_NAME, raw),
                          (DIGEST_NAME, f"{digest}  {SNAPSHOT_NAME}\n".encode())):
        tmp = folder / f".{name}.tmp"
        tmp.write_bytes(content)
        tmp.replace(folder / name)
    return digest


def refresh_snapshot(snapshot_dir: Path | None = None, url: str = PYPI_JSON_URL,
                     *, timeout: float = DEFAULT_TIMEOUT) -> tuple[ReleaseList, str]:
    """Fetch the online list and rewrite the vendored copy; ``(list, new digest)``. When
    the releases are those of the vendored copy, nothing is written and its digest is
    returned unchanged.

    Raises:
        ReleaseListError: the fetch failed (the vendored copy is left untouched).
    """
    fresh = fetch_online(url, timeout=timeout)
    try:
        current = load_vendored(snapshot_dir)
    except ReleaseListError:
        current = None  # none yet, or damaged: written anew
    if current is not None and current.releases == fresh.releases:
        # the same releases: the vendored copy (and so its pinned digest) stays as it is,
        # rather than changing with nothing but the fetch time
        return current, current.sha256
    digest = write_snapshot(fresh, snapshot_dir)
    return fresh, digest


_CACHE: dict[tuple[bool, str, str], ReleaseList] = {}
_LOCK = threading.Lock()


def load_release_list(*, online: bool = False, snapshot_dir: Path | None = None,
                      url: str = PYPI_JSON_URL) -> ReleaseList:
    """The release list a run uses: the vendored copy unless ``online`` is set.

    Loaded once per process and arguments (checks call this for every recipe).

    Raises:
        ReleaseListError: as :func:`fetch_online` / :func:`load_vendored`. An explicitly
            requested online fetch that fails is an error, not a silent fallback.
    """
    key = (online, str(snapshot_dir or SNAPSHOT_DIR), url)
    with _LOCK:
        cached = _CACHE.get(key)
        if cached is None:
            cached = fetch_online(url) if online else load_vendored(snapshot_dir)
            _CACHE[key] = cached
        return cached


def clear_cache() -> None:
    """Forget loaded release lists (tests; after ``data refresh``)."""
    with _LOCK:
        _CACHE.clear()


def versions(release_list: ReleaseList) -> Iterable[Version]:
    """The versions of ``release_list``, ascending."""
    return (r.version for r in release_list.releases)
