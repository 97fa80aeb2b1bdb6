"""Output formats. One module per format; :data:`REPORTERS` maps ``--format`` names to
reporter classes (the check-jsonschema reporter-registry model).

A reporter turns a :class:`~validator.checker.RunResult` into text written to a stream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TextIO

if TYPE_CHECKING:
    from validator.checker import RunResult


class Reporter(Protocol):
    """Writes one run's result in one format."""

    def write(self, result: RunResult, stream: TextIO) -> None:
        """Render ``result`` onto ``stream``."""
        ...


def _text() -> Reporter:
    from validator.report.text import TextReporter

    return TextReporter()


def _json() -> Reporter:
    from validator.report.json_report import JsonReporter

    return JsonReporter()


def _github() -> Reporter:
    from validator.report.github import GithubReporter

    return GithubReporter()


def _markdown() -> Reporter:
    from validator.report.markdown import MarkdownReporter

    return MarkdownReporter()


def _sarif() -> Reporter:
    from validator.report.sarif import SarifReporter

    return SarifReporter()


REPORTERS: dict[str, Callable[[], Reporter]] = {"text": _text, "json": _json,
                                                "github": _github, "markdown": _markdown,
                                                "sarif": _sarif}
"""Format name -> factory. Factories import lazily so start-up stays fast."""


def get_reporter(name: str, *, summary: bool = True) -> Reporter:
    """The reporter for ``--format name``; ``summary``: whether the run writes a job
    summary (the ``github`` format's note on findings past its limit points there).

    Raises:
        KeyError: unknown format name.
    """
    if name == "github":
        from validator.report.github import GithubReporter

        return GithubReporter(summary=summary)
    return REPORTERS[name]()
