"""Progress of a long run on stderr (:mod:`validator.progress`): a bar on a terminal,
sparse lines in a GitHub Actions log once the run is long, nothing anywhere else."""

from __future__ import annotations

import io

import pytest

from validator.progress import Progress


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run(bar: Progress, clock: Clock, steps: int, seconds_each: float) -> None:
    for _ in range(steps):
        clock.now += seconds_each
        bar.advance()
    bar.close()


def test_a_log_gets_sparse_lines_only_once_the_run_is_long(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr("validator.progress.time.monotonic", clock)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    short, long = io.StringIO(), io.StringIO()
    run(Progress("checking", 100, short), clock, 100, 0.01)
    assert short.getvalue() == ""
    run(Progress("checking", 100, long), clock, 100, 1.0)
    lines = long.getvalue().splitlines()
    assert lines[0] == "checking: 5/100 (5 s)"
    assert lines[-1] == "checking: 100/100 (100 s)"
    assert len(lines) == 8  # at 5, 20, 35, 50, 65, 80, 95 s and at the end


def test_a_terminal_gets_a_bar_that_is_erased_and_elsewhere_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr("validator.progress.time.monotonic", clock)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    terminal, redirected = Terminal(), io.StringIO()
    run(Progress("checking", 4, terminal), clock, 4, 1.0)
    assert "\rchecking [" in terminal.getvalue() and "4/4" in terminal.getvalue()
    assert terminal.getvalue().endswith("\r\033[K")
    run(Progress("checking", 4, redirected), clock, 4, 100.0)
    assert redirected.getvalue() == ""
