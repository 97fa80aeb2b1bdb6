"""``pr``, ``history`` and ``diff`` refuse a report file that is a file of the run's
recipes (the work-tree file of a recipe, the taxonomy, a strategy, a configuration
file, ``--config``), as ``check`` does: exit 2, nothing written, the file kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git_out as _git
from validator.cli import main

RECIPE = "models/example-org/Example-Chat-8B.yaml"


@pytest.fixture()
def repo(examples_repo: Path) -> Path:
    """The example recipes root as a git repository of two commits (the second edits a
    recipe, so that ``pr`` and ``diff`` have a change to read)."""
    return examples_repo


def _refused(argv: list[str], option: str, report: Path, victim: Path,
             capsys: pytest.CaptureFixture[str]) -> None:
    """``argv`` (ending in ``option report``) exits 2 naming ``victim``, kept as it was."""
    before = victim.read_bytes()
    assert main([*argv, option, str(report)]) == 2
    err = capsys.readouterr().err
    assert f"{option} {report}: is {victim}, a file this run reads" in err, err
    assert "Traceback" not in err
    assert victim.read_bytes() == before


@pytest.mark.parametrize(("option", "victim"), [
    ("--output", RECIPE), ("--json", "taxonomy.yaml"), ("--sarif", RECIPE),
    ("--markdown", "strategies/single_node_tp.yaml"), ("--summary", RECIPE),
])
def test_pr_refuses_a_report_over_a_file_of_the_repository(
        repo: Path, option: str, victim: str, capsys: pytest.CaptureFixture[str]) -> None:
    _refused(["pr", "--repo", str(repo), "--base", "main~1", "--head", "main"],
             option, repo / victim, repo / victim, capsys)


def test_pr_refuses_a_link_to_a_recipe_and_the_config_file(
        repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "report.sarif"
    recipe = repo / "models/example-org/Example-MoE-120B.yaml"  # not changed by the PR
    link.symlink_to(recipe)
    _refused(["pr", "--repo", str(repo), "--base", "main~1", "--head", "main"],
             "--output", link, recipe, capsys)
    config = tmp_path / "rc.toml"
    config.write_text("ignore = []\n", "utf-8")
    _refused(["pr", "--repo", str(repo), "--base", "main~1", "--config", str(config)],
             "--json", config, config, capsys)


def test_pr_writes_a_report_next_to_the_recipes(repo: Path, tmp_path: Path) -> None:
    report = repo / "report.json"  # not a file of the run: written
    assert main(["pr", "--repo", str(repo), "--base", "main~1", "--head", "main",
                 "--format", "json", "--output", str(report)]) in (0, 1)
    assert report.read_text("utf-8").startswith("{")


@pytest.mark.parametrize(("option", "victim"), [
    ("--output", RECIPE), ("--json", "taxonomy.yaml"),
    ("--output", "strategies/multi_node_tp.yaml"),
])
def test_history_refuses_a_report_over_a_file_of_the_repository(
        repo: Path, option: str, victim: str, capsys: pytest.CaptureFixture[str]) -> None:
    _refused(["history", "--repo", str(repo), "--no-cache", "--jobs", "1"],
             option, repo / victim, repo / victim, capsys)


def test_history_refuses_a_hard_link_to_its_config_file(
        repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".recipe-check.toml").write_text("ignore = []\n", "utf-8")
    hard = tmp_path / "audit.json"
    hard.hardlink_to(repo / ".recipe-check.toml")
    _refused(["history", "--repo", str(repo), "--no-cache", "--jobs", "1"],
             "--json", hard, repo / ".recipe-check.toml", capsys)


def test_diff_refuses_a_report_over_either_recipe_or_its_context(
        repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = tmp_path / "old"
    _git(tmp_path, "clone", "-q", str(repo), str(old))
    _git(old, "checkout", "-q", "main~1")
    for victim in (repo / RECIPE, old / RECIPE, old / "taxonomy.yaml"):
        _refused(["diff", str(old / RECIPE), str(repo / RECIPE)], "--output", victim, victim,
                 capsys)


def test_diff_of_revisions_refuses_the_work_tree_recipe(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for option in ("--output", "--json"):
        _refused(["diff", "main~1", "main", RECIPE, "--repo", str(repo)],
                 option, repo / RECIPE, repo / RECIPE, capsys)
