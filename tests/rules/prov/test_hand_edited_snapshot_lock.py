"""A snapshot lock file edited by hand (issue 16, item 4): every entry is tied to its
commit by the stored git objects, so swapped digests, paths, context entries, duplicate
entries and edited last-commit metadata all fail ``snapshot verify`` and offline reads."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.source._util import GLM, REPO, UPSTREAM_PINS
from tests.source.github_server import GitHubServer
from tests.source.test_http import http_options
from validator.cli import main
from validator.source.snapshots import LOCK_NAME

pytestmark = pytest.mark.corpus

Lock = dict[str, Any]


def _entry(lock: Lock, path: str) -> dict[str, Any]:
    return next(e for e in lock["files"] if e["path"] == path)


def _swap(lock: Lock, a: str, b: str, *fields: str) -> None:
    ea, eb = _entry(lock, a), _entry(lock, b)
    for f in fields:
        ea[f], eb[f] = eb[f], ea[f]


def _strategy(lock: Lock) -> str:
    return str(next(e["path"] for e in lock["files"] if e["path"].startswith("strategies/")))


def _dup_first(lock: Lock) -> None:
    e = dict(_entry(lock, "taxonomy.yaml"))
    other = _entry(lock, _strategy(lock))
    e["sha256"], e["gitBlob"] = other["sha256"], other["gitBlob"]
    lock["files"].insert(0, e)


def _edit(path: str, field: str, value: Callable[[Any], Any]) -> Callable[[Lock], None]:
    def apply(lock: Lock) -> None:
        e = _entry(lock, path)
        e[field] = value(e[field])
    return apply


TAMPERINGS: dict[str, Callable[[Lock], None]] = {
    "swap sha256+gitBlob": lambda lock: _swap(lock, "taxonomy.yaml", _strategy(lock),
                                              "sha256", "gitBlob"),
    "swap path": lambda lock: _swap(lock, "taxonomy.yaml", _strategy(lock), "path"),
    "swap taxonomy with context entry": lambda lock: _swap(
        lock, "taxonomy.yaml", _strategy(lock), "sha256", "gitBlob", "last_commit",
        "last_commit_date"),
    "swap recipe with context entry": lambda lock: _swap(lock, GLM, _strategy(lock),
                                                         "sha256", "gitBlob"),
    "duplicate entry first": _dup_first,
    "last_commit edited": _edit(GLM, "last_commit", lambda v: "0" * 40),
    "last_commit_date edited": _edit(GLM, "last_commit_date",
                                     lambda v: "2020-01-01T00:00:00Z"),
    "last_commit_date removed": _edit(GLM, "last_commit_date", lambda v: None),
    "fetched_from other commit": _edit(
        GLM, "fetched_from", lambda v: f"https://raw.example/{REPO}/{'1' * 40}/{GLM}"),
    "commit edited": _edit(GLM, "commit", lambda v: v[:-1] + ("0" if v[-1] != "0" else "1")),
}


@pytest.fixture(scope="module")
def clean_store(corpus_repo: Path, commit_map: dict[str, str],
                tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    commit = commit_map[UPSTREAM_PINS[2]]
    store = tmp_path_factory.mktemp("clean") / "snap"
    cache = tmp_path_factory.mktemp("cache")
    assert main(["fetch", f"{REPO}@{commit}:{GLM}", "--git-url", str(corpus_repo),
                 "--cache-dir", str(cache), "--store-dir", str(store)]) == 0
    return store, commit


def _verify(store: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["snapshot", "verify", "--store-dir", str(store)])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_clean_store_verifies(clean_store: tuple[Path, str],
                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _verify(clean_store[0], capsys)
    assert code == 0, out
    assert (clean_store[0] / "objects" / "git").is_dir()


@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_tampered_lock_fails_verify_and_offline(name: str, clean_store: tuple[Path, str],
                                                tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "snap"
    shutil.copytree(clean_store[0], store)
    lock = json.loads((store / LOCK_NAME).read_text())
    TAMPERINGS[name](lock)
    (store / LOCK_NAME).write_text(json.dumps(lock))
    code, out = _verify(store, capsys)
    assert code != 0, out
    assert "PROV007" in out or "PROV003" in out or "two entries" in out, out
    commit = clean_store[1]
    for spec in (f"{REPO}@{commit}:{GLM}", f"{REPO}@{commit[:12]}:models/"):
        code = main([spec, "--offline", "--store-dir", str(store), "--format", "json"])
        res = capsys.readouterr()
        assert code != 0, (name, res.out[-400:])
        if code == 1:  # findings: the tampered entry is reported, nothing passes unseen
            report = json.loads(res.out)
            rules = {f["rule"] for d in report["documents"] for f in d["findings"]}
            assert rules & {"PROV007", "PROV003", "PROV002", "PROV005"}, rules
        else:
            assert "two entries" in res.err or "lock" in res.err, res.err


def test_missing_git_objects_fail(clean_store: tuple[Path, str], tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "snap"
    shutil.copytree(clean_store[0], store)
    shutil.rmtree(store / "objects" / "git")
    code, out = _verify(store, capsys)
    assert code == 1 and "is not stored" in out, out


def test_http_fetch_stores_the_same_binding(corpus_repo: Path, commit_map: dict[str, str],
                                            clean_store: tuple[Path, str], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """The HTTP backend stores the same commit and tree objects as git (rebuilt from the
    API and hashed), so its store verifies and binds alike."""
    commit = clean_store[1]
    with GitHubServer(corpus_repo) as srv:
        opts = http_options(srv)
        store = tmp_path / "snap"
        assert main(["fetch", f"{REPO}@{commit}:{GLM}", "--backend", "http",
                     "--raw-base-url", opts.raw_base_url, "--api-base-url",
                     opts.api_base_url, "--store-dir", str(store)]) == 0
    code, out = _verify(store, capsys)
    assert code == 0, out
    git_objects = {p.relative_to(clean_store[0]) for p in
                   (clean_store[0] / "objects" / "git").rglob("*") if p.is_file()}
    http_objects = {p.relative_to(store) for p in (store / "objects" / "git").rglob("*")
                    if p.is_file()}
    assert git_objects == http_objects
