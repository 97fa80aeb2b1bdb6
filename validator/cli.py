"""Command line: parses options, builds collaborators, maps outcomes to exit codes.

``recipe-check PATH...`` is ``recipe-check check PATH...``. Each subcommand lives in
``validator/commands/<name>.py`` with ``add_arguments(parser)`` and ``run(args) -> int``
and is imported only when used, so that start-up stays fast.

Exit codes: 0 no errors, 1 errors found, 2 usage or input/output failure. Every stage
raises :class:`validator.errors.RecipeCheckError` (or a subclass) for bad input; it is
printed and converted to its exit code here, in one place.
"""

from __future__ import annotations

import argparse
import errno
import gc
import importlib
import io
import os
import sys
from collections.abc import Sequence

from validator import __version__
from validator.errors import RecipeCheckError, UsageError
from validator.file_digests import FileDigests
from validator.progress import Display, progress_style

__all__ = ["COMMANDS", "UsageError", "main"]

COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("validator.commands.check", "check recipe files or folders (the default)"),
    "rules": ("validator.commands.rules", "list every rule with id, severity and summary"),
    "pr": ("validator.commands.pr", "check what a pull request changes, at its head"),
    "fetch": ("validator.commands.fetch", "fetch pinned recipes + context, verify, snapshot"),
    "snapshot": ("validator.commands.snapshot", "verify or list the recipe snapshot store"),
    "data": ("validator.commands.data", "refresh vendored data (vLLM release list)"),
    "record": ("validator.commands.record", "one evidence record for OWNER/REPO@REV:PATH"),
    "publish": ("validator.commands.publish", "publish records for every recipe of a lock file"),
    "diff": ("validator.commands.diff", "what a change to a recipe changes for its users"),
    "history": ("validator.commands.history", "audit every revision of a branch's recipes"),
    "render": ("validator.commands.render", "the commands the recipes site renders for a recipe"),
    "cache": ("validator.commands.cache", "clean or describe the cache folder"),
}
"""Subcommand name -> (module, one-line help)."""


def _top_help() -> str:
    width = max(len(n) for n in COMMANDS)
    lines = [f"usage: recipe-check [COMMAND] [OPTIONS] ...   (recipe-check {__version__})", "",
             "commands:"]
    lines += [f"  {name:<{width}}  {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "With no command, arguments are checked as by 'recipe-check check'.",
              "'recipe-check COMMAND --help' describes a command's options."]
    return "\n".join(lines)


EXIT_BROKEN_PIPE = 141
"""Exit code when stdout's reader went away: 128 + SIGPIPE, what a shell reports for a
program the signal ended (``head``, ``grep`` and ``yes`` under ``set -o pipefail``); the
output was cut short, so it is neither success nor a usage error. The handling follows
the Python documentation's "Note on SIGPIPE" (stdout redirected to the null device)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    if sys.stdout is None:  # started with stdout closed (``recipe-check ... >&-``)
        sys.stdout = _ClosedStream()
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C before the command ran (imports, option parsing)
        print("recipe-check: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (``recipe-check ... | head``)
        _discard_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:  # a write to a closed stdout outside the command (help, usage)
        _error(str(exc.strerror or exc))
        return 2


def _error(message: str) -> None:
    """Print ``recipe-check: message`` on stderr, its control characters (a path's ESC or
    carriage return, from the command line or a file name) escaped as ``\\uXXXX``, so
    that no path or value can recolour the terminal or fake a line; line breaks of a
    message of several lines are kept."""
    from validator.findings import printable

    print(f"recipe-check: {printable(message, keep=chr(10))}", file=sys.stderr)


class _ClosedStream(io.TextIOBase):
    """Stands for a standard output the process was started without: not a terminal,
    and a write to it is the ``OSError`` (EBADF) a write to a closed descriptor gives, so
    it is a usage error naming the stream, while a run writing only to ``--output``
    files needs no stdout."""

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed; nothing was written to it")

    def fileno(self) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


def _discard_stdout() -> None:
    """Point stdout at the null device so the interpreter's final flush cannot fail
    again on the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


YOUNG_THRESHOLD = 2000
"""Allocations between two passes of the cyclic collector over its young generation in
the process's own run (:func:`tune_collector`; Python's default is 700). Measured on a
cold ``check --no-cache --jobs 1`` of corpus ``main`` (CPU seconds in the collector,
``gc.callbacks``; peak RSS, ``/usr/bin/time``): 700: 0.53-0.83 s in 594 passes, 78.5 MB;
2000: 0.44-0.53 s in 165 passes, 78.8-79.1 MB; 5000: 0.35-0.41 s, 80.0 MB; 10000: 0.30 s,
79.7-80.0 MB. Past 2000 the peak reaches the 80 MB budget: the cycles a rendering's
hardware trace makes (:class:`~validator.render.hardware_reads.HardwareReads`) wait longer
for a pass, and fewer full passes run. The older generations keep Python's thresholds."""


def tune_collector() -> None:
    """Tune the cyclic garbage collector for this process's own run.

    Move every object alive now -- the modules, classes, functions and tables the
    command imported, which live until the process exits -- out of the collector's sight
    (:func:`gc.freeze`). Otherwise each full collection of a run walks them all again:
    checking one recipe spent about 0.1 s CPU (of some 0.4 s after its imports) walking
    them. Objects made later are collected as before; a frozen object is still freed when
    its last reference goes, only a cycle among them never is.

    Then pass over the young generation every :data:`YOUNG_THRESHOLD` allocations
    instead of 700: each pass also walks what survived the passes before it into the
    middle generation, so fewer passes walk those objects fewer times."""
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)


def _main(argv: Sequence[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help"):
        print(_top_help())
        return 0
    if not args:  # nothing to check: say what the tool can do, as git and pip do
        print(_top_help(), file=sys.stderr)
        return 2
    if args and args[0] == "--version":
        print(f"recipe-check {__version__}")
        return 0
    name = args.pop(0) if args and args[0] in COMMANDS else "check"
    plan = None
    # the digests of the tool's files this run hashes: made here, once, and handed to the
    # run cache's tool stamp and to the command (check's tool digest reuses them)
    digests = FileDigests()
    # this process's own command line only (a caller's in-process run may have patched
    # what the key cannot see), before any rule is imported: an unchanged run is one entry
    if name == "check" and argv is None:
        from validator.run_cache import plan_run, replay

        plan = plan_run(args, digests)
        if plan is not None and (replayed := replay(plan)) is not None:
            return replayed
    module = importlib.import_module(COMMANDS[name][0])
    if argv is None:  # this process's own command line (not a caller's in-process run)
        tune_collector()
    parser = argparse.ArgumentParser(prog=f"recipe-check {name}",
                                     description=COMMANDS[name][1])
    module.add_arguments(parser)
    options = parser.parse_args(args)
    # how long runs show progress: chosen here, once, and handed to what counts
    options.progress = Display(progress_style(sys.stderr, os.environ))
    options.digests = digests
    try:
        if plan is not None:
            from validator.run_cache import record

            return record(plan, lambda: int(module.run(options)))
        code: int = module.run(options)
        return code
    except RecipeCheckError as exc:  # every stage's error, converted here and nowhere else
        _error(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:  # 128 + SIGINT, as a shell reports a command Ctrl-C ended
        print("recipe-check: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        raise  # handled by main(), quietly
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        _error(f"{where}{exc.strerror or exc}")
        return 2
