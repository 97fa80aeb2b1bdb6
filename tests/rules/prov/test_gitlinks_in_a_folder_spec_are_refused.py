"""A folder spec ``OWNER/REPO@REV:models/`` fails closed on submodule entries, as ``pr``
does: a gitlink with a recipe's name, or any gitlink below the folder (another
repository's commit, whose recipes this revision does not hold), is a PROV005 error
naming it, not an entry the listing leaves out in silence."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from tests.source.github_server import GitHubServer
from validator.cli import main

REPO = "example-org/recipes"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                           *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    dest = Path(shutil.copytree(EXAMPLES, tmp_path / "recipes"))
    _git(dest, "init", "-q", "-b", "main")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-qm", "example tree")
    return dest


def _add_gitlinks(repo: Path, *paths: str) -> str:
    target = _git(repo, "rev-parse", "HEAD")
    for path in paths:
        _git(repo, "update-index", "--add", "--cacheinfo", f"160000,{target},{path}")
    _git(repo, "commit", "-qm", "gitlinks")
    return _git(repo, "rev-parse", "HEAD")


def _check(repo: Path, commit: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
           backend: str) -> tuple[int, dict[str, list[str]]]:
    args = [f"{REPO}@{commit}:models/", "--cache-dir", str(tmp_path / "cache"),
            "--store-dir", str(tmp_path / "store"), "--format", "json", "--no-cache"]
    if backend == "git":
        code = main([*args, "--git-url", str(repo)])
    else:  # the GitHub API's recursive tree listing names a gitlink as type "commit"
        with GitHubServer(repo, REPO) as server:
            code = main([*args, "--backend", "http", "--raw-base-url", server.raw_base,
                         "--api-base-url", server.api_base])
    out = json.loads(capsys.readouterr().out)
    return code, {d["path"]: [f"{f['rule']} {f['severity']} {f['message']}"
                              for f in d["findings"] if f["rule"].startswith("PROV00")]
                  for d in out["documents"]}


@pytest.mark.parametrize("backend", ["git", "http"])
def test_gitlinks_below_a_checked_folder_are_errors(
        backend: str, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clean = _git(repo, "rev-parse", "HEAD")
    _, docs = _check(repo, clean, tmp_path, capsys, backend)  # the control: no PROV finding
    assert docs and all(not v for v in docs.values())
    recipes = set(docs)
    named, folder = "models/example-org/Example-Sub.yaml", "models/vendored-recipes"
    commit = _add_gitlinks(repo, named, folder)
    code, docs = _check(repo, commit, tmp_path, capsys, backend)
    assert code == 1
    for path in (named, folder):
        [finding] = docs[path]
        assert finding.startswith("PROV005 error ")
        assert path in finding and "submodule entry (gitlink to commit" in finding
    assert {p for p, v in docs.items() if v} == {named, folder}
    assert set(docs) == recipes | {named, folder}
