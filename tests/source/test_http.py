"""HttpTree against a real GitHub-shaped server on 127.0.0.1 serving the corpus clone:
the same digests and last commits as git, and every fault reported clearly."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main
from validator.source.git import GitTree
from validator.source.http import HttpTree, TreeEntry, verify_listing
from validator.source.options import FetchOptions
from validator.source.snapshots import LOCK_NAME
from validator.source.tree import RecipeTree, SourceError
from validator.source.verify import VerificationError

from ._util import (
    GLM,
    REPO,
    UPSTREAM_BEFORE_GLM,
    UPSTREAM_PINS,
    assert_findings_schema,
    git_bytes,
    git_out,
)
from .github_server import GitHubServer

pytestmark = pytest.mark.corpus


@pytest.fixture()
def server(corpus_repo: Path) -> Iterator[GitHubServer]:
    """A fresh server (no faults queued) per test."""
    with GitHubServer(corpus_repo) as srv:
        yield srv


def http_options(srv: GitHubServer, **kw: Any) -> FetchOptions:
    """Options pointing at ``srv`` with fast retries."""
    base: dict[str, Any] = {"backend": "http", "raw_base_url": srv.raw_base,
                               "api_base_url": srv.api_base, "backoff": 0.01,
                               "retries": 3, "timeout": (2.0, 2.0)}
    base.update(kw)
    return FetchOptions(**base)


@pytest.mark.parametrize("upstream", UPSTREAM_PINS)
def test_same_bytes_and_provenance_as_git(upstream: str, commit_map: dict[str, str],
                                          corpus_repo: Path, server: GitHubServer,
                                          git_options: FetchOptions) -> None:
    commit = commit_map[upstream]
    tree = HttpTree.open(REPO, commit, http_options(server))
    assert isinstance(tree, RecipeTree)
    data = tree.read(GLM)
    assert data == git_bytes(corpus_repo, "cat-file", "blob", f"{commit}:{GLM}")
    prov = tree.provenance(GLM, data)
    assert prov.sha256 == hashlib.sha256(data).hexdigest()
    assert prov.git_blob == git_out(corpus_repo, "rev-parse", f"{commit}:{GLM}")
    assert prov.fetched_from == f"{server.raw_base}/{REPO}/{commit}/{GLM}"
    via_git = GitTree.open(REPO, commit, git_options)
    git_prov = via_git.provenance(GLM, via_git.read(GLM))
    assert prov.to_dict() | {"fetched_from": None} == git_prov.to_dict() | {"fetched_from": None}
    assert sorted(tree.list("strategies")) == via_git.list("strategies")
    assert tree.list("models") == via_git.list("models")
    for path in ["taxonomy.yaml", *tree.list("strategies")]:
        assert tree.provenance(path, tree.read(path)).git_blob == git_out(
            corpus_repo, "rev-parse", f"{commit}:{path}")


def test_branch_resolves_and_token_is_sent_not_shown(server: GitHubServer,
                                                     corpus_repo: Path) -> None:
    token = "ghp_test_secret_value_0123456789"
    tree = HttpTree.open(REPO, "main", http_options(server, token=token))
    assert tree.commit == git_out(corpus_repo, "rev-parse", "main")
    assert tree.resolved_from == "main"
    assert {auth for _, auth in server.requests} == {f"Bearer {token}"}
    assert token not in repr(tree.client.options)
    server.fail("/raw", "rate403")
    with pytest.raises(SourceError) as info:
        tree.read(GLM)
    assert token not in str(info.value)


def test_500s_then_success(server: GitHubServer, commit_map: dict[str, str],
                           corpus_repo: Path) -> None:
    commit = commit_map[UPSTREAM_PINS[0]]
    tree = HttpTree.open(REPO, commit, http_options(server))
    fault = server.fail("/raw", "500", times=2)
    before = len(server.requests)
    assert tree.read(GLM) == git_bytes(corpus_repo, "cat-file", "blob", f"{commit}:{GLM}")
    assert len(server.requests) - before == 3 and fault.times == 0  # two 500s, then the file


def test_500s_forever(server: GitHubServer, commit_map: dict[str, str]) -> None:
    tree = HttpTree.open(REPO, commit_map[UPSTREAM_PINS[0]], http_options(server))
    fault = server.fail("/raw", "500", times=99)
    before = len(server.requests)
    with pytest.raises(SourceError, match="answered 500 after 3 retries"):
        tree.read(GLM)
    assert len(server.requests) - before == 99 - fault.times == 4  # the first and 3 retries


def _raw_requests(server: GitHubServer) -> int:
    return sum(path.startswith("/raw/") for path, _ in server.requests)


def test_timeout_retried_then_reported(server: GitHubServer, commit_map: dict[str, str],
                                       corpus_repo: Path) -> None:
    """A read timeout is retried (the server sees each attempt) and, once the retries are
    spent, reported with the URL, the count and the timeout."""
    commit = commit_map[UPSTREAM_PINS[0]]
    options = http_options(server, timeout=(0.5, 0.3), retries=2)
    tree = HttpTree.open(REPO, commit, options)
    server.fail("/raw", "timeout", times=1, delay=0.6)
    before = _raw_requests(server)
    # the second attempt answers in time, with the file's bytes
    assert tree.read(GLM) == git_bytes(corpus_repo, "cat-file", "blob", f"{commit}:{GLM}")
    assert _raw_requests(server) - before == 2
    server.fail("/raw", "timeout", times=3, delay=0.6)
    before = _raw_requests(server)
    with pytest.raises(SourceError) as info:
        tree.read(GLM)
    assert _raw_requests(server) - before == 3  # the first attempt and two retries
    assert str(info.value).endswith(
        f"{server.raw_base}/{REPO}/{commit}/{GLM} timed out after 2 retries (timeout 0.3 s)")


def test_truncated_body(server: GitHubServer, commit_map: dict[str, str]) -> None:
    tree = HttpTree.open(REPO, commit_map[UPSTREAM_PINS[0]], http_options(server))
    server.fail("/raw", "truncate")
    with pytest.raises(SourceError, match="short body"):
        tree.read(GLM)


@pytest.mark.parametrize("kind", ["shorten", "alter"])
def test_altered_or_short_consistent_body_is_prov001(kind: str, server: GitHubServer,
                                                     commit_map: dict[str, str]) -> None:
    tree = HttpTree.open(REPO, commit_map[UPSTREAM_PINS[0]], http_options(server))
    server.fail("/raw", kind)
    with pytest.raises(VerificationError) as info:
        tree.read(GLM)
    assert info.value.rule_id == "PROV001"
    assert tree.entries[GLM].sha in str(info.value)


def test_404_missing_path_vs_missing_commit(server: GitHubServer,
                                            commit_map: dict[str, str]) -> None:
    options = http_options(server)
    tree = HttpTree.open(REPO, commit_map[UPSTREAM_BEFORE_GLM], options)
    assert not tree.exists(GLM)
    with pytest.raises(FileNotFoundError, match="the commit exists; the path does not"):
        tree.read(GLM)
    with pytest.raises(SourceError, match="commit not found"):
        HttpTree.open(REPO, "f" * 40, options)
    with pytest.raises(SourceError, match="commit not found"):
        HttpTree.open(REPO, "no-such-branch", options)
    server.fail("/raw", "404")
    with pytest.raises(SourceError, match="raw server has no such file"):
        HttpTree.open(REPO, commit_map[UPSTREAM_PINS[0]], options).read(GLM)


@pytest.mark.parametrize("kind, message", [
    ("rate403", r"rate limited by 127\.0\.0\.1:\d+ \(403\) until 2030-03-17T17:46:40Z"),
    ("rate429", r"rate limited .*\(429\) for 60 s \(Retry-After\)"),
])
def test_rate_limit(kind: str, message: str, server: GitHubServer) -> None:
    server.fail("/api", kind)
    with pytest.raises(SourceError, match=message):
        HttpTree.open(REPO, "main", http_options(server))


def test_unreachable_server(tmp_path: Path) -> None:
    options = FetchOptions(backend="http", api_base_url="http://127.0.0.1:9", retries=1,
                           backoff=0.01, timeout=(0.5, 0.5))
    with pytest.raises(SourceError, match="could not be reached after 1 retries"):
        HttpTree.open(REPO, "main", options)


def test_altered_tree_listing_refused(server: GitHubServer, commit_map: dict[str, str]) -> None:
    server.fail("/api/repos/vllm-project/recipes/git/trees", "rename")
    with pytest.raises(SourceError, match="does not hash to the commit's tree"):
        HttpTree.open(REPO, commit_map[UPSTREAM_PINS[0]], http_options(server))


def test_verify_listing_on_own_tree(tmp_path: Path, corpus_repo: Path,
                                    commit_map: dict[str, str]) -> None:
    commit = commit_map[UPSTREAM_PINS[1]]
    tree = git_out(corpus_repo, "rev-parse", f"{commit}^{{tree}}")
    entries = []
    for line in git_out(corpus_repo, "ls-tree", "-r", "-t", commit).splitlines():
        meta, path = line.split("\t", 1)
        mode, kind, sha = meta.split()
        entries.append(TreeEntry(path, mode, kind, sha))
    assert verify_listing(entries, tree)
    assert not verify_listing(entries[:-1], tree)


def test_cli_fetch_and_check_over_http(server: GitHubServer, commit_map: dict[str, str],
                                       corpus_repo: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    commit = commit_map[UPSTREAM_PINS[2]]
    spec = f"{REPO}@{commit}:{GLM}"
    urls = ["--backend", "http", "--raw-base-url", server.raw_base, "--api-base-url",
            server.api_base, "--store-dir", str(tmp_path / "snap")]
    assert main(["fetch", spec, *urls]) == 0
    lock = json.loads((tmp_path / "snap" / LOCK_NAME).read_text())
    entry = next(e for e in lock["files"] if e["path"] == GLM)
    assert entry["gitBlob"] == git_out(corpus_repo, "rev-parse", f"{commit}:{GLM}")
    assert entry["fetched_from"].startswith(server.raw_base)
    capsys.readouterr()
    # the provenance rules alone: the recipe's own findings are not this test's
    assert main([spec, *urls, "--format", "json", "--select", "PROV"]) == 0
    doc = json.loads(capsys.readouterr().out)["documents"][0]
    assert (doc["revision"], doc["gitBlob"]) == (commit, entry["gitBlob"])
    server.fail("/raw", "alter", times=99)
    assert main([spec, *urls, "--format", "json", "--select", "PROV"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert_findings_schema(report)
    doc = report["documents"][0]
    assert [f["rule"] for f in doc["findings"]] == ["PROV001"]
    assert doc["gitBlob"] != entry["gitBlob"]
    other = f"{REPO}@{commit_map[UPSTREAM_PINS[0]]}:{GLM}"
    assert main(["fetch", other, *urls]) == 1
    assert "nothing stored" in capsys.readouterr().err
    assert all(e["commit"] == commit for e in
               json.loads((tmp_path / "snap" / LOCK_NAME).read_text())["files"])
