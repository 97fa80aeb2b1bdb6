"""Progress of a long run on stderr (:mod:`validator.progress`): a bar on a terminal,
sparse lines in a CI log once the run is long, nothing anywhere else. The command line
chooses the style once and hands it down; code given no display draws nothing."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import EXAMPLES
from validator.cli import main
from validator.commands.check import check_targets
from validator.context import Settings
from validator.fix.command import fix_targets
from validator.progress import STYLE_VARIABLE, Display, Progress, progress_style
from validator.rule_index import check_rules
from validator.source.local import Target
from validator.source.tree import LocalTree

CI_LOGS = {
    "GitHub Actions": {"GITHUB_ACTIONS": "true", "CI": "true"},
    "GitLab": {"GITLAB_CI": "true", "CI": "true"},
    "Buildkite": {"BUILDKITE": "true", "CI": "true"},
    "a generic CI": {"CI": "1"},
    "Azure Pipelines": {"TF_BUILD": "True"},
    "Jenkins": {"JENKINS_URL": "https://jenkins.example/"},
    "TeamCity": {"TEAMCITY_VERSION": "2024.1"},
}


class Clock:
    def __init__(self, step: float = 0.0) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _use_clock(monkeypatch: pytest.MonkeyPatch, clock: Clock) -> None:
    """Progress reads ``clock`` (only progress: nothing else's time moves)."""
    monkeypatch.setattr("validator.progress.time", SimpleNamespace(monotonic=clock))


def _no_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "TF_BUILD", "JENKINS_URL",
                 "TEAMCITY_VERSION", STYLE_VARIABLE):
        monkeypatch.delenv(name, raising=False)


def run(bar: Progress, clock: Clock, steps: int, seconds_each: float) -> None:
    for _ in range(steps):
        clock.now += seconds_each
        bar.advance()
    bar.close()


def test_a_log_gets_sparse_lines_only_once_the_run_is_long(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    _use_clock(monkeypatch, clock)
    short, long = io.StringIO(), io.StringIO()
    run(Progress("checking", 100, "lines", short), clock, 100, 0.01)
    assert short.getvalue() == ""
    run(Progress("checking", 100, "lines", long), clock, 100, 1.0)
    lines = long.getvalue().splitlines()
    assert lines[0] == "checking: 5/100 (5 s)"
    assert lines[-1] == "checking: 100/100 (100 s)"
    assert len(lines) == 8  # at 5, 20, 35, 50, 65, 80, 95 s and at the end


def test_a_bar_is_drawn_and_erased_and_style_off_draws_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    _use_clock(monkeypatch, clock)
    terminal, redirected = Terminal(), io.StringIO()
    run(Progress("checking", 4, "bar", terminal), clock, 4, 1.0)
    assert "\rchecking [" in terminal.getvalue() and "4/4" in terminal.getvalue()
    assert terminal.getvalue().endswith("\r\033[K")
    run(Progress("checking", 4, "off", redirected), clock, 4, 100.0)
    assert redirected.getvalue() == ""


@pytest.mark.parametrize("system", sorted(CI_LOGS))
def test_every_ci_system_s_log_gets_sparse_lines(system: str) -> None:
    assert progress_style(io.StringIO(), CI_LOGS[system]) == "lines"


def test_a_terminal_gets_a_bar_a_plain_redirect_nothing_and_the_variable_overrides() -> None:
    assert progress_style(Terminal(), {"CI": "true"}) == "bar"
    assert progress_style(io.StringIO(), {}) == "off"
    assert progress_style(io.StringIO(), {"CI": "false", "GITLAB_CI": ""}) == "off"
    assert progress_style(Terminal(), {STYLE_VARIABLE: "off"}) == "off"
    assert progress_style(io.StringIO(), {STYLE_VARIABLE: "lines"}) == "lines"
    assert progress_style(io.StringIO(), {"CI": "true", STYLE_VARIABLE: "off"}) == "off"


@pytest.mark.parametrize("system", ["GitLab", "Buildkite", "a generic CI"])
def test_check_and_its_diff_in_a_ci_log_print_sparse_lines_on_stderr_only(
        system: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _no_ci(monkeypatch)
    for name, value in CI_LOGS[system].items():
        monkeypatch.setenv(name, value)
    _use_clock(monkeypatch, Clock(step=10.0))  # every reading 10 s after the one before
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    main(["check", "--offline", "--no-cache", "--jobs", "1", "--format", "json",
          str(root / "models")])
    out, err = capsys.readouterr()
    assert "checking: 2/2 (" in err and "checking:" not in out
    main(["check", "--offline", "--no-cache", "--diff", str(root / "models")])
    out, err = capsys.readouterr()
    assert "fixing: 2/2 (" in err and "fixing:" not in out


def test_code_given_no_display_draws_nothing_even_in_a_ci_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A library caller (or a test capturing stderr) gets no progress it did not ask for,
    whatever the environment; the display it is handed draws."""
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    _use_clock(monkeypatch, Clock(step=10.0))
    tree = LocalTree(EXAMPLES.resolve())
    targets = [Target(tree, p) for p in ("models/example-org/Example-Chat-8B.yaml",
                                         "models/example-org/Example-MoE-120B.yaml")]
    check_targets(targets, Settings(offline=True))
    fix_targets(targets, Settings(offline=True), check_rules(), unsafe=False)
    assert capsys.readouterr().err == ""
    check_targets(targets, Settings(offline=True), progress=Display("lines"))
    assert "checking: 2/2 (" in capsys.readouterr().err
