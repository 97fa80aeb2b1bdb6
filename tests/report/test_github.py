"""``--format github``: workflow-command annotations, escaping, grouping and caps."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from validator.checker import RunResult
from validator.cli import main
from validator.findings import Related, Severity, printable
from validator.report import get_reporter
from validator.report.github import (
    GithubReporter,
    annotation_properties,
    escape_data,
    escape_property,
    workflow_command,
)

from ._build import finding, result


def render(run: RunResult, **kwargs: Any) -> str:
    out = io.StringIO()
    GithubReporter(**kwargs).write(run, out)
    return out.getvalue()


def test_escaping_follows_the_actions_toolkit() -> None:
    assert escape_data("100%\r\nnext") == "100%25%0D%0Anext"
    assert escape_data("a: b, c") == "a: b, c"  # data keeps ':' and ','
    assert escape_property("REF001: a, b%\n") == "REF001%3A a%2C b%25%0A"
    line = workflow_command("error", {"file": "a,b.yaml", "title": "T: x"}, "m\n::x")
    assert line == "::error file=a%2Cb.yaml,title=T%3A x::m%0A::x"


def test_one_annotation_with_region_and_title() -> None:
    text = render(result(finding()), titles={"REF001": "model_id does not match the path"})
    assert text.splitlines()[:3] == [
        "::group::models/example-org/Example-7B.yaml",
        "::error file=models/example-org/Example-7B.yaml,line=2,col=13,endLine=2,"
        "endColumn=37,title=REF001%3A model_id does not match the path::model_id does not "
        "match the path%0Ahint: set model_id to the path",
        "::endgroup::",
    ]
    assert "1 file(s) checked: 1 error(s), 0 warning(s), 0 info(s)" in text
    assert "not annotated" not in text


def test_severity_commands_and_related_lines() -> None:
    run = result(finding(severity=Severity.WARNING, rule="REF013"),
                 finding(severity=Severity.INFO, rule="VER001", line=1, column=1, end_line=1,
                         related=(Related(7, "declared here"),)))
    text = render(run, titles={})
    assert "::warning file=" in text and "title=REF013::" in text
    assert "::notice file=models/example-org/Example-7B.yaml,line=1,col=1" in text
    assert "%0Asee models/example-org/Example-7B.yaml:7: declared here" in text


def test_multi_line_regions_have_no_columns() -> None:
    props = annotation_properties(finding(line=3, column=9, end_line=8, end_column=5),
                                  "f.yaml", "t")
    assert props == {"file": "f.yaml", "line": "3", "endLine": "8", "title": "t"}
    # a block scalar ends at column 1 of the next line: that line is not part of it
    props = annotation_properties(finding(line=3, column=9, end_line=4, end_column=1),
                                  "f.yaml", "t")
    assert props == {"file": "f.yaml", "line": "3", "col": "9", "title": "t"}
    # unknown position: file only
    props = annotation_properties(finding(line=0, column=0, end_line=None), "f.yaml", "t")
    assert props == {"file": "f.yaml", "title": "t"}


def test_caps_ten_per_kind_and_says_how_many_more() -> None:
    findings = [finding(line=i, end_line=i, message=f"error {i}") for i in range(1, 13)]
    findings += [finding(rule="REF013", severity=Severity.WARNING, line=20 + i,
                         end_line=20 + i, message=f"warning {i}") for i in range(11)]
    findings += [finding(rule="VER001", severity=Severity.INFO, line=40 + i, end_line=40 + i,
                         message=f"info {i}") for i in range(3)]
    text = render(result(*findings), titles={})
    lines = text.splitlines()
    assert sum(ln.startswith("::error ") for ln in lines) == 10
    assert sum(ln.startswith("::warning ") for ln in lines) == 10
    assert sum(ln.startswith("::notice ") for ln in lines) == 3
    # the rest are still in the log, as plain lines
    assert "models/example-org/Example-7B.yaml:11:13: error REF001 error 11; hint: set " \
           "model_id to the path" in lines
    assert ("recipe-check: 2 error(s), 1 warning(s) more not annotated (GitHub shows 10 of "
            "each kind per step); see the job summary for every finding") in lines


def test_recipe_text_cannot_start_a_workflow_command() -> None:
    hostile = "bad value\n::set-env name=PATH::/tmp\r\n::error::forged"
    run = result(finding(message=hostile, hint=hostile),
                 path="models/x\n::warning::forged.yaml")
    for limit in (10, 0):  # annotated, and plain overflow lines
        for line in render(run, titles={}, limit=limit).splitlines():
            assert not line.startswith(("::set-env", "::warning::forged", "::error::forged"))


def test_registered_as_format_github() -> None:
    out = io.StringIO()
    get_reporter("github").write(result(finding()), out)
    # the title comes from the rule registry
    assert "title=REF001%3A model.model_id does not match the file path::" in out.getvalue()


def _unescape(text: str, prop: bool) -> str:
    """The runner's unescaping (``ActionCommand.Unescape*``), for the round trip."""
    if prop:
        text = text.replace("%2C", ",").replace("%3A", ":")
    return text.replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")


@given(message=st.text(), value=st.text())
def test_any_text_stays_on_one_line_and_round_trips(message: str, value: str) -> None:
    line = workflow_command("error", {"file": value, "title": value}, message)
    assert "\n" not in line and "\r" not in line
    head, _, data = line.partition("::")[2].partition("::")
    # lossless up to the control/format characters written as \uXXXX (printable)
    assert _unescape(data, prop=False) == printable(message, keep="\r\n")
    props = dict(p.split("=", 1) for p in head.removeprefix("error ").split(","))
    assert _unescape(props["file"], prop=True) == printable(value, keep="\r\n")


@pytest.mark.parametrize(("argv", "env", "where"), [
    ([], {}, "each is a plain line of this log (no job summary is written"),
    ([], {"GITHUB_STEP_SUMMARY": "summary.md"}, "see the job summary for every finding"),
    (["--summary", "own.md"], {}, "see the job summary for every finding"),
    (["--summary", "own.md", "--no-summary"], {"GITHUB_STEP_SUMMARY": "summary.md"},
     "each is a plain line of this log (no job summary is written"),
])
def test_the_note_on_findings_past_the_limit_names_a_summary_only_when_one_is_written(
        tmp_path: Path, argv: list[str], env: dict[str, str], where: str,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "models" / "example-org"
    folder.mkdir(parents=True)
    (tmp_path / "taxonomy.yaml").write_text("hardware_profiles: {}\n", "utf-8")
    (tmp_path / "strategies").mkdir()
    for i in range(12):  # a broken file each: one error each, 12 > the limit of 10
        (folder / f"Broken-{i}.yaml").write_text("model: [\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, str(tmp_path / value))
    main(["check", "--offline", "--no-cache", "--format", "github", *argv, "models/"])
    [note] = [line for line in capsys.readouterr().out.splitlines()
              if "more not annotated" in line]
    assert where in note
