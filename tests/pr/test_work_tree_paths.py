"""``pr`` does not trust the work tree: in the Action it is the pull request's checkout.

A ``--config`` path inside the repository is read at the merge base (a pull request that
edits the named file cannot switch its own checks off); one outside it is read from disk.
A report path inside the repository that is, or passes through, a symbolic link there is
refused before anything is written (a committed link would make the run write, and create
folders, anywhere the runner's user can write); ``check`` still writes through links.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main

from .conftest import commit_all, git

CHAT = "models/example-org/Example-Chat-8B.yaml"


def _add_error(repo: Path) -> None:
    """Make the chat recipe name a strategy that does not exist (REF002, an error)."""
    recipe = repo / CHAT
    recipe.write_text(recipe.read_text(encoding="utf-8").replace(
        "compatible_strategies:\n", "compatible_strategies:\n  - no_such_strategy\n", 1),
        encoding="utf-8")


def _pr(repo: Path, capsys: pytest.CaptureFixture[str], *extra: str
        ) -> tuple[int, dict[str, Any], str]:
    code = main(["pr", "--offline", "--repo", str(repo), "--base", "main", "--head", "HEAD",
                 "--format", "json", "--no-summary", *extra])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else {}, err


def _new_rules(data: dict[str, Any]) -> set[str]:
    return {f["rule"] for d in data["documents"] for f in d["findings"]
            if f["baseline"] == "new"}


@pytest.fixture()
def silencing_pr(example_repo: Path) -> Path:
    """``example_repo`` on a branch that adds an error and a ``.recipe-check.toml``
    ignoring every rule (checked out: the work tree is the pull request's)."""
    git(example_repo, "checkout", "-q", "-b", "pr")
    _add_error(example_repo)
    (example_repo / ".recipe-check.toml").write_text('ignore = ["ALL"]\n', encoding="utf-8")
    commit_all(example_repo, "silence every rule, add an error")
    return example_repo


@pytest.mark.parametrize("spelling", ["relative", "absolute"])
def test_config_inside_the_repository_is_read_at_the_merge_base_not_from_the_work_tree(
        silencing_pr: Path, spelling: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(silencing_pr)
    config = ".recipe-check.toml" if spelling == "relative" \
        else str(silencing_pr / ".recipe-check.toml")
    code, data, err = _pr(silencing_pr, capsys, "--config", config)
    assert code == 1 and "REF002" in _new_rules(data)
    # the file is not at the merge base: no configuration file, and stderr says so
    assert "--config" in err and "not a file of the repository at the merge base" in err
    assert "config" not in data["context"]


def test_config_inside_the_repository_uses_the_merge_base_version(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (example_repo / "ci").mkdir()
    (example_repo / "ci" / "rc.toml").write_text('ignore = ["GUIDE"]\n', encoding="utf-8")
    commit_all(example_repo, "maintainer's configuration")
    git(example_repo, "checkout", "-q", "-b", "pr")
    (example_repo / "ci" / "rc.toml").write_text('ignore = ["ALL"]\n', encoding="utf-8")
    _add_error(example_repo)
    commit_all(example_repo, "silence every rule, add an error")
    code, data, err = _pr(example_repo, capsys, "--config", str(example_repo / "ci/rc.toml"))
    assert code == 1 and "REF002" in _new_rules(data) and err == ""
    main_commit = git(example_repo, "rev-parse", "main")
    assert data["context"]["config"] == f"{main_commit[:12]}:ci/rc.toml"
    assert not any(f["rule"].startswith("GUIDE")
                   for d in data["documents"] for f in d["findings"])


def test_config_outside_the_repository_is_read_from_disk(
        silencing_pr: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    own = tmp_path / "maintainer.toml"
    own.write_text('ignore = ["REF"]\n', encoding="utf-8")
    code, data, _err = _pr(silencing_pr, capsys, "--config", str(own))
    assert code == 0 and "REF002" not in _new_rules(data)
    assert data["context"]["config"] == "maintainer.toml"


@pytest.fixture()
def linking_pr(example_repo: Path, tmp_path: Path) -> tuple[Path, Path]:
    """``example_repo`` checked out on a branch committing ``report.sarif`` as a link to a
    file in a folder outside the repository that does not exist yet, and ``out`` as a link
    to a folder outside; and that outside folder."""
    victim = tmp_path / "victim"
    git(example_repo, "checkout", "-q", "-b", "pr")
    os.symlink(victim / "dir" / "owned.sh", example_repo / "report.sarif")
    os.symlink(victim, example_repo / "out")
    _add_error(example_repo)
    commit_all(example_repo, "links")
    return example_repo, victim


@pytest.mark.parametrize("option", ["--output", "--json", "--sarif", "--markdown", "--summary"])
@pytest.mark.parametrize("name", ["report.sarif", "out/new/r.txt"])
def test_pr_refuses_a_report_path_through_a_link_in_the_repository(
        linking_pr: tuple[Path, Path], option: str, name: str,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    repo, victim = linking_pr
    monkeypatch.chdir(repo)
    fmt = ["--format", "sarif"] if option == "--output" else ["--format", "text"]
    code = main(["pr", "--offline", "--repo", ".", "--base", "main", "--head", "HEAD",
                 *fmt, option, name])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{option} {name}: " in err and "symbolic link inside the repository" in err
    assert not victim.exists() or list(victim.iterdir()) == []


def test_pr_writes_reports_inside_the_repository_and_outside_it(
        linking_pr: tuple[Path, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    repo, _victim = linking_pr
    monkeypatch.chdir(repo)
    outside = tmp_path / "elsewhere" / "r.json"
    code = main(["pr", "--offline", "--repo", ".", "--base", "main", "--head", "HEAD",
                 "--format", "text", "--sarif", "reports/new/r.sarif", "--json", str(outside),
                 "--no-summary"])
    capsys.readouterr()
    assert code == 1
    assert json.loads((repo / "reports/new/r.sarif").read_text(encoding="utf-8"))["runs"]
    assert json.loads(outside.read_text(encoding="utf-8"))["documents"]


def test_pr_follows_a_link_on_the_way_to_the_repository(
        linking_pr: tuple[Path, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A link above the work tree (``--repo`` named through a link) is the maintainer's."""
    repo, _victim = linking_pr
    via = tmp_path / "via"
    os.symlink(repo, via)
    code = main(["pr", "--offline", "--repo", str(via), "--base", "main", "--head", "HEAD",
                 "--format", "text", "--json", str(via / "r.json"), "--no-summary"])
    capsys.readouterr()
    assert code == 1 and (repo / "r.json").is_file()


def test_check_still_writes_through_a_link(linking_pr: tuple[Path, Path],
                                           capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    repo, victim = linking_pr
    monkeypatch.chdir(repo)
    code = main(["check", "--offline", "--format", "text", "--sarif", "report.sarif", CHAT])
    capsys.readouterr()
    assert code == 1 and json.loads((victim / "dir/owned.sh").read_text(encoding="utf-8"))
