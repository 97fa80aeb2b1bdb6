"""A report or record file may not land inside the git directory of a repository (the
``.git`` a ``pr``, ``history`` or ``diff`` reads revisions from) or inside a snapshot store
(its lock file, the stored bytes of a recipe an offline run checks): every command that
writes reports refuses it, exit 2, naming the option and the file, before anything is
written (trial 8 #3: ``history --output .git/HEAD`` broke the repository, ``check
--offline SPEC --json`` onto a stored object replaced the recipe it checked)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git_out as _git
from validator.cli import main

RECIPE = "models/example-org/Example-Chat-8B.yaml"
REPO = "vllm-project/recipes"


@pytest.fixture()
def repo(examples_repo: Path) -> Path:
    """The example recipes root as a git repository of two commits (the second edits a
    recipe, so that ``pr`` and ``diff`` have a change to read)."""
    return examples_repo


def _refused(argv: list[str], option: str, report: Path, says: str,
             capsys: pytest.CaptureFixture[str]) -> None:
    """``argv`` with ``option report`` exits 2 naming both, and leaves ``report`` as it
    was (or absent)."""
    before = report.read_bytes() if report.is_file() else None
    assert main([*argv, option, str(report)]) == 2
    err = capsys.readouterr().err
    assert f"{option} {report}: " in err and says in err, err
    assert "Traceback" not in err
    assert (report.read_bytes() if report.is_file() else None) == before


@pytest.mark.parametrize(("argv", "option", "name"), [
    (["history", "--no-cache", "--jobs", "1"], "--output", "HEAD"),
    (["pr", "--base", "main~1", "--head", "main", "--no-summary"], "--json", "config"),
    (["diff", "main~1", "main", RECIPE], "--output", "index"),
    (["check", RECIPE], "--sarif", "description"),
    (["check", RECIPE], "--markdown", "new-report.md"),
])
def test_a_report_inside_the_repositorys_git_directory_is_refused(
        repo: Path, argv: list[str], option: str, name: str,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    _refused(argv, option, repo / ".git" / name, "the git directory of a repository",
             capsys)
    assert _git(repo, "rev-parse", "--abbrev-ref", "HEAD") == "main"  # still a repository


def test_a_report_through_a_link_into_git_or_onto_a_dot_git_file_is_refused(
        repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "report.json"
    link.symlink_to(repo / ".git" / "config")
    _refused(["check", str(repo / RECIPE)], "--json", link,
             "the git directory of a repository", capsys)
    worktree = tmp_path / "wt"
    _git(repo, "worktree", "add", "-q", str(worktree), "main~1")  # .git is a file there
    _refused(["check", str(worktree / RECIPE)], "--output", worktree / ".git",
             "is the .git of the repository", capsys)
    _refused(["check", str(repo / RECIPE)], "--output",
             repo / ".git" / "worktrees" / "wt" / "HEAD", "the git directory", capsys)


@pytest.fixture()
def store(repo: Path, tmp_path: Path) -> tuple[Path, str]:
    """A snapshot store holding the example recipe at ``main`` (fetched from ``repo``)."""
    folder = tmp_path / "store"
    spec = f"{REPO}@{_git(repo, 'rev-parse', 'main')}:{RECIPE}"
    assert main(["fetch", spec, "--git-url", str(repo), "--cache-dir",
                 str(tmp_path / "cache"), "--store-dir", str(folder)]) == 0
    return folder, spec


def test_reports_onto_a_snapshot_stores_objects_or_lock_file_are_refused(
        store: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    folder, spec = store
    objects = sorted(p for p in (folder / "objects").rglob("*") if p.is_file())
    offline = ["check", spec, "--offline", "--store-dir", str(folder)]
    says = "a snapshot store"
    _refused(offline, "--json", objects[0], says, capsys)
    _refused(offline, "--output", folder / "recipes.lock.json", says, capsys)
    _refused(["record", spec, "--offline", "--store-dir", str(folder)], "--output",
             folder / "recipes.lock.json", says, capsys)
    _refused(["record", spec, "--offline", "--store-dir", str(folder)], "--output",
             objects[-1], says, capsys)
    assert main(["snapshot", "verify", "--store-dir", str(folder)]) == 0  # every byte kept


def test_a_report_inside_a_store_other_than_the_runs_is_refused_and_beside_it_written(
        store: tuple[Path, str], tmp_path: Path, repo: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder, _spec = store
    _refused(["check", str(repo / RECIPE)], "--json", folder / "recipes.lock.json",
             "a snapshot store", capsys)
    beside = tmp_path / "report.json"
    assert main(["check", str(repo / RECIPE), "--json", str(beside)]) == 0
    assert beside.read_text("utf-8").startswith("{")


def test_publish_refuses_an_out_dir_or_site_inside_the_store_or_a_git_directory(
        store: tuple[Path, str], repo: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder, _spec = store
    base = ["publish", "--store-dir", str(folder)]
    for argv, option, says in (
            ([*base, "--out-dir", str(folder / "records")], "--out-dir", "a snapshot store"),
            ([*base, "--out-dir", str(folder)], "--out-dir", "a snapshot store"),
            ([*base, "--out-dir", str(repo / ".git" / "records")], "--out-dir",
             "the git directory of a repository"),
            ([*base, "--out-dir", str(tmp_path / "out"), "--site", str(repo / ".git/site")],
             "--site", "the git directory of a repository")):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"{option} " in err and says in err and "nothing published" in err, err
    assert not (folder / "records").exists() and not (repo / ".git" / "records").exists()
    assert not (tmp_path / "out").exists()
    assert main(["snapshot", "verify", "--store-dir", str(folder)]) == 0
