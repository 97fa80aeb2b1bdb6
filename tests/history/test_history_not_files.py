"""A recipe path committed as a symbolic link or a submodule entry (gitlink) is not read
by ``history``, as by ``pr``, and both say so with the same ``PROV005`` error: it is
introduced where the entry appears and fixed where a regular file replaces it, instead of
the path being passed over in silence."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.history.fixed_date_git import git as _git
from tests.render.tiny_tree import write_tree
from validator.cli import main

RECIPE = "models/acme/Tiny-1B.yaml"
LINK = "models/acme/Linked-1B.yaml"
GITLINK = "models/acme/Sub-1B.yaml"
SUBMODULE_COMMIT = "1234567890abcdef1234567890abcdef12345678"


def _commit(repo: Path, message: str, *paths: str) -> str:
    _git(repo, "add", *(paths or ("-A",)))  # "-A" would drop the gitlink (no folder)
    _git(repo, "commit", "-qm", message)
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, list[str]]:
    """The tiny tree; then a link and a gitlink beside its recipe; then both replaced by
    copies of the recipe. Returns the repository and the three commits."""
    repo = write_tree(tmp_path / "repo")
    _git(repo.parent, "init", "-q", "-b", "main", str(repo))
    commits = [_commit(repo, "tiny tree")]
    (repo / LINK).symlink_to("Tiny-1B.yaml")
    _git(repo, "update-index", "--add", "--cacheinfo", f"160000,{SUBMODULE_COMMIT},{GITLINK}")
    commits.append(_commit(repo, "a link and a gitlink", LINK))
    _git(repo, "rm", "-q", "--cached", GITLINK)
    (repo / LINK).unlink()
    text = (repo / RECIPE).read_text("utf-8")
    for path in (LINK, GITLINK):
        (repo / path).write_text(text.replace("Tiny-1B", Path(path).stem), "utf-8")
    commits.append(_commit(repo, "files instead", LINK, GITLINK))
    return repo, commits


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, Any]:
    capsys.readouterr()
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


def _pr_refusals(repo: Path, base: str, head: str,
                 capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, Any]]:
    code, report = _json(capsys, ["pr", "--repo", str(repo), "--base", base, "--head", head,
                                  "--offline", "--format", "json", "--no-summary"])
    assert code == 1
    return {d["path"]: f for d in report["documents"] for f in d["findings"]
            if f["rule"] == "PROV005"}


def test_history_gives_a_committed_link_and_gitlink_the_prov005_pr_gives(
        repo: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    root, (tiny, added, replaced) = repo
    code, report = _json(capsys, ["history", "--repo", str(root), "--no-cache", "--jobs", "1",
                                  "--format", "json"])
    assert code in (0, 1)
    by_commit = {r["commit"]: r for r in report["revisions"]}
    introduced = {c["path"]: c for c in by_commit[added]["introduced"]
                  if c["rule"] == "PROV005"}
    assert set(introduced) == {LINK, GITLINK}
    pr = _pr_refusals(root, tiny, added, capsys)
    assert set(pr) == {LINK, GITLINK}
    for path, change in introduced.items():
        mine = {k: change[k] for k in ("rule", "severity", "pointer", "line", "column")}
        assert mine == {k: pr[path][k] for k in mine}
        # pr names the commit it read; history reports each revision under its own
        assert change["message"] == re.sub(r" in commit [0-9a-f]{40}", "", pr[path]["message"])
        assert change["note"] == "file added"
    assert "symbolic link" in introduced[LINK]["message"]
    assert SUBMODULE_COMMIT in introduced[GITLINK]["message"]
    fixed = {c["path"] for c in by_commit[replaced]["fixed"] if c["rule"] == "PROV005"}
    assert fixed == {LINK, GITLINK}
    assert not [c for c in by_commit[replaced]["introduced"] if c["rule"] == "PROV005"]
