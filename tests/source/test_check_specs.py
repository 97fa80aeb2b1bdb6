"""``recipe-check OWNER/REPO@REV:PATH`` end to end against a local mirror of the corpus."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from validator.cli import main

from ._util import GLM, REPO, UPSTREAM_PINS, git_out

pytestmark = pytest.mark.corpus


def test_cli_pinned_spec_via_env(commit_map: dict[str, str], corpus_repo: Path,
                                 git_cache: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    commit = commit_map[UPSTREAM_PINS[0]]
    monkeypatch.setenv("RECIPE_CHECK_GIT_URL", str(corpus_repo))
    code = main([f"{REPO}@{commit}:{GLM}", "--cache-dir", str(git_cache), "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    doc = out["documents"][0]
    assert doc["path"] == GLM
    assert doc["revision"] == commit
    assert doc["repository"] == REPO
    assert doc["resolved_from"] is None
    assert doc["gitBlob"] == git_out(corpus_repo, "rev-parse", f"{commit}:{GLM}")
    # this early revision lacks date_added (a schema error), so the run fails
    assert code == 1
    assert "PROV004" not in {f["rule"] for f in doc["findings"]}


def test_console_script_prints_revision(commit_map: dict[str, str], corpus_repo: Path,
                                        tmp_path: Path) -> None:
    commit = commit_map[UPSTREAM_PINS[1]]
    env = {**os.environ, "RECIPE_CHECK_GIT_URL": str(corpus_repo),
           "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    proc = subprocess.run([sys.executable, "-m", "validator", f"{REPO}@{commit}:{GLM}"],
                          env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 1, proc.stderr
    assert f"{GLM} @ {commit}" in proc.stdout
    assert (tmp_path / "xdg" / "recipe-check" / "git" / "vllm-project").is_dir()


def test_branch_gives_prov004(corpus_repo: Path, git_cache: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    code = main([f"{REPO}@main:{GLM}", "--git-url", str(corpus_repo), "--cache-dir",
                 str(git_cache), "--format", "json", "--select", "PROV"])
    doc = json.loads(capsys.readouterr().out)["documents"][0]
    assert doc["resolved_from"] == "main"
    assert doc["revision"] == git_out(corpus_repo, "rev-parse", "main")
    prov = [f for f in doc["findings"] if f["rule"] == "PROV004"]
    assert len(prov) == 1 and prov[0]["severity"] == "warning"
    assert code == 0
    assert main([f"{REPO}@main:{GLM}", "--git-url", str(corpus_repo), "--cache-dir",
                 str(git_cache), "--strict", "--select", "PROV"]) == 1


def test_a_branch_resolved_once_warns_once_for_a_whole_folder(
        corpus_repo: Path, git_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main([f"{REPO}@main:models/zai-org/", "--git-url", str(corpus_repo),
                 "--cache-dir", str(git_cache), "--format", "json", "--jobs", "1"])
    docs = json.loads(capsys.readouterr().out)["documents"]
    recipes = [d for d in docs if d["path"].startswith("models/zai-org/")]
    assert len(recipes) > 5 and all(d["resolved_from"] == "main" for d in recipes)
    prov = [(d["path"], f["message"]) for d in docs for f in d["findings"]
            if f["rule"] == "PROV004"]
    assert len(prov) == 1, prov
    assert prov[0][0] == docs[0]["path"]
    assert f"and for the {len(docs) - 1} other file(s)" in prov[0][1]
    assert code in (0, 1)


def test_expect_sha256_mismatch_is_prov002(commit_map: dict[str, str], corpus_repo: Path,
                                           git_cache: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    commit = commit_map[UPSTREAM_PINS[2]]
    code = main([f"{REPO}@{commit}:{GLM}", "--git-url", str(corpus_repo), "--cache-dir",
                 str(git_cache), "--expect-sha256", "ab" * 32, "--format", "json"])
    doc = json.loads(capsys.readouterr().out)["documents"][0]
    assert [f["rule"] for f in doc["findings"]] == ["PROV002"]
    assert code == 1


@pytest.mark.parametrize("spec, message", [
    (f"{REPO}@main:../x.yaml", "'..', '.' and empty segments"),
    (f"{REPO}@main:%2e%2e/x.yaml", "percent-encoded"),
    (f"{REPO}@main:/etc/passwd", "not absolute"),
    (f"{REPO}@main:models/none.yaml", "not found in vllm-project/recipes@"),
    (f"{REPO}@nope:{GLM}", "no such branch, tag or commit"),
])
def test_bad_specs_exit_2(spec: str, message: str, corpus_repo: Path, git_cache: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    code = main([spec, "--git-url", str(corpus_repo), "--cache-dir", str(git_cache)])
    assert code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_expect_sha256_needs_one_spec(corpus_repo: Path, git_cache: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    spec = f"{REPO}@main:{GLM}"
    assert main([spec, spec, "--git-url", str(corpus_repo), "--cache-dir", str(git_cache),
                 "--expect-sha256", "00" * 32]) == 2
    assert "exactly one" in capsys.readouterr().err


def test_concurrent_first_clones_share_one_cache(corpus_repo: Path, tmp_path: Path) -> None:
    """Threads opening the same repository on an empty cache clone it once, safely."""
    import threading

    from validator.source.git import GitTree, cache_path
    from validator.source.options import FetchOptions

    options = FetchOptions(git_url=str(corpus_repo), cache_dir=tmp_path / "cache")
    commits: list[str] = []
    errors: list[BaseException] = []

    def open_tree() -> None:
        try:
            commits.append(GitTree.open(REPO, "main", options).commit)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_tree) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert set(commits) == {git_out(corpus_repo, "rev-parse", "main")}
    mirror = cache_path(tmp_path / "cache", REPO, str(corpus_repo))
    assert [p.name for p in mirror.parent.iterdir() if p.is_dir()] == [mirror.name]


def test_spec_folder_expands_to_its_recipes(commit_map: dict[str, str], corpus_repo: Path,
                                            git_cache: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    commit = commit_map[UPSTREAM_PINS[3]]
    main([f"{REPO}@{commit}:models/zai-org", "--git-url", str(corpus_repo), "--cache-dir",
          str(git_cache), "--format", "json"])
    docs = json.loads(capsys.readouterr().out)["documents"]
    expected = git_out(corpus_repo, "ls-tree", "--name-only", commit, "models/zai-org/")
    recipes = sorted(d["path"] for d in docs if d["path"].startswith("models/"))
    assert recipes == sorted(expected.split())
    assert all(d["revision"] == commit for d in docs)
