"""``recipe-check`` run in the test's own process, for tests that assert on what a command
prints and returns, not on the process (its start, signals, limits, closed streams).

A ``python -m validator`` costs about 0.5 s of CPU before it does anything (the
interpreter, the imports, the tool digest); :func:`run_cli` calls
:func:`validator.cli.main` instead, with standard output and error to pipes of its own,
and gives back what :func:`subprocess.run` would (exit code, the two streams as text).
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

from validator.cli import main


class _Pipe(io.TextIOWrapper):
    """A standard stream that is a pipe, not a terminal: UTF-8, with a ``buffer`` for
    commands that write bytes."""

    def __init__(self) -> None:
        self._bytes = io.BytesIO()
        super().__init__(self._bytes, encoding="utf-8", errors="surrogateescape",
                         newline="\n", write_through=True)

    def text(self) -> str:
        """What was written, decoded as ``subprocess.run(..., text=True)`` decodes it
        (universal newlines)."""
        self.flush()
        raw = self._bytes.getvalue()
        return raw.decode("utf-8", "surrogateescape").replace("\r\n", "\n").replace("\r", "\n")


@contextlib.contextmanager
def _folder(cwd: str | Path | None) -> Iterator[None]:
    before = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(before)


def run_cli(*args: str | Path, cwd: str | Path | None = None
            ) -> subprocess.CompletedProcess[str]:
    """``recipe-check ARGS`` (in ``cwd``) in this process: its exit code, standard
    output and standard error, as :func:`subprocess.run` with ``capture_output=True,
    text=True`` gives them for ``python -m validator ARGS``."""
    argv = [str(a) for a in args]
    out, err = _Pipe(), _Pipe()
    with _folder(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's usage errors and --help
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
            if isinstance(exc.code, str):  # as the interpreter prints it
                print(exc.code, file=err)
    return subprocess.CompletedProcess(["recipe-check", *argv], code, out.text(), err.text())
