"""The Node oracle: the recipes site's own build (``../shared/corpus/site``) prepared once
per test session, and helpers to run it over a recipes tree.

Node.js 20 and npm are on every machine of this project. Where they are missing the
oracle tests are skipped with the reason shown, except on CI (env ``CI`` set), where they
fail: a parity suite that silently does not run would claim parity it never checked.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import stat
import subprocess
import tarfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any

import orjson
import pytest
from filelock import FileLock

from tests.conftest import SHARED
from tests.render.api_compare import read_api
from tests.render.tiny_tree import write_tree
from tests.shared_run import run_folder
from validator.context import Context, local_context

PROJECT = Path(__file__).resolve().parents[2]
SITE = SHARED / "corpus" / "site"
BUILD_SCRIPT = Path("scripts") / "build-recipes-api.mjs"
TREE_PARTS = ("models", "taxonomy.yaml", "strategies", "kv_store", "platforms.yaml")
"""What the site's build reads from a recipes tree (``quickstart/`` too, when present)."""
NODE_TIMEOUT = 300


def _missing_tool(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}: the Node oracle cannot run on CI (node 20 and npm are "
                    "required; .ci/run checks for them)", pytrace=False)
    pytest.skip(f"{reason}: Node oracle tests skipped (install Node.js 20 and npm)")


def require_node_tools() -> None:
    """Skip (fail on CI) unless ``node`` and ``npm`` are on ``PATH``."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _missing_tool(f"{'node' if node is None else 'npm'} not found on PATH")


def _make_writable(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod(mode | stat.S_IWUSR | (stat.S_IXUSR if path.is_dir() else 0))


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A writable copy of ``../shared/corpus/site`` with its dependency installed
    (``npm ci``, from npm's local cache when it holds js-yaml already), made once per
    pytest run and shared by its xdist workers: tests read it, never write into it.

    The site's scripts and ``node_modules`` are there; run the build with
    :func:`run_site_build`, or import ``src/lib/command-synthesis.js`` from a module placed
    in this folder."""
    require_node_tools()
    if not (SITE / BUILD_SCRIPT).is_file():
        pytest.fail(f"site oracle missing: {SITE} (CI puts ../shared beside the checkout)")
    dest = run_folder(tmp_path_factory, "site-oracle") / "site"
    ready = dest.with_name("site.ready")
    with FileLock(f"{dest}.lock"):  # prepared once per run, read by every xdist worker
        if not ready.is_file():
            _prepare_site(dest)
            ready.touch()
    return dest


def _prepare_site(dest: Path) -> None:
    """Copy the site into ``dest`` and install its dependency there."""
    shutil.rmtree(dest, ignore_errors=True)  # what a failed attempt left
    shutil.copytree(SITE, dest)
    _make_writable(dest)
    command = ["npm", "ci", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"]
    done = subprocess.run(command, cwd=dest, capture_output=True, text=True,
                          timeout=NODE_TIMEOUT, check=False)
    if done.returncode != 0:
        pytest.fail(f"`{' '.join(command)}` failed in {dest} (exit {done.returncode}):\n"
                    f"{done.stdout}\n{done.stderr}", pytrace=False)
    if not (dest / "node_modules" / "js-yaml").is_dir():
        pytest.fail(f"npm ci did not install js-yaml into {dest}/node_modules", pytrace=False)


@dataclass(frozen=True)
class SiteBuild:
    """One run of the site's build over a recipes tree.

    Attributes:
        ok: the build exited 0.
        public: its output folder (``<tree>/public``).
        seconds: wall time of the ``node`` process.
        stdout: what it printed (its summary line and the API map).
        stderr: its warnings (``command synthesis failed ...``) or the error it stopped on.
    """

    ok: bool
    public: Path
    seconds: float
    stdout: str
    stderr: str
    pack: Path | None = None
    """The API as one file (:func:`cached_site_build`; ``None``: read ``public``)."""


def site_api(build: SiteBuild) -> dict[str, bytes]:
    """Every file of the API ``build`` wrote, as :func:`tests.render.api_compare.read_api`
    gives it: from its pack when kept in the cache (one file, not 15,000), else from
    ``public``."""
    if build.pack is None:
        return read_api(build.public)
    files: dict[str, bytes] = pickle.loads(build.pack.read_bytes())
    return files


def run_site_build(site: Path, tree: Path) -> SiteBuild:
    """Run ``node scripts/build-recipes-api.mjs`` over the recipes tree ``tree`` (the build
    reads the tree from its working folder and writes ``tree/public``)."""
    public = tree / "public"
    if public.exists():
        shutil.rmtree(public)
    start = time.perf_counter()
    done = subprocess.run(["node", str(site / BUILD_SCRIPT)], cwd=tree, capture_output=True,
                          text=True, timeout=NODE_TIMEOUT, check=False)
    return SiteBuild(done.returncode == 0, public, time.perf_counter() - start, done.stdout,
                     done.stderr)


SITE_BUILD_CACHE = "recipe-check-site-builds"
"""The folder of pytest's cache (``.pytest_cache/d/...``) that keeps the site's builds of
earlier runs (:func:`cached_site_build`)."""


def _folder_digest(root: Path, skip: frozenset[str]) -> str:
    """SHA-256 of every file under ``root`` (path and bytes) outside the top-level
    folders ``skip``."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        relative = path.relative_to(root)
        if relative.parts[0] not in skip:
            digest.update(f"{relative.as_posix()}\0{path.stat().st_size}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _node_version() -> str:
    return subprocess.run(["node", "--version"], capture_output=True, text=True,
                          check=True).stdout.strip()


PACK = "api.pickle"
"""The API of a kept build as one file: :func:`site_api`'s dict, pickled."""


def cached_site_build(site: Path, tree: Path, cache: Path | None,
                      keep_folder: bool = False) -> SiteBuild:
    """:func:`run_site_build`, kept in ``cache`` (a folder of pytest's cache; None: not
    kept) under the digest of the site's sources (``../shared/corpus/site``), Node's
    version and every file of ``tree``: a later run over the same bytes reads the build's
    output, its exit status and its API from there instead of running Node again. The API
    is kept as one file (:data:`PACK`, read by :func:`site_api`) with its SHA-256, checked
    before the entry is used (an entry whose pack does not match, or of an older layout,
    is built again); ``keep_folder`` keeps ``public/`` too, as the returned ``public``,
    which tests only read. Only ``public/`` is kept: a build that also writes outside it
    (a quickstart file's ``..``) must call :func:`run_site_build`."""
    if cache is None:
        return run_site_build(site, tree)
    key = hashlib.sha256("\0".join((
        _folder_digest(SITE, frozenset({"node_modules"})), _node_version(),
        _folder_digest(tree, frozenset({"public"})))).encode()).hexdigest()[:32]
    entry = cache / key
    with FileLock(f"{entry}.lock"):
        kept = _kept_build(entry, keep_folder)
        if kept is not None:
            return kept
        build = run_site_build(site, tree)
        shutil.rmtree(entry, ignore_errors=True)
        entry.mkdir(parents=True)
        fields: dict[str, Any] = {"ok": build.ok, "seconds": build.seconds,
                                  "stdout": build.stdout, "stderr": build.stderr,
                                  "folder": keep_folder and build.public.is_dir()}
        if build.public.is_dir():
            data = pickle.dumps(read_api(build.public), protocol=pickle.HIGHEST_PROTOCOL)
            (entry / PACK).write_bytes(data)
            fields["pack_sha256"] = hashlib.sha256(data).hexdigest()
            if fields["folder"]:
                shutil.copytree(build.public, entry / "public")
        partial = entry / "build.json.partial"  # written last: the entry is whole
        partial.write_text(json.dumps(fields), encoding="utf-8")
        partial.replace(entry / "build.json")
        return SiteBuild(build.ok, build.public, build.seconds, build.stdout, build.stderr,
                         entry / PACK if "pack_sha256" in fields else None)


def _kept_build(entry: Path, keep_folder: bool) -> SiteBuild | None:
    """The build kept in ``entry`` (:func:`cached_site_build`), ``None`` when there is
    none, it is of an older layout, its pack does not match its digest, or it lacks
    ``public/`` that ``keep_folder`` asks for."""
    try:
        fields = json.loads((entry / "build.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    pack = entry / PACK
    if "pack_sha256" in fields:
        with pack.open("rb") as stream:
            if hashlib.file_digest(stream, "sha256").hexdigest() != fields["pack_sha256"]:
                return None
    elif fields.get("ok") or "folder" not in fields:  # a build that wrote an API, or old
        return None
    if keep_folder and fields["ok"] and not fields["folder"]:
        return None
    return SiteBuild(fields["ok"], entry / "public", fields["seconds"], fields["stdout"],
                     fields["stderr"], pack if "pack_sha256" in fields else None)


@pytest.fixture(scope="session")
def site_builds(request: pytest.FixtureRequest) -> Path | None:
    """The folder of pytest's cache for :func:`cached_site_build`; None when pytest runs
    without its cache (``-p no:cacheprovider``)."""
    cache = getattr(request.config, "cache", None)
    return None if cache is None else cache.mkdir(SITE_BUILD_CACHE)


def export_revision(repo: Path, rev: str, dest: Path) -> Path:
    """The data files of ``rev`` of the git repository ``repo`` as a folder ``dest``
    (``git archive``; only what the site's build reads)."""
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=repo,
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        members = [m for m in tar.getmembers()
                   if m.name.split("/")[0] in (*TREE_PARTS, "quickstart")]
        tar.extractall(dest, members=members, filter="data")
    return dest


def api_files(public: Path) -> dict[str, bytes]:
    """Every file of an API folder: POSIX path relative to it -> bytes."""
    out: dict[str, bytes] = {}
    for root, _, files in os.walk(public):
        for name in files:
            path = Path(root) / name
            out[path.relative_to(public).as_posix()] = path.read_bytes()
    return out


def load_json(data: bytes) -> Any:
    """Parse one API file."""
    return orjson.loads(data)


@pytest.fixture(scope="session")
def corpus_main_tree(corpus_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus ``main`` exported once (read-only for tests: copy before changing)."""
    return export_revision(corpus_repo, "main", tmp_path_factory.mktemp("main") / "tree")


@pytest.fixture(scope="session")
def site_main_build(site_dir: Path, corpus_main_tree: Path, site_builds: Path | None,
                    tmp_path_factory: pytest.TempPathFactory) -> Iterator[SiteBuild]:
    """The site's build over corpus ``main`` (run once, in a copy of the tree; kept in
    pytest's cache for the next run over the same bytes: :func:`cached_site_build`)."""
    tree = tmp_path_factory.mktemp("site-main") / "tree"
    shutil.copytree(corpus_main_tree, tree)
    build = cached_site_build(site_dir, tree, site_builds, keep_folder=True)
    if not build.ok:
        pytest.fail(f"the site's build fails on corpus main:\n{build.stderr}", pytrace=False)
    yield build


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny recipes tree of our own (:mod:`tests.render.tiny_tree`), written once per
    test module (a module with a ``tree`` fixture of its own uses that one)."""
    return write_tree(tmp_path_factory.mktemp("tiny") / "recipes")


@pytest.fixture(scope="module")
def ctx(tree: Path) -> Context:
    """The context (taxonomy, strategies) of :func:`tree`."""
    return local_context(tree)
