"""What the reporters read of the environment, declared in one place.

A report depends on the findings and on its surroundings: whether the stream is a
terminal (the text report's colour) and the variables below (``NO_COLOR``, the links the
Markdown and SARIF reports make). The reporters read the environment only through
:func:`report_environment`, which holds these variables and no other, and the whole-run
cache (:mod:`validator.run_cache`) keys a run on the same list and on whether each
standard stream is a terminal: a run replayed from the cache writes what it would write
now. A variable a reporter reads that is not listed here reads as unset.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

NO_COLOR = "NO_COLOR"
"""Set (to anything): no ANSI colour even on a terminal (https://no-color.org)."""

REPORT_VARIABLES = (
    NO_COLOR,
    "RECIPE_CHECK_PROJECT_URL",  # the repository rule links point into
    "RECIPE_CHECK_DOCS_REF",  # the revision of docs/rules.md they link to
    "GITHUB_ACTION_REPOSITORY", "GITHUB_ACTION_REF",  # the Action's repository and ref
    "GITHUB_SERVER_URL", "GITHUB_REPOSITORY",  # the checked repository's links
    "GITHUB_HEAD_REF",  # SARIF's branch
)
"""Every environment variable a reporter reads."""


def report_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables of :data:`REPORT_VARIABLES` set in ``environ`` (default: the
    process's environment)."""
    environ = os.environ if environ is None else environ
    return {name: environ[name] for name in REPORT_VARIABLES if name in environ}
