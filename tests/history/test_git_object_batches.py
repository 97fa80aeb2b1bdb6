"""The audit reads commits from ``git cat-file --batch`` many at a time; the answers stay
in step with the requests: a missing object in a batch is reported by id, and the objects
read after it are still the right ones."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from validator.history import gitdata
from validator.history.gitdata import GitError, GitObjects


def _repo(root: Path, commits: int) -> list[str]:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    ids = []
    for i in range(commits):
        (root / "f.txt").write_text(f"{i}\n" * (i + 1))
        subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=env)
        subprocess.run(["git", "-C", str(root), "commit", "-qm", f"c{i}\n\nbody {i}"],
                       check=True, env=env)
        ids.append(subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], check=True,
                                  capture_output=True, text=True).stdout.strip())
    return ids


def test_commits_read_in_batches_are_those_read_one_by_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _repo(tmp_path / "r", 7)
    monkeypatch.setattr(gitdata, "BATCH", 3)  # batches of 3, 3 and 1
    with GitObjects(tmp_path / "r") as objects:
        batched = objects.commits(ids)
        alone = [objects.commit(i) for i in ids]
    assert batched == alone
    assert [c.subject for c in batched] == [f"c{i}" for i in range(7)]
    assert all(c.parents == (ids[n - 1],) for n, c in enumerate(batched) if n)


def test_a_missing_object_in_a_batch_is_named_and_later_reads_stay_in_step(
        tmp_path: Path) -> None:
    ids = _repo(tmp_path / "r", 3)
    missing = "0" * 40
    with GitObjects(tmp_path / "r") as objects:
        with pytest.raises(GitError, match=f"object {missing} not found"):
            objects.read_many([ids[0], missing, ids[1]])
        assert objects.commit(ids[2]).subject == "c2"
        assert [c.id for c in objects.commits(ids)] == ids


def test_prefetched_trees_are_the_trees_read_one_by_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _repo(tmp_path / "r", 5)
    monkeypatch.setattr(gitdata, "BATCH", 2)
    with GitObjects(tmp_path / "r") as alone:
        expected = [alone.tree_entries(c.tree) for c in alone.commits(ids)]
    with GitObjects(tmp_path / "r") as objects:
        trees = [c.tree for c in objects.commits(ids)]
        objects.prefetch_trees(trees + trees[:2])
        assert [objects.tree_entries(t) for t in trees] == expected
