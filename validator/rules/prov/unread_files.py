"""``PROV005``, ``PROV006``: a file refused (not read), a changed file the run cannot
handle (emitted by :mod:`validator.source` and :mod:`validator.checker`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

REFUSED = declare(
    "PROV005",
    Severity.ERROR,
    "File refused: not read",
    """A file selected for checking was not read: a symbolic link that leaves the recipes
    root, something other than a regular file (FIFO, device, socket, directory), or a file
    too large to read. Nothing in it was checked, so the run fails rather than passing it
    by in silence.""",
)


UNHANDLED_PATH = declare(
    "PROV006",
    Severity.ERROR,
    "Changed file cannot be handled: the change is not checked",
    """A pull request changes a file whose name or change recorded by git cannot be
    handled (a name that is not valid UTF-8 where a check would read the file: a recipe,
    a strategy, kv-store or quickstart file; a change type git reports that PR mode does
    not know). PR mode lists changed files from git's NUL-separated output, so every name
    is seen; one it cannot interpret fails the run instead of being skipped. ``check``
    reports a file it is given or finds in a folder whose name is not valid UTF-8 the same
    way ("file not checked"), the name written with ``\\xff`` escapes in every report.

    How to fix: rename the file to a UTF-8 name in its folder (recipes live at
    ``models/<org>/<model>.yaml``).

    Failing: a pull request adding ``models/a/\\xff.yaml`` (byte 0xFF in the name).
    Passing: the same file named ``models/a/model.yaml``.""",
)


NOT_UTF8 = "the file name is not valid UTF-8"
"""Why a ``PROV006`` file is not checked when its name is the problem."""


def rename_hint(path: str) -> str:
    """The hint of a ``PROV006`` on ``path`` (its ``\\xff`` form) whose name is not
    UTF-8: rename it in the folder it is in (recipes: under ``models/<org>/``)."""
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    if not folder or folder.startswith("models/") or folder == "models":
        return "rename the file to a UTF-8 name under models/<org>/"
    return f"rename the file to a UTF-8 name in {folder}/"
