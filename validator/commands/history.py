"""``recipe-check history``: audit every revision of a recipes repository's recipes.

Walks the first-parent history of a branch (default ``main``; ``--all-refs`` walks every
commit of every ref instead, pull-request heads included), checks each recipe blob
against the taxonomy, strategies and kv-store files of its own revision, reuses results
from the cache (``--cache-dir``, default ``$XDG_CACHE_HOME/recipe-check/history``), and
prints for each revision the findings it introduced and fixed. See ``docs/history.md``.

Exit codes: 0 audit done, 2 usage or input/output failure or a rule crashed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from validator import __version__
from validator.cli import UsageError
from validator.context import Settings
from validator.history.audit import AuditOptions, AuditResult, default_jobs, run_audit
from validator.history.cache import default_cache_dir
from validator.history.gitdata import GitError
from validator.history.progress import Progress
from validator.source.tree import SourceError


def _shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: expected K/N, e.g. 1/4") from exc
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"{text!r}: need 1 <= K <= N")
    return k, n


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: not an integer") from exc
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: must be at least 1")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``history``."""
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="repository-relative recipe files or folders to audit "
                             "(default: every models/** recipe)")
    parser.add_argument("--repo", type=Path, default=Path("."),
                        help="git repository of the recipes (default: current folder)")
    parser.add_argument("--rev", default="main",
                        help="branch whose first-parent history is audited (default main)")
    parser.add_argument("--since", metavar="REV",
                        help="audit only revisions after REV (REV is the baseline)")
    parser.add_argument("--all-refs", action="store_true",
                        help="audit every commit of every ref (pull-request heads too)")
    parser.add_argument("--shard", type=_shard, default=(1, 1), metavar="K/N",
                        help="audit only the recipe paths of shard K of N")
    parser.add_argument("--jobs", type=_positive, default=None, metavar="N",
                        help="worker processes (default: the CPUs available)")
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="result cache folder (default: XDG cache recipe-check/history)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write a cache")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--output", type=Path, help="write the report here instead of stdout")
    parser.add_argument("--max-bytes", type=_positive, default=2 * 1024 * 1024,
                        help="size limit of a YAML file in bytes (default 2 MiB)")


def _progress(label: str, total: int) -> Progress:
    return Progress(f"history: {label}", total)


def run(args: argparse.Namespace) -> int:
    """Run the audit and print the report; see the module docstring for exit codes."""
    for p in args.paths:
        if p.startswith("/") or ".." in p.split("/"):
            raise UsageError(f"{p}: PATH must be relative to the repository root")
    if not args.repo.is_dir():
        raise UsageError(f"{args.repo}: no such folder")
    options = AuditOptions(
        repo=args.repo, rev=args.rev, since=args.since, all_refs=args.all_refs,
        paths=[p.rstrip("/") for p in args.paths], shard=args.shard,
        jobs=args.jobs or default_jobs(),
        cache_dir=None if args.no_cache else (args.cache_dir or default_cache_dir()),
        settings=Settings(max_bytes=args.max_bytes))
    bars: list[Progress] = []

    def factory(label: str, total: int) -> object:
        for previous in bars:  # one bar at a time: erase the finished phase's bar
            previous.close()
        bar = _progress(label, total)
        bars.append(bar)
        return bar.advance

    try:
        result = run_audit(options, factory)  # type: ignore[arg-type]
    except (GitError, SourceError) as exc:
        raise UsageError(str(exc)) from exc
    finally:
        for bar in bars:
            bar.close()
    if args.paths and not result.recipes:
        # a mistyped PATH must not pass as "no findings"
        raise UsageError(f"no recipe in the audited history matches: {', '.join(args.paths)}")
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        with args.output.open("w", encoding="utf-8") as stream:
            _write(result, args.format, stream)
    else:
        _write(result, args.format, sys.stdout)
    for msg in result.internal_errors[:20]:
        print(f"recipe-check: {msg}", file=sys.stderr)
    return 2 if result.internal_errors else 0


def _write(result: AuditResult, fmt: str, stream: TextIO) -> None:
    if fmt == "json":
        json.dump(to_json(result), stream, indent=1, ensure_ascii=False)
        stream.write("\n")
        return
    for rev in result.revisions:
        if not rev.introduced and not rev.fixed:
            continue
        c = rev.commit
        stream.write(f"{c.id[:12]} {c.date[:10]} {c.subject}\n")
        for ch in rev.introduced:
            rule, sev, _ptr, line, col, msg = ch.row
            note = f" ({ch.note})" if ch.note else ""
            stream.write(f"  + {ch.path}:{line}:{col}: {sev} {rule} {msg}{note}\n")
        for ch in rev.fixed:
            rule, sev, _ptr, line, _col, msg = ch.row
            note = f"; {ch.note}" if ch.note else ""
            stream.write(f"  - {ch.path}: {sev} {rule} {msg} (fixed; was line {line}{note})\n")
    tip = ", ".join(f"{rule} {n}" for rule, n in sorted(result.tip.items())) or "none"
    stream.write(
        f"{len(result.revisions)} revision(s) ({result.mode}), {result.recipes} recipe path(s); "
        f"{result.units} recipe x context unit(s): {result.checked} checked, "
        f"{result.cached} from cache"
        + (f", {result.corrupt} damaged cache entr(ies) recomputed" if result.corrupt else "")
        + f"\nfindings at the last revision: {tip}\n")


def to_json(result: AuditResult) -> dict[str, object]:
    """The JSON report: ``tool``, ``mode``, ``revisions`` (each ``commit``, ``parent``,
    ``date``, ``subject``, ``introduced`` and ``fixed`` lists of changes, see
    :meth:`validator.history.audit.Change.to_dict`) and ``summary``."""
    return {
        "tool": {"name": "recipe-check", "version": __version__},
        "mode": result.mode,
        "revisions": [
            {"commit": r.commit.id, "parent": r.parent, "date": r.commit.date,
             "subject": r.commit.subject,
             "introduced": [c.to_dict() for c in r.introduced],
             "fixed": [c.to_dict() for c in r.fixed]}
            for r in result.revisions],
        "summary": {"revisions": len(result.revisions), "recipes": result.recipes,
                    "units": result.units, "checked": result.checked,
                    "cached": result.cached, "corrupt": result.corrupt,
                    "internal_errors": len(result.internal_errors),
                    "tip": dict(sorted(result.tip.items()))},
    }
