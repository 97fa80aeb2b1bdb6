"""The one base error of recipe-check.

Every error a stage raises for bad input or an unusable source (a file that cannot be
read, a revision that does not exist, a configuration file that is wrong, a registry that
fails its digest) derives from :class:`RecipeCheckError`. It carries the message the
command line prints (``str(error)``, naming the file and, where known, the line) and the
process exit code. ``validator.cli`` converts it in one place: it prints
``recipe-check: MESSAGE`` on stderr and exits with ``exit_code``; no command wraps it.

This module imports nothing of the project, so that every layer can raise it.
"""

from __future__ import annotations


class RecipeCheckError(Exception):
    """A failure the command line reports as a message, without a traceback.

    Attributes:
        exit_code: the process exit code (class default 2: usage or input/output
            failure; a subclass or an instance may say otherwise).
    """

    exit_code: int = 2

    def __init__(self, *args: object, exit_code: int | None = None) -> None:
        super().__init__(*args)
        if exit_code is not None:
            self.exit_code = exit_code


class UsageError(RecipeCheckError):
    """The command line or its inputs are wrong; printed without a traceback, exit 2."""
