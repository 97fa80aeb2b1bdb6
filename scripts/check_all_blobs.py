#!/usr/bin/env python3
"""Check every distinct ``models/**/*.yaml`` blob in a recipes repository's whole history.

Each distinct blob (git object id) is checked once, at the path and against the taxonomy,
strategies and recipe list of the first commit (oldest first, every ref: ``main`` and the
``refs/pull/*`` heads) that holds it. Prints how many blobs there are, how many had
findings, and the counts by rule (findings, and blobs with at least one). A rule that
crashes on a blob is reported (with the blob) instead of stopping the run.

Usage::

    python scripts/check_all_blobs.py /tmp/recipes            # every ref
    python scripts/check_all_blobs.py /tmp/recipes --rev main # main's history only
    python scripts/check_all_blobs.py /tmp/recipes --json counts.json

Exit status: 0 done, 1 a rule crashed on some blob, 2 bad repository or revision.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from validator.history.audit import check_each_blob, default_jobs
from validator.history.gitdata import GitError, rev_list
from validator.progress import Progress


def main(argv: list[str] | None = None) -> int:
    """Run the survey; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path, help="a clone of the recipes repository")
    parser.add_argument("--rev", help="walk this revision's history only (default: all refs)")
    parser.add_argument("--jobs", type=int, default=default_jobs())
    parser.add_argument("--json", type=Path, help="also write the counts as JSON here")
    args = parser.parse_args(argv)
    try:
        revisions = rev_list(args.repo, args.rev or "HEAD", first_parent=False,
                             all_refs=args.rev is None)
        bars: list[Progress] = []

        def factory(label: str, total: int) -> Callable[[int], None]:
            bars.append(Progress(f"blobs: {label}", total))
            return bars[-1].advance

        by_rule: Counter[str] = Counter()
        blobs_by_rule: Counter[str] = Counter()
        by_severity: Counter[str] = Counter()
        blobs = with_findings = with_errors = 0
        crashed: list[str] = []
        for oid, path, _rev, rows, errors in check_each_blob(
                args.repo, revisions, jobs=args.jobs, progress=factory):
            blobs += 1
            with_findings += bool(rows)
            with_errors += any(r[1] == "error" for r in rows)
            by_rule.update(r[0] for r in rows)
            blobs_by_rule.update({r[0] for r in rows})
            by_severity.update(r[1] for r in rows)
            crashed += [f"{oid} {path}: {e}" for e in errors]
        for bar in bars:
            bar.close()
    except GitError as exc:
        print(f"check_all_blobs: {exc}", file=sys.stderr)
        return 2
    print(f"{len(revisions)} commits, {blobs} distinct models/**/*.yaml blobs; "
          f"{with_findings} with findings, {with_errors} with errors")
    print("severity: " + ", ".join(f"{k} {v}" for k, v in sorted(by_severity.items())))
    print(f"{'rule':<10} {'findings':>8} {'blobs':>6}")
    for rule in sorted(by_rule):
        print(f"{rule:<10} {by_rule[rule]:>8} {blobs_by_rule[rule]:>6}")
    for line in crashed:
        print(f"CRASH {line}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps({
            "commits": len(revisions), "blobs": blobs, "with_findings": with_findings,
            "with_errors": with_errors, "severity": dict(sorted(by_severity.items())),
            "findings_by_rule": dict(sorted(by_rule.items())),
            "blobs_by_rule": dict(sorted(blobs_by_rule.items())), "crashes": crashed},
            indent=1) + "\n")
    return 1 if crashed else 0


if __name__ == "__main__":
    raise SystemExit(main())
