"""``history`` with nothing to audit: ``--since`` equal to ``--rev`` (an incremental audit
with no new commit) and a shard that holds none of the selected recipe paths are empty
audits (exit 0, a report saying no commit or no recipe was audited); a ``--since`` that
is not an ancestor of ``--rev`` is a usage error naming that cause; a PATH that names
no recipe stays one (not passed as "no findings"), the empty range or not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.history.fixed_date_git import git as _git
from tests.render.tiny_tree import write_tree
from validator.cli import main

RECIPE = "models/acme/Tiny-1B.yaml"


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, list[str]]:
    """The tiny tree, then two commits editing its recipe's title. Returns the
    repository and its three commits, oldest first."""
    root = write_tree(tmp_path / "repo")
    _git(root.parent, "init", "-q", "-b", "main", str(root))
    commits = []
    for n in range(3):
        if n:
            path = root / RECIPE
            path.write_text(path.read_text("utf-8") + f"# edit {n}\n", "utf-8")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"commit {n}")
        commits.append(_git(root, "rev-parse", "HEAD"))
    return root, commits


def _history(capsys: pytest.CaptureFixture[str], root: Path, *argv: str
             ) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["history", "--repo", str(root), "--no-cache", "--jobs", "1", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_an_incremental_audit_with_no_new_commit_is_empty_and_passes(
        repo: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    root, commits = repo
    for paths in ((), ("models/acme",)):
        code, out, err = _history(capsys, root, "--rev", "main", "--since", commits[-1],
                                  *paths)
        assert (code, err) == (0, "")
        assert "no commit was audited: --rev 'main' has no commit after --since" in out
        assert "0 revision(s)" in out
    code, out, _err = _history(capsys, root, "--since", "main", "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["revisions"] == [] and report["summary"]["revisions"] == 0
    # a PATH naming no recipe (at --since, as nothing after it is audited) stays an error
    code, _out, err = _history(capsys, root, "--since", "main", "models/nosuch")
    assert code == 2 and "no recipe at --since 'main' matches: models/nosuch" in err


def test_a_since_that_is_not_an_ancestor_of_rev_says_so(
        repo: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    root, commits = repo
    code, _out, err = _history(capsys, root, "--rev", commits[0], "--since", commits[1],
                               "models/acme")
    assert code == 2
    assert f"--since '{commits[1]}'" in err and "is not an ancestor of --rev" in err
    assert "no recipe" not in err


def test_a_shard_without_a_selected_recipe_is_an_empty_audit(
        repo: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    root, _commits = repo
    empty = next(f"{k}/4" for k in range(1, 5)
                 if not _shard_holds(capsys, root, f"{k}/4"))
    code, out, err = _history(capsys, root, "--shard", empty, RECIPE)
    assert (code, err) == (0, "")
    assert f"no recipe was audited: none of the 1 recipe path(s) selected falls in " \
           f"shard {empty}" in out


def _shard_holds(capsys: pytest.CaptureFixture[str], root: Path, shard: str) -> bool:
    code, out, _err = _history(capsys, root, "--shard", shard, "--format", "json", RECIPE)
    return code == 0 and json.loads(out)["summary"]["recipes"] > 0
