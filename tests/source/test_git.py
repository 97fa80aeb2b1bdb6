"""GitTree on real clones of the corpus bundle: bytes, digests and last commits agree with
what git itself reports, at upstream commits pinned through the commit map."""

from __future__ import annotations

import hashlib
import subprocess
import zlib
from datetime import datetime
from pathlib import Path

import git
import pytest

from validator.source.git import GitTree, cache_path, redact_url, utc_iso
from validator.source.options import FetchOptions
from validator.source.tree import RecipeTree, SourceError
from validator.source.verify import VerificationError

from ._util import GLM, REPO, UPSTREAM_BEFORE_GLM, UPSTREAM_PINS, git_bytes, git_out

pytestmark = pytest.mark.corpus


@pytest.mark.parametrize("upstream", UPSTREAM_PINS)
def test_pinned_file_matches_git(upstream: str, commit_map: dict[str, str],
                                 corpus_repo: Path, git_options: FetchOptions) -> None:
    commit = commit_map[upstream]
    tree = GitTree.open(REPO, commit, git_options)
    assert isinstance(tree, RecipeTree)
    data = tree.read(GLM)
    prov = tree.provenance(GLM, data)
    assert data == git_bytes(corpus_repo, "cat-file", "blob", f"{commit}:{GLM}")
    assert prov.sha256 == hashlib.sha256(data).hexdigest()
    assert prov.git_blob == git_out(corpus_repo, "rev-parse", f"{commit}:{GLM}")
    assert (prov.repository, prov.commit, prov.resolved_from) == (REPO, commit, None)
    assert prov.fetched_from == str(corpus_repo)
    last_id, last_date = git_out(corpus_repo, "log", "-1", "--format=%H %cI", commit, "--",
                                 GLM).split()
    assert prov.last_commit == last_id
    assert prov.last_commit_date is not None
    assert datetime.fromisoformat(prov.last_commit_date) == datetime.fromisoformat(last_date)
    # the replay commit of the last change names the upstream commit that made it
    assert upstream in git_out(corpus_repo, "log", "-1", "--format=%s", last_id) or (
        upstream == UPSTREAM_PINS[-1])


def test_head_commit_reports_earlier_last_commit(commit_map: dict[str, str],
                                                 git_options: FetchOptions) -> None:
    tree = GitTree.open(REPO, commit_map[UPSTREAM_PINS[-1]], git_options)
    prov = tree.provenance(GLM, tree.read(GLM))
    assert prov.last_commit == commit_map[UPSTREAM_PINS[2]]
    assert prov.last_commit_date == "2026-08-10T02:34:36Z"  # 10:34:36 +08:00, in UTC


def test_context_at_same_commit(commit_map: dict[str, str], corpus_repo: Path,
                                git_options: FetchOptions) -> None:
    commit = commit_map[UPSTREAM_PINS[1]]
    tree = GitTree.open(REPO, commit, git_options)
    listed = git_out(corpus_repo, "ls-tree", "-r", "--name-only", commit, "strategies",
                     "models").splitlines()
    assert sorted(tree.list("strategies") + tree.list("models")) == sorted(listed)
    for path in ["taxonomy.yaml", *tree.list("strategies")]:
        prov = tree.provenance(path, tree.read(path))
        assert prov.git_blob == git_out(corpus_repo, "rev-parse", f"{commit}:{path}")
        assert prov.commit == commit


def test_path_absent_at_commit(commit_map: dict[str, str], git_options: FetchOptions) -> None:
    tree = GitTree.open(REPO, commit_map[UPSTREAM_BEFORE_GLM], git_options)
    assert not tree.exists(GLM)
    with pytest.raises(FileNotFoundError, match="not in vllm-project/recipes at commit"):
        tree.read(GLM)
    assert tree.list("models/zai-org/nope") == []


def test_branch_and_short_id_resolve_once(corpus_repo: Path, git_options: FetchOptions) -> None:
    head = git_out(corpus_repo, "rev-parse", "main")
    tree = GitTree.open(REPO, "main", git_options)
    assert (tree.commit, tree.resolved_from) == (head, "main")
    assert tree.provenance(GLM, tree.read(GLM)).resolved_from == "main"
    short = GitTree.open(REPO, head[:10], git_options)
    assert (short.commit, short.resolved_from) == (head, head[:10])


def test_pull_request_head(corpus_repo: Path, git_options: FetchOptions) -> None:
    refs = git_out(corpus_repo, "for-each-ref", "--format=%(refname)", "refs/pull").split()
    ref = refs[0]
    tree = GitTree.open(REPO, ref, git_options)
    assert tree.commit == git_out(corpus_repo, "rev-parse", ref)
    assert tree.resolved_from == ref


def test_unknown_revision_and_commit(git_options: FetchOptions) -> None:
    with pytest.raises(SourceError, match="no such branch, tag or commit"):
        GitTree.open(REPO, "no-such-branch", git_options)
    with pytest.raises(SourceError, match=r"commit 0{40} not found"):
        GitTree.open(REPO, "0" * 40, git_options)


def test_unreachable_url_is_a_clear_error(tmp_path: Path) -> None:
    options = FetchOptions(git_url=str(tmp_path / "missing"), cache_dir=tmp_path / "cache")
    with pytest.raises(SourceError, match=r"git clone .*missing failed"):
        GitTree.open(REPO, "main", options)


def test_file_url_and_new_commit_fetched(corpus_repo: Path, tmp_path: Path) -> None:
    """A file:// URL works, and a commit made upstream after the first clone is fetched."""
    upstream = tmp_path / "upstream"
    subprocess.run(["git", "clone", "-q", "--no-local", str(corpus_repo), str(upstream)],
                   check=True)
    options = FetchOptions(git_url=upstream.as_uri(), cache_dir=tmp_path / "cache")
    first = GitTree.open(REPO, "main", options)
    (upstream / "notes.yaml").write_text("note: written by the test\n")
    git_out(upstream, "add", "notes.yaml")
    git_out(upstream, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit",
            "-qm", "test commit")
    new = git_out(upstream, "rev-parse", "HEAD")
    assert new != first.commit
    tree = GitTree.open(REPO, new, options)
    assert tree.read("notes.yaml") == b"note: written by the test\n"
    assert tree.fetched_from == upstream.as_uri()
    assert cache_path(tmp_path / "cache", REPO, upstream.as_uri()).is_dir()


def test_corrupted_object_is_prov001(tmp_path: Path) -> None:
    """A loose object whose content no longer matches its id (a damaged clone) is caught."""
    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a.yaml").write_bytes(b"key: original\n")
    git_out(repo, "add", "a.yaml")
    git_out(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "x")
    blob = git_out(repo, "rev-parse", "HEAD:a.yaml")
    obj = repo / ".git" / "objects" / blob[:2] / blob[2:]
    obj.chmod(0o644)
    altered = b"key: altered!\n"
    obj.write_bytes(zlib.compress(b"blob %d\0" % len(altered) + altered))
    commit = git_out(repo, "rev-parse", "HEAD")
    tree = GitTree("o/r", commit, None, git.Repo(repo), str(repo))
    with pytest.raises(VerificationError) as info:
        tree.read("a.yaml")
    assert info.value.rule_id == "PROV001"
    assert blob in str(info.value)
    with pytest.raises(VerificationError, match="PROV001"):
        tree.provenance("a.yaml", altered)


def test_expected_sha256(commit_map: dict[str, str], git_options: FetchOptions) -> None:
    tree = GitTree.open(REPO, commit_map[UPSTREAM_PINS[0]], git_options)
    data = tree.read(GLM)
    tree.expect(GLM, hashlib.sha256(data).hexdigest(), "test")
    tree.provenance(GLM, data)
    tree.expect(GLM, "0" * 64, "--expect-sha256")
    with pytest.raises(VerificationError, match=r"PROV002 .*--expect-sha256 expects 0{64}"):
        tree.provenance(GLM, data)


def test_symlink_not_followed(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "link.yaml").symlink_to("/etc/passwd")
    git_out(repo, "add", "link.yaml")
    git_out(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "x")
    tree = GitTree("o/r", git_out(repo, "rev-parse", "HEAD"), None, git.Repo(repo), str(repo))
    assert not tree.exists("link.yaml")
    assert tree.list("") == []
    with pytest.raises(SourceError, match="symbolic link"):
        tree.read("link.yaml")


def test_helpers() -> None:
    assert redact_url("https://user:tok@example.com/o/r.git") == "https://example.com/o/r.git"
    assert redact_url("/local/path") == "/local/path"
    assert utc_iso("2026-08-10T10:34:36+08:00") == "2026-08-10T02:34:36Z"
    with pytest.raises(SourceError, match="full 40-hex"):
        GitTree("o/r", "main", None, None, "x")  # type: ignore[arg-type]  # no repo needed: refused first


def test_bom_file_digests_are_those_of_the_stored_bytes(tmp_path: Path) -> None:
    """A file with a UTF-8 BOM verifies with its exact bytes; the same text without the
    BOM is different bytes and fails verification (no normalisation of any kind)."""
    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    stored = b"\xef\xbb\xbfkey: 1\n"
    (repo / "t.yaml").write_bytes(stored)
    git_out(repo, "add", "t.yaml")
    git_out(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "x")
    tree = GitTree("o/r", git_out(repo, "rev-parse", "HEAD"), None, git.Repo(repo), str(repo))
    data = tree.read("t.yaml")
    assert data == stored
    prov = tree.provenance("t.yaml", data)
    assert prov.sha256 == hashlib.sha256(stored).hexdigest()
    assert prov.git_blob == git_out(repo, "rev-parse", "HEAD:t.yaml")
    with pytest.raises(VerificationError, match="PROV001"):
        tree.provenance("t.yaml", b"key: 1\n")
