"""PR mode with hostile file names (issue 16, item 1): every changed path is listed from
NUL-separated git output, and a path that cannot be handled is an error finding."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import git as gitpython
import pytest

from validator.cli import main
from validator.pr.select import diff_changes

pytestmark = pytest.mark.corpus

BROKEN_RECIPE = b"model:\n  model_id: [unclosed\n"


def _git(repo: Path, *args: str, data: bytes | None = None) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          input=data).stdout.decode().strip()


@pytest.fixture()
def scratch(corpus_repo: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "scratch"
    subprocess.run(["git", "clone", "-q", "--shared", str(corpus_repo), str(dest)], check=True)
    _git(dest, "checkout", "-q", "-b", "work")
    _git(dest, "config", "user.email", "tests@example.invalid")
    _git(dest, "config", "user.name", "recipe-check tests")
    return dest


def _commit_files(repo: Path, files: dict[bytes, bytes]) -> str:
    """Commit ``files`` (raw byte names, any byte but NUL and '/') on top of HEAD with
    git plumbing, so names no file system would take are possible too."""
    for name, data in files.items():
        blob = _git(repo, "hash-object", "-w", "--stdin", data=data)
        subprocess.run(["git", "update-index", "--add", "--cacheinfo", "100644", blob,
                        name.decode("utf-8", "surrogateescape")], cwd=repo, check=True,
                       capture_output=True)
    tree = _git(repo, "write-tree")
    commit = _git(repo, "commit-tree", tree, "-p", "HEAD", "-m", "hostile names")
    _git(repo, "update-ref", "refs/heads/work", commit)
    return commit


def _pr_json(repo: Path, head: str,
             capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["pr", "--repo", str(repo), "--base", "main", "--head", head,
                 "--format", "json"])
    out = capsys.readouterr()
    return code, json.loads(out.out)


def test_newline_name_does_not_hide_broken_files(scratch: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The file of the issue: 'models/a/x' + LF + 'y:z' beside a broken recipe and a
    broken taxonomy. Every changed file is still seen; the run fails."""
    head = _commit_files(scratch, {
        b"models/a/x\ny:z": b"not a recipe\n",
        b"models/zz-org/Broken.yaml": BROKEN_RECIPE,
        b"taxonomy.yaml": b"hardware_profiles: [\n",
    })
    code, report = _pr_json(scratch, head, capsys)
    paths = {d["path"] for d in report["documents"]}
    assert {"models/zz-org/Broken.yaml", "taxonomy.yaml"} <= paths
    assert code == 1
    skipped = {s["path"] for s in report["context"]["pr"]["skipped"]}
    assert "models/a/x\ny:z" in skipped


@pytest.mark.parametrize("name", [
    b"models/a/tab\there.yaml", b"models/a/quote\"q.yaml", b"models/a/back\\slash.yaml",
    b"models/a/\xe2\x80\xaebidi.yaml", b"models/a/esc\x1b[31m.yaml",
    b"models/a/cr\r::error::x.yaml",
    b"models/a/sp ace.yaml", b"models/a/\xff\xfebad-utf8.yaml", b"models/a/nl\nx.yaml",
])
def test_every_hostile_recipe_name_is_checked_or_an_error(
        scratch: Path, name: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    head = _commit_files(scratch, {name: BROKEN_RECIPE})
    changes = diff_changes(gitpython.Repo(scratch), "main", head)
    assert len(changes) == 1
    code, report = _pr_json(scratch, head, capsys)
    assert code == 1
    assert len(report["documents"]) == 1
    rules = {f["rule"] for f in report["documents"][0]["findings"]}
    assert rules & {"YAML001", "PROV005", "PROV006"}, rules


def test_rename_and_delete_with_odd_names(scratch: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    recipes = sorted(_git(scratch, "ls-files", "models").splitlines())
    old = recipes[0]
    (scratch / "models" / "zz").mkdir()
    _git(scratch, "mv", old, "models/zz/ren\ta med.yaml")
    _git(scratch, "rm", "-q", recipes[1])
    _git(scratch, "commit", "-q", "-m", "rename")
    changes = {(c.status, c.path, c.old_path) for c in
               diff_changes(gitpython.Repo(scratch), "main", "work")}
    assert ("renamed", "models/zz/ren\ta med.yaml", old) in changes
    assert ("deleted", recipes[1], None) in changes


@pytest.mark.parametrize(("name", "blocked", "hint"), [
    (b"docs/\xffpicture.png", False, None),
    (b"models/a/\xffnotes.md", False, None),
    (b"strategies/\xffbad.yaml", True, "rename the file to a UTF-8 name in strategies/"),
    (b"kv_store/\xffbad.yaml", True, "rename the file to a UTF-8 name in kv_store/"),
    (b"models/a/\xffbad.yaml", True, "rename the file to a UTF-8 name under models/<org>/"),
])
def test_an_undecodable_name_fails_the_pr_only_where_a_check_would_read_the_file(
        scratch: Path, name: bytes, blocked: bool, hint: str | None,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A PR is not failed for a file no check reads (as ``check`` lists no such file);
    a recipe or context file of such a name is PROV006, the hint naming its folder."""
    head = _commit_files(scratch, {name: b"x: 1\n"})
    code, report = _pr_json(scratch, head, capsys)
    escaped = name.decode("utf-8", "backslashreplace")
    prov006 = [(d["path"], f["hint"]) for d in report["documents"] for f in d["findings"]
               if f["rule"] == "PROV006"]
    if blocked:
        assert code == 1
        assert prov006 == [(escaped, hint)]
    else:
        assert (code, prov006) == (0, [])
        skipped = {s["path"] for s in report["context"]["pr"]["skipped"]}
        assert escaped in skipped
