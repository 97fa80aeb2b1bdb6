"""``recipe-check pr``: check what a pull request (or push) changes, at its head.

``recipe-check pr --base REV --head REV [--repo DIR]`` diffs ``git merge-base BASE HEAD``
against HEAD and checks, with the head's taxonomy and strategies, the recipes the change
adds, modifies or renames, changed context files, and every recipe referencing a
taxonomy/strategy entry the change modified or removed (:mod:`validator.pr.select`).

Inside GitHub Actions the revisions default to the event's (``GITHUB_EVENT_PATH``:
``pull_request.base.sha``/``head.sha``, or ``before``/``after`` of a push), the repository
to ``GITHUB_WORKSPACE``, the output format to ``github`` annotations and the job summary
to ``GITHUB_STEP_SUMMARY``. Without any base every recipe at the head is checked.

Both revisions are judged as ``check`` judges (the same options and defaults, every
rendered command included; ``--as-written`` checks the argument lists as written).
The same files are checked at the merge base, and each finding is reported as new,
existing or fixed (:mod:`validator.pr.baseline`); by default only new errors fail
(``--fail-on all``: every error at the head). The configuration file is read from the
merge base (``--config FILE`` names another: inside the repository it is read at the merge
base too, outside it from disk). A report path inside the repository that is or passes
through a symbolic link there is refused (exit 2): in the Action the work tree is the pull
request's checkout.

Exit codes: 0 no failing errors, 1 errors that fail under ``--fail-on`` (warnings too with
``--strict``), 2 usage, repository or revision problems, or a crashed check.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from validator.checker import RunResult
from validator.commands.check import release_list_context
from validator.commands.options import (
    add_output_arguments,
    add_rule_arguments,
    add_run_arguments,
    chosen_format,
    rule_config,
    settings_from,
    summary_target,
    write_outputs,
)
from validator.commands.output_guard import refuse_overwriting, work_tree_inputs
from validator.config import Config
from validator.findings import printable
from validator.paths import option_path
from validator.pr.event import read_event
from validator.pr.run import open_repository, resolve_revisions, run_pr
from validator.report import REPORTERS, get_reporter
from validator.report.github import escape_data
from validator.report.markdown import append_step_summary
from validator.source.git import GitTree
from validator.work_tree import repository_path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``pr``."""
    parser.epilog = ("The job summary's \"What changes for users\" compares each changed "
                     "recipe at the merge base and at the head over every configuration "
                     "and every feature set, as `recipe-check diff` does: both count the "
                     "same configurations.")
    parser.add_argument("--base", metavar="REV",
                        help="base revision (default: the GitHub event's base; without "
                             "either, every recipe is checked and every finding is new)")
    parser.add_argument("--head", metavar="REV",
                        help="head revision (default: the GitHub event's head, else HEAD)")
    parser.add_argument("--repo", type=option_path, metavar="DIR",
                        help="git repository of the recipes (default: $GITHUB_WORKSPACE, "
                             "else the current folder)")
    parser.add_argument("--paths", action="append", default=[], metavar="PATTERN",
                        help="only recipes under this folder or matching this glob "
                             "(repeatable; default: every models/ recipe)")
    add_run_arguments(parser)
    add_rule_arguments(parser, fail_on=True)
    add_output_arguments(parser, sorted(REPORTERS), default=None)


def _revisions(args: argparse.Namespace) -> tuple[str | None, str, str]:
    """``(base, head, origin)``; origin says where they came from."""
    if args.base or args.head:
        return args.base, args.head or "HEAD", "command line"
    event = read_event(os.environ)
    if event is None:
        return None, "HEAD", "no base given"
    origin = f"{event.event} event" + (f" (pull request #{event.number})" if event.number
                                       else "")
    return event.base, event.head, origin


def _checked_lines(result: RunResult) -> list[str]:
    pr: dict[str, Any] = result.context.get("pr", {})
    lines = []
    for entry in pr.get("files", []):
        lines.append(f"checked {entry['path']} because: {'; '.join(entry['reasons'])}")
    for entry in pr.get("skipped", []):
        lines.append(f"skipped {entry['path']}: {entry['why']}")
    for entry in pr.get("unhandled", []):
        lines.append(f"not checked {entry['path']}: {entry['why']} (error PROV006)")
    if not pr.get("files"):
        lines.append("no recipe, taxonomy, strategy or kv-store file to check")
    return lines


def _write_preamble(fmt: str, result: RunResult, stream: TextIO) -> None:
    pr: dict[str, Any] = result.context.get("pr", {})
    head = str(pr.get("head"))[:12]
    where = (f"head {head}, base {str(pr.get('base'))[:12]}, merge base "
             f"{str(pr.get('merge_base'))[:12]}" if pr.get("base") else f"head {head}")
    lines = _checked_lines(result)
    if fmt == "text":
        stream.write(f"recipe-check pr: {where} ({printable(str(pr.get('origin')))})\n")
        stream.write("".join(printable(line) + "\n" for line in lines))
    elif fmt == "github":
        stream.write(f"::group::recipe-check pr: {escape_data(where)}: files checked and why\n")
        stream.write("".join(escape_data(line) + "\n" for line in lines))
        stream.write("::endgroup::\n")


def run(args: argparse.Namespace) -> int:
    """Run PR mode, write every requested report; 0/1/2 as the module says."""
    base, head, origin = _revisions(args)
    folder = args.repo or Path(os.environ.get("GITHUB_WORKSPACE") or ".")
    settings = settings_from(args)  # the same options and defaults as `check`
    releases = release_list_context(settings)  # fail fast (exit 2) before any check runs
    fmt = chosen_format(args, None)
    event = os.environ.get("GITHUB_EVENT_PATH")  # read when no revision is given
    refuse_overwriting(args, [*work_tree_inputs(folder), *([Path(event)] if event else [])],
                       fmt, work_tree=folder, trees=[folder])
    config = _config(args, folder, base)
    result = run_pr(folder, base, head, settings=settings, patterns=args.paths,
                    config=config, fail_on=config.fail_on or "new",
                    user_diffs=_wants_summary(args, fmt))
    result.context["pr"]["origin"] = origin
    result.context["release_list"] = releases
    if config.source:  # which file configured the run (by name only when local)
        source = Path(config.source)
        result.context["config"] = source.name if source.is_absolute() else config.source

    summary = summary_target(args, fmt) is not None

    def write(name: str, stream: TextIO) -> None:
        if stream is sys.stdout:
            _write_preamble(name, result, stream)
        get_reporter(name, summary=summary).write(result, stream)

    write_outputs(args, write, fmt, summary=lambda path: append_step_summary(result, path))
    return result.exit_code


def _wants_summary(args: argparse.Namespace, fmt: str) -> bool:
    """Whether a Markdown report is written (the diffs of what changes for users are
    only rendered for it)."""
    if args.no_summary and fmt != "markdown" and args.markdown_file is None:
        return False
    return bool(fmt == "markdown" or args.markdown_file or args.summary
                or (fmt == "github" and os.environ.get("GITHUB_STEP_SUMMARY")))


def _config(args: argparse.Namespace, folder: Path, base: str | None) -> Config:
    """The configuration file at the root of the *base* revision (so that a pull request
    cannot switch checks off for itself), else the head's when there is no base; with the
    command-line options applied. ``--config`` names another file: one inside the
    repository is read at that revision too (in the Action the work tree is the pull
    request's checkout; not there: no configuration file, said on stderr), one outside
    it from disk (the maintainer's own)."""
    inside = None if args.config is None else repository_path(args.config, folder)
    if args.config is not None and inside is None:
        return rule_config(args)
    repo = open_repository(folder)
    try:
        rev = resolve_revisions(repo, base, args.head or "HEAD")
        commit = rev.merge_base or rev.head
        tree = GitTree("", commit, None, repo, str(folder))
        label = f"{commit[:12]}:"
        if inside is None:
            return rule_config(args, tree.read, tree.exists, label)
        which = "merge base" if rev.merge_base else "head (no base revision)"
        if not tree.exists(inside):
            print(f"recipe-check: warning: --config {printable(str(args.config))}: "
                  f"{printable(inside)} is not a file of the repository at the {which} "
                  f"{commit[:12]} (the configuration is read there, not from the work tree): "
                  "no configuration file is used, every rule runs at its default severity",
                  file=sys.stderr)
        return rule_config(args, tree.read, tree.exists, label, names=(inside,))
    finally:
        repo.close()
