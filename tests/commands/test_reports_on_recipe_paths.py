"""A report file may not be, or become, a recipe of the recipes tree a command reads: a
``.yaml``/``.yml`` path below its ``models/`` folder is refused before anything is
written, whether the run reads that recipe or not, and whether it exists or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.cli import main

CHECKED = "models/example-org/Example-Chat-8B.yaml"
OTHER = "models/example-org/Example-MoE-120B.yaml"


@pytest.mark.parametrize("option", ["--output", "--json", "--sarif", "--markdown"])
def test_a_report_onto_a_recipe_the_run_does_not_read_is_refused_and_the_recipe_kept(
        examples_tree: Path, option: str, capsys: pytest.CaptureFixture[str]) -> None:
    before = (examples_tree / OTHER).read_bytes()
    assert main(["check", str(examples_tree / CHECKED), option, str(examples_tree / OTHER)]) == 2
    err = capsys.readouterr().err
    assert f"{option} {examples_tree / OTHER}: is a recipe of the recipes tree" in err
    assert "(models/example-org/Example-MoE-120B.yaml)" in err
    assert (examples_tree / OTHER).read_bytes() == before


def test_a_new_yaml_report_below_models_is_refused_and_not_created(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = examples_tree / "models/reports/out.yml"
    (examples_tree / "models/reports").mkdir()
    assert main(["check", str(examples_tree / CHECKED), "--output", str(report)]) == 2
    assert "would be read as a recipe of the recipes tree" in capsys.readouterr().err
    assert not report.exists()


def test_a_yaml_report_reached_through_a_link_into_models_is_refused(
        examples_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "elsewhere"
    link.symlink_to(examples_tree / "models/example-org")
    assert main(["check", str(examples_tree / CHECKED), "--json",
                 str(link / "report.yaml")]) == 2
    assert "would be read as a recipe of the recipes tree" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["models/report.json", "report.yaml", "models.yaml"])
def test_reports_outside_models_or_not_named_yaml_are_written(
        examples_tree: Path, name: str) -> None:
    report = examples_tree / name
    assert main(["check", str(examples_tree / CHECKED), "--format", "json",
                 "--output", str(report)]) == 0
    assert report.read_text("utf-8").startswith("{")


def test_history_and_pr_refuse_a_report_onto_a_recipe_of_their_repository(
        examples_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = examples_repo / "models/example-org/New.yaml"
    assert main(["history", "--repo", str(examples_repo), "--output", str(report)]) == 2
    assert "would be read as a recipe" in capsys.readouterr().err
    assert main(["pr", "--repo", str(examples_repo), "--base", "HEAD~1", "--head", "HEAD",
                 "--offline", "--output", str(report)]) == 2
    assert "would be read as a recipe" in capsys.readouterr().err
    assert not report.exists()
