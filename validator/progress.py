"""Progress of a long run on standard error: a bar redrawn in place on a terminal, a
sparse line now and then in a CI log, nothing otherwise (a redirected run's stderr stays
as it was). Never on standard output, where the report goes.

Which of the three is the command line's choice (:func:`progress_style`, read once in
:mod:`validator.cli` from stderr and the environment) and reaches the code that counts
as a :class:`Display` it is handed: a collaborator given none draws nothing, so a library
caller or a test capturing stderr gets no progress it did not ask for.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from typing import Literal, TextIO

LINE_AFTER = 5.0
"""Seconds a run goes before a log gets its first progress line."""
LINE_EVERY = 15.0
"""Seconds between two progress lines in a log."""

Style = Literal["bar", "lines", "off"]
"""How progress shows: a bar redrawn in place, sparse lines, or not at all."""

STYLES: tuple[Style, ...] = ("bar", "lines", "off")

STYLE_VARIABLE = "RECIPE_CHECK_PROGRESS"
"""An environment variable naming a :data:`Style` chooses it, whatever the stream is."""

CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "TRAVIS",
                "TF_BUILD", "JENKINS_URL", "TEAMCITY_VERSION", "BITBUCKET_BUILD_NUMBER",
                "APPVEYOR", "DRONE", "CODEBUILD_BUILD_ID", "WOODPECKER", "SEMAPHORE",
                "CIRRUS_CI")
"""Variables a CI system sets in its jobs: the generic ``CI`` (GitHub Actions, GitLab,
Buildkite, CircleCI, Travis, Bitbucket, Woodpecker, Drone, Semaphore, Cirrus and more set
it) and the own variable of those that do not (Azure Pipelines ``TF_BUILD``, Jenkins
``JENKINS_URL``, TeamCity, AWS CodeBuild). A value of ``false``, ``0`` or
nothing does not count."""


def in_ci(environ: Mapping[str, str]) -> bool:
    """Whether ``environ`` is a CI job's (:data:`CI_VARIABLES`)."""
    return any(environ.get(name, "").strip().lower() not in ("", "false", "0", "no")
               for name in CI_VARIABLES)


def progress_style(stream: TextIO, environ: Mapping[str, str]) -> Style:
    """The style for progress drawn on ``stream``: the one ``$RECIPE_CHECK_PROGRESS``
    names, else a bar on a terminal, sparse lines in a CI log, else none."""
    chosen = environ.get(STYLE_VARIABLE, "").strip().lower()
    if chosen in STYLES:
        return chosen
    if getattr(stream, "isatty", lambda: False)():
        return "bar"
    return "lines" if in_ci(environ) else "off"


class Progress:
    """``label [#####.....] done/total`` redrawn in place on ``stream`` (style ``bar``,
    at most every 0.1 s); in a log (style ``lines``) a line ``label: done/total (N s)``
    once the run has taken :data:`LINE_AFTER` seconds, then at most every
    :data:`LINE_EVERY` seconds, and one at the end: a short run logs nothing. Style
    ``off`` draws nothing.

    Args:
        label: what is being counted.
        total: number of steps.
        style: how to show it.
        stream: where to draw (standard error by default).
    """

    def __init__(self, label: str, total: int, style: Style = "off",
                 stream: TextIO | None = None) -> None:
        # a run recorded for the cache (validator.run_cache.Recorder) keeps no drawings
        self.stream = stream if stream is not None else \
            getattr(sys.stderr, "unrecorded", sys.stderr)
        self.enabled = style == "bar"
        self.lines = style == "lines"
        self.label = label
        self.total = max(total, 0)
        self.done = 0
        self.start = time.monotonic()
        self._last = 0.0

    def advance(self, steps: int = 1) -> None:
        """Count ``steps`` more and redraw when due."""
        self.done += steps
        now = time.monotonic()
        if self.enabled and (now - self._last >= 0.1 or self.done >= self.total):
            self._last = now
            self._draw(now)
        elif self.lines and now - self.start >= LINE_AFTER and (
                not self._last or now - self._last >= LINE_EVERY or self.done >= self.total):
            self._last = now
            self.stream.write(f"{self.label}: {self.done}/{self.total} "
                              f"({now - self.start:.0f} s)\n")
            self.stream.flush()

    def _draw(self, now: float) -> None:
        width = 30
        filled = width * self.done // self.total if self.total else width
        bar = "#" * filled + "." * (width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total} "
                          f"{now - self.start:5.1f}s")
        self.stream.flush()

    def close(self) -> None:
        """Erase the bar (only when one was drawn; closing twice is harmless)."""
        if self.enabled and self._last:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._last = 0.0


class Display:
    """Makes the progress of a run's phases in one style, on one stream (standard error
    by default): what the command line hands the code that counts."""

    def __init__(self, style: Style = "off", stream: TextIO | None = None) -> None:
        self.style: Style = style
        self.stream = stream

    def __call__(self, label: str, total: int) -> Progress:
        """The progress of one phase: ``label``, ``total`` steps."""
        return Progress(label, total, self.style, self.stream)


NO_PROGRESS = Display("off")
"""What a collaborator given no display uses: nothing is drawn."""


def display_of(args: object) -> Display:
    """The display the command line chose for a run's options (``args.progress``, set by
    :mod:`validator.cli`); :data:`NO_PROGRESS` for options made elsewhere."""
    display = getattr(args, "progress", None)
    return display if isinstance(display, Display) else NO_PROGRESS
