"""The HTTP backend proves the API's "last commit touching the path" before it claims it
(issue 30, item 7): a real GitHub-shaped server on 127.0.0.1 answers the ``commits?path=``
list with a commit that exists but did not change the file, one that holds another
version of it, or a date its object does not state; each is a clear error naming the
commit, and nothing is stored. The true answer still gives git's provenance
(``test_http.py``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main
from validator.source.http import HttpTree
from validator.source.options import FetchOptions
from validator.source.tree import SourceError

from ._util import GLM, REPO, UPSTREAM_PINS, git_out
from .github_server import GitHubServer, _utc

pytestmark = pytest.mark.corpus

LIST = f"/api/repos/{REPO}/commits$"  # the commits?sha=&path= list only


@pytest.fixture()
def server(corpus_repo: Path) -> Iterator[GitHubServer]:
    with GitHubServer(corpus_repo) as srv:
        yield srv


def _options(srv: GitHubServer) -> FetchOptions:
    return FetchOptions(backend="http", raw_base_url=srv.raw_base, api_base_url=srv.api_base,
                        backoff=0.01, retries=1, timeout=(2.0, 2.0))


def _claim(repo: Path, commit: str, date: str | None = None) -> bytes:
    """A ``commits?path=`` answer naming ``commit`` (with its own date by default)."""
    when = date or _utc(git_out(repo, "log", "-1", "--format=%cI", commit))
    return json.dumps([{"sha": commit, "commit": {"committer": {"date": when}}}]).encode()


def _provenance(server: GitHubServer, commit: str, answer: bytes) -> Any:
    tree = HttpTree.open(REPO, commit, _options(server))
    server.fail(LIST, "body", new=answer)
    return tree.provenance(GLM, tree.read(GLM))


def test_a_commit_that_did_not_change_the_file_is_not_claimed(
        server: GitHubServer, commit_map: dict[str, str], corpus_repo: Path) -> None:
    """main's head did not touch GLM-5.2.yaml (its parent holds the same blob): was
    stored as its last commit."""
    head = commit_map[UPSTREAM_PINS[3]]
    parent = git_out(corpus_repo, "rev-parse", f"{head}^")
    with pytest.raises(SourceError, match=(
            rf"{GLM}: the API names {head} as the last commit touching it at {head}, but it "
            rf"did not change the file: its parent {parent} holds the same blob")):
        _provenance(server, head, _claim(corpus_repo, head))


def test_a_commit_holding_another_version_of_the_file_is_not_claimed(
        server: GitHubServer, commit_map: dict[str, str], corpus_repo: Path) -> None:
    """The commit that created the file touched it, but the file changed since."""
    created, later = commit_map[UPSTREAM_PINS[0]], commit_map[UPSTREAM_PINS[2]]
    blob = git_out(corpus_repo, "rev-parse", f"{later}:{GLM}")
    with pytest.raises(SourceError, match=rf"the file there is blob [0-9a-f]{{40}} \(mode "
                       rf"100644\), not blob {blob} \(mode 100644\) as here; not claimed"):
        _provenance(server, later, _claim(corpus_repo, created))


def test_a_date_the_commit_object_does_not_state_is_not_claimed(
        server: GitHubServer, commit_map: dict[str, str], corpus_repo: Path) -> None:
    later = commit_map[UPSTREAM_PINS[2]]
    true_last = git_out(corpus_repo, "log", "-1", "--format=%H", later, "--", GLM)
    with pytest.raises(SourceError, match=r"states committer date .* not 2001-01-01T00:00:00Z"):
        _provenance(server, later, _claim(corpus_repo, true_last, "2001-01-01T00:00:00Z"))
    with pytest.raises(SourceError, match="not a full commit id"):
        _provenance(server, later, _claim(corpus_repo, true_last, None).replace(
            true_last.encode(), b"../../x"))


def test_the_true_last_commit_is_proven_and_kept(
        server: GitHubServer, commit_map: dict[str, str], corpus_repo: Path) -> None:
    later = commit_map[UPSTREAM_PINS[3]]
    true_last = git_out(corpus_repo, "log", "-1", "--format=%H", later, "--", GLM)
    prov = _provenance(server, later, _claim(corpus_repo, true_last))
    assert prov.last_commit == true_last


def test_an_unproven_last_commit_is_a_clear_error_and_nothing_is_stored(
        server: GitHubServer, commit_map: dict[str, str], corpus_repo: Path,
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    head = commit_map[UPSTREAM_PINS[3]]
    server.fail(LIST, "body", times=99, new=_claim(corpus_repo, head))
    store = tmp_path / "store"
    code = main(["fetch", f"{REPO}@{head}:{GLM}", "--backend", "http", "--raw-base-url",
                 server.raw_base, "--api-base-url", server.api_base, "--snapshot-dir",
                 str(store)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    assert f"the API names {head} as the last commit touching it" in err
    assert "did not change the file" in err
    assert not list(store.rglob("*.lock.json"))
