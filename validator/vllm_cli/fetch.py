"""Fetch one vLLM release artifact (sdist, else a wheel) from the package index.

Why not ``pip download --no-binary :all:``: for an sdist, pip always *prepares
metadata* after downloading, which means installing the release's build
requirements (``torch==2.3.0``, ``cmake``, …) into an isolated build env and running
``setup.py`` — gigabytes of downloads that fail outright on a machine whose torch is
constrained (observed here: ``ResolutionImpossible ... torch==2.3.0``).  We only need
the bytes, so we ask the same index pip uses through its PEP 691 JSON Simple API
(``GET <index>/vllm/`` with ``Accept: application/vnd.pypi.simple.v1+json``), pick
the artifact pip would pick for ``--no-binary :all:`` (the sdist) or, when a release
has no sdist, for ``--only-binary :all:`` (a ``manylinux`` x86_64 wheel), download it
with ``requests`` and verify its sha256 against the digest the index publishes.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import Version

from validator.errors import RecipeCheckError

#: PEP 691 endpoint of a project on PyPI (what ``pip download`` resolves against).
SIMPLE_URL_TEMPLATE = "https://pypi.org/simple/{project}/"
_SIMPLE_ACCEPT = "application/vnd.pypi.simple.v1+json"
_TIMEOUT_S = 180


class FetchError(RecipeCheckError, RuntimeError):
    """Raised when a release cannot be found on the index or its bytes do not verify."""


@dataclass(frozen=True)
class Artifact:
    """One downloadable file of a vLLM release.

    ``kind`` is ``"sdist"`` or ``"wheel"``; ``sha256`` is the lower-case hex digest the
    index publishes; ``size`` is in bytes (``0`` when the index does not say).
    """

    version: str
    filename: str
    url: str
    sha256: str
    kind: str
    size: int


def index_files(session: requests.Session | None = None,
                project: str = "vllm") -> list[dict[str, Any]]:
    """Return the ``files`` list of ``project``'s PEP 691 Simple API page.

    ``project`` is a PyPI name (``"vllm"``, ``"vllm-omni"``, ``"vllm-ascend"``).
    Raises :class:`FetchError` on an HTTP error.
    """
    url = SIMPLE_URL_TEMPLATE.format(project=project)
    s = session or requests.Session()
    resp = s.get(url, headers={"Accept": _SIMPLE_ACCEPT}, timeout=_TIMEOUT_S)
    if resp.status_code != 200:
        raise FetchError(f"{url}: HTTP {resp.status_code}")
    files = resp.json().get("files")
    if not isinstance(files, list):
        raise FetchError(f"{url}: no 'files' list in the PEP 691 answer")
    return files


def released_versions(files: list[dict[str, Any]], *, pre: bool = False) -> list[str]:
    """All non-yanked versions present in ``files``, ascending; pre-releases only when
    ``pre`` is true, dev releases never."""
    out: set[Version] = set()
    for f in files:
        if f.get("yanked"):
            continue
        v = _version_of(str(f["filename"]))
        if v is not None and (pre or not v.is_prerelease) and not v.is_devrelease:
            out.add(v)
    return [str(v) for v in sorted(out)]


def _version_of(filename: str) -> Version | None:
    try:
        if filename.endswith(".tar.gz"):
            return parse_sdist_filename(filename)[1]
        if filename.endswith(".whl"):
            return parse_wheel_filename(filename)[1]
    except (InvalidSdistFilename, InvalidWheelFilename):
        return None
    return None


def _wheel_rank(filename: str) -> tuple[int, str]:
    """Lower is better: prefer a pure/x86_64 manylinux wheel (what an x86 pip picks)."""
    if filename.endswith("-none-any.whl"):
        return (0, filename)
    if "manylinux" in filename and "x86_64" in filename:
        return (1, filename)
    if "x86_64" in filename:
        return (2, filename)
    return (3, filename)


def choose_artifact(version: str, files: list[dict[str, Any]],
                    project: str = "vllm") -> Artifact:
    """Pick the sdist of ``version`` or, failing that, its best wheel.

    Raises :class:`FetchError` when the index has no file for ``version`` of ``project``.
    """
    want = Version(version)
    sdists: list[dict[str, Any]] = []
    wheels: list[dict[str, Any]] = []
    for f in files:
        fn = str(f["filename"])
        if _version_of(fn) != want or f.get("yanked"):
            continue
        (sdists if fn.endswith(".tar.gz") else wheels).append(f)
    if sdists:
        pick, kind = sorted(sdists, key=lambda f: str(f["filename"]))[0], "sdist"
    elif wheels:
        pick, kind = sorted(wheels, key=lambda f: _wheel_rank(str(f["filename"])))[0], "wheel"
    else:
        raise FetchError(f"{project}=={version}: no sdist or wheel on "
                         f"{SIMPLE_URL_TEMPLATE.format(project=project)}")
    return Artifact(
        version=version,
        filename=str(pick["filename"]),
        url=str(pick["url"]).split("#", 1)[0],
        sha256=str(pick["hashes"]["sha256"]).lower(),
        kind=kind,
        size=int(pick.get("size") or 0),
    )


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, streamed in 1 MiB blocks."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def download(artifact: Artifact, cache_dir: Path, session: requests.Session | None = None) -> Path:
    """Download ``artifact`` into ``cache_dir`` (reusing a verified copy) and return its path.

    The file is written to a temporary name and renamed only after its sha256 matches
    ``artifact.sha256``.  Raises :class:`FetchError` on HTTP errors or digest mismatch.
    """
    cache_dir.mkdir(parents=True, exist_ok=True)
    dest = cache_dir / artifact.filename
    if dest.exists() and sha256_file(dest) == artifact.sha256:
        return dest
    s = session or requests.Session()
    fd, tmp_name = tempfile.mkstemp(dir=cache_dir, prefix=".part-")
    tmp = Path(tmp_name)
    try:
        h = hashlib.sha256()
        with os.fdopen(fd, "wb") as out, s.get(artifact.url, stream=True, timeout=_TIMEOUT_S) as r:
            if r.status_code != 200:
                raise FetchError(f"{artifact.url}: HTTP {r.status_code}")
            for chunk in r.iter_content(chunk_size=1 << 20):
                out.write(chunk)
                h.update(chunk)
        if h.hexdigest() != artifact.sha256:
            raise FetchError(
                f"{artifact.filename}: sha256 {h.hexdigest()} != index digest {artifact.sha256}"
            )
        tmp.replace(dest)
        return dest
    finally:
        if tmp.exists():
            tmp.unlink()
