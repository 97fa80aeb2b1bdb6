"""``recipe-check history``: audit every revision of a recipes repository's recipes.

Walks the first-parent history of a branch (default ``main``; ``--all-refs`` walks every
commit of every ref instead, pull-request heads included), checks each recipe blob
against the taxonomy, strategies and kv-store files of its own revision, reuses results
from the cache folder's ``history/`` part (``--cache-dir``, default
``$XDG_CACHE_HOME/recipe-check``, the folder ``check`` and ``cache`` use too), and
prints for each revision the findings it introduced and fixed. See ``docs/history.md``.

Exit codes: 0 audit done, 2 usage or input/output failure or a rule crashed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import TextIO

from validator import __version__
from validator.cache import HISTORY_PART
from validator.commands.options import (
    DEFAULT_MAX_BYTES,
    add_output_arguments,
    add_rule_arguments,
    chosen_format,
    local_rule_config,
    positive_int,
    write_outputs,
)
from validator.commands.output_guard import refuse_overwriting, work_tree_inputs
from validator.errors import UsageError
from validator.findings import Finding, Severity, json_printable, printable
from validator.history.audit import AuditOptions, AuditResult, Change, run_audit
from validator.paths import option_path
from validator.policy import Policy
from validator.progress import Progress, display_of
from validator.settings import Settings
from validator.source.options import CACHE_DIR_HELP, default_cache_dir
from validator.source.tree import LocalTree
from validator.unit_pool import default_jobs


def _shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: expected K/N, e.g. 1/4") from exc
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"{text!r}: need 1 <= K <= N")
    return k, n


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``history``."""
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="repository-relative recipe files or folders to audit "
                             "(default: every models/** recipe)")
    parser.add_argument("--repo", type=option_path, default=Path("."), metavar="DIR",
                        help="git repository of the recipes (default: current folder)")
    parser.add_argument("--rev", default="main",
                        help="branch whose first-parent history is audited (default main)")
    parser.add_argument("--since", metavar="REV",
                        help="audit only revisions after REV (REV is the baseline)")
    parser.add_argument("--all-refs", action="store_true",
                        help="audit every commit of every ref (pull-request heads too)")
    parser.add_argument("--shard", type=_shard, default=(1, 1), metavar="K/N",
                        help="audit only the recipe paths of shard K of N")
    parser.add_argument("--jobs", "-j", type=positive_int, default=None, metavar="N",
                        help="check on N processes (default: the CPUs available)")
    parser.add_argument("--cache-dir", type=option_path, default=None, metavar="DIR",
                        help=CACHE_DIR_HELP)
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the cache (in --cache-dir)")
    parser.add_argument("--all-releases", action="store_true",
                        help="judge every revision with every vendored vLLM release (default: "
                             "with the releases published by its commit date)")
    parser.add_argument("--max-bytes", type=positive_int, default=DEFAULT_MAX_BYTES,
                        metavar="N", help="refuse YAML files larger than N bytes (a positive "
                        "integer; default 2 MiB)")
    add_rule_arguments(parser)
    add_output_arguments(parser, ("text", "json"), file_formats=("json",), summary=False)


def run(args: argparse.Namespace) -> int:
    """Run the audit and print the report; see the module docstring for exit codes."""
    if not args.repo.is_dir():
        raise UsageError(f"{args.repo}: no such folder")
    fmt = chosen_format(args, "text")
    policy = Policy(local_rule_config(args, LocalTree(args.repo)))
    paths = [rel for p in args.paths if (rel := repository_path(p, args.repo))]
    refuse_overwriting(args, work_tree_inputs(args.repo, paths), trees=[args.repo])
    options = AuditOptions(
        repo=args.repo, rev=args.rev, since=args.since, all_refs=args.all_refs,
        paths=paths,
        shard=args.shard,
        jobs=args.jobs or default_jobs(),
        cache_dir=None if args.no_cache else (args.cache_dir or default_cache_dir()) / HISTORY_PART,
        settings=Settings(max_bytes=args.max_bytes),
        at_commit_date=not args.all_releases)
    bars: list[Progress] = []

    def factory(label: str, total: int) -> object:
        for previous in bars:  # one bar at a time: erase the finished phase's bar
            previous.close()
        bar = display_of(args)(f"history: {label}", total)
        bars.append(bar)
        return bar.advance

    try:
        result = run_audit(options, factory)  # type: ignore[arg-type]
    finally:
        for bar in bars:
            bar.close()
    if args.paths and not result.matched:
        # a mistyped PATH must not pass as "no findings" (an empty range or shard may)
        where = ("in the audited history" if result.revisions
                 else f"at --since {args.since!r}" if args.since else "in the history")
        raise UsageError(f"no recipe {where} matches: {', '.join(args.paths)}")
    apply_policy(result, policy)
    write_outputs(args, lambda name, stream: _write(result, name, stream), fmt,
                  file_formats=("json",))
    for note in result.cache_notes:
        print(f"recipe-check: warning: {printable(note)}", file=sys.stderr)
    for msg in result.internal_errors[:20]:
        print(f"recipe-check: {printable(msg)}", file=sys.stderr)
    return 2 if result.internal_errors else 0


def repository_path(arg: str, repo: Path) -> str:
    """A PATH argument as a repository-relative path: relative to the working folder when
    that is inside the repository (as ``check`` takes paths), else to the repository root.

    Raises:
        UsageError: the path is outside the repository.
    """
    root = repo.resolve()
    cwd = Path.cwd().resolve()
    base = cwd if cwd.is_relative_to(root) else root
    target = Path(os.path.normpath(base / arg))
    if not target.is_relative_to(root):
        raise UsageError(f"{arg}: outside the repository {repo}")
    rel = target.relative_to(root).as_posix()
    return "" if rel == "." else rel


def apply_policy(result: AuditResult, policy: Policy) -> None:
    """Drop the changes of rules the configuration deselects or ignores for their path,
    and apply its severities (inline suppression comments are not applied to history).
    A configuration that selects every rule, ignores none and sets no severity changes
    nothing: the changes are left as they are."""
    config = policy.config
    if (config.select is None or "ALL" in config.select) and not config.ignore \
            and not config.per_file_ignores and not config.severity:
        return
    def keep(changes: list[Change]) -> list[Change]:
        out = []
        for ch in changes:
            rule, severity, pointer, line, column, message = ch.row
            if not policy.keep(ch.path, rule):
                continue
            probe = Finding(rule, Severity(severity), ch.path, pointer, line, column, message)
            sev = policy.severity(probe).value
            out.append(ch if sev == severity else dataclasses.replace(
                ch, row=(rule, sev, pointer, line, column, message)))
        return out

    for rev in result.revisions:
        rev.introduced, rev.fixed = keep(rev.introduced), keep(rev.fixed)
    result.tip = Counter({r: n for r, n in result.tip.items() if policy.selected(r)})


def _write(result: AuditResult, fmt: str, stream: TextIO) -> None:
    if fmt == "json":
        # one write: json.dump writes every token on its own (150,000 writes for the
        # corpus's --all-refs report)
        stream.write(json_printable(json.dumps(to_json(result), indent=1, ensure_ascii=False))
                     + "\n")
        return
    for rev in result.revisions:
        if not rev.introduced and not rev.fixed:
            continue
        c = rev.commit
        stream.write(printable(f"{c.id[:12]} {c.date[:10]} {c.subject}") + "\n")
        for ch in rev.introduced:
            rule, sev, _ptr, line, col, msg = ch.row
            note = f" ({ch.note})" if ch.note else ""
            stream.write(printable(f"  + {ch.path}:{line}:{col}: {sev} {rule} {msg}{note}")
                         + "\n")
        for ch in rev.fixed:
            rule, sev, _ptr, line, _col, msg = ch.row
            note = f"; {ch.note}" if ch.note else ""
            stream.write(printable(f"  - {ch.path}: {sev} {rule} {msg} (fixed; was line "
                                   f"{line}{note})") + "\n")
    tip = ", ".join(f"{rule} {n}" for rule, n in sorted(result.tip.items())) or "none"
    if result.note:
        stream.write(printable(result.note) + "\n")
    stream.write(
        f"{len(result.revisions)} revision(s) ({result.mode}), {result.recipes} recipe path(s); "
        f"{result.units} recipe x context unit(s): {result.checked} checked, "
        f"{result.cached} from cache"
        + (f", {result.corrupt} damaged cache entr(ies) recomputed" if result.corrupt else "")
        + f"\nfindings at the last revision: {tip}\n")


def to_json(result: AuditResult) -> dict[str, object]:
    """The JSON report: ``tool``, ``mode``, ``revisions`` (each ``commit``, ``parent``,
    ``date``, ``subject``, ``window``: the date of the newest vLLM release it was judged
    with, ``""`` for every release or the settings' ``--as-of``; ``introduced`` and
    ``fixed`` lists of changes, see :meth:`validator.history.audit.Change.to_dict`) and
    ``summary``."""
    return {
        "tool": {"name": "recipe-check", "version": __version__},
        "mode": result.mode,
        "revisions": [
            {"commit": r.commit.id, "parent": r.parent, "date": r.commit.date,
             "subject": r.commit.subject, "window": r.window,
             "introduced": [c.to_dict() for c in r.introduced],
             "fixed": [c.to_dict() for c in r.fixed]}
            for r in result.revisions],
        "summary": {"revisions": len(result.revisions), "recipes": result.recipes,
                    "units": result.units, "checked": result.checked,
                    "cached": result.cached, "corrupt": result.corrupt,
                    "internal_errors": len(result.internal_errors),
                    "tip": dict(sorted(result.tip.items()))},
    }
