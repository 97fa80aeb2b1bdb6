#!/usr/bin/env python
"""Run PR mode over every pull-request head of the recipes corpus bundle.

For each ``refs/pull/<N>/head`` it runs ``recipe-check pr --base main --head <ref>`` (in
process, :func:`validator.pr.run.run_pr`), then prints how many pull requests were
checked, how many had errors, the most common rules, and any crash (an exception, or a
rule that crashed). Exit status 1 when anything crashed.

    python scripts/pr_audit.py [--repo CLONE] [--bundle FILE] [--jobs N] [--json OUT]

Without ``--repo`` the bundle (default ``../shared/corpus/vllm-recipes.bundle``) is
cloned, with every ``refs/pull/*``, into a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parents[1]
DEFAULT_BUNDLE = PROJECT.parent / "shared" / "corpus" / "vllm-recipes.bundle"


def _git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def clone_bundle(bundle: Path, dest: Path) -> Path:
    """Clone ``bundle`` into ``dest`` and fetch every ``refs/pull/*``; returns ``dest``."""
    _git("clone", "-q", str(bundle), str(dest))
    _git("fetch", "-q", str(bundle), "refs/pull/*:refs/pull/*", cwd=dest)
    return dest


def audit_one(job: tuple[str, str, str]) -> dict[str, Any]:
    """PR mode for one ref; a dict of counts, rules and any crash (never raises)."""
    repo, base, ref = job
    from validator.pr.run import run_pr

    number = int(ref.split("/")[2])
    started = time.perf_counter()
    try:
        result = run_pr(Path(repo), base, ref, env={})
    except Exception as exc:  # the audit's job is to find these
        return {"pr": number, "crash": f"{exc!r}\n{traceback.format_exc()}",
                "seconds": time.perf_counter() - started}
    pr = result.context["pr"]
    summary = result.summary()
    return {
        "pr": number,
        "files": len(pr["files"]),
        "skipped": len(pr["skipped"]),
        "errors": summary["errors"],
        "warnings": summary["warnings"],
        "infos": summary["infos"],
        "rules": dict(Counter(f.rule for f in result.all_findings())),
        "error_rules": sorted({f.rule for f in result.all_findings()
                               if f.severity.value == "error"}),
        "internal_errors": result.internal_errors,
        "by_reference": sum(1 for f in pr["files"]
                            if any(r.startswith("references ") for r in f["reasons"])),
        "seconds": time.perf_counter() - started,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the audit and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, help="a clone with refs/pull/* (default: clone "
                        "the bundle into a temporary folder)")
    parser.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE)
    parser.add_argument("--base", default="main")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N refs (0: all)")
    parser.add_argument("--pr", type=int, action="append", default=[], metavar="N",
                        help="only these pull requests (repeatable)")
    parser.add_argument("--json", type=Path, help="write per-PR results here")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="pr-audit-") as tmp:
        repo = args.repo or clone_bundle(args.bundle, Path(tmp) / "recipes")
        refs = sorted(_git("for-each-ref", "--format=%(refname)", "refs/pull", cwd=repo).split(),
                      key=lambda r: int(r.split("/")[2]))
        if args.pr:
            refs = [r for r in refs if int(r.split("/")[2]) in args.pr]
        if args.limit:
            refs = refs[:args.limit]
        jobs = [(str(repo), args.base, ref) for ref in refs]
        started = time.perf_counter()
        if args.jobs > 1:
            with multiprocessing.Pool(args.jobs) as pool:
                rows = pool.map(audit_one, jobs, chunksize=8)
        else:
            rows = [audit_one(j) for j in jobs]
        elapsed = time.perf_counter() - started

    crashed = [r for r in rows if "crash" in r or r.get("internal_errors")]
    ok = [r for r in rows if "crash" not in r]
    checked = [r for r in ok if r["files"]]
    with_errors = [r for r in ok if r["errors"]]
    findings: Counter[str] = Counter()
    prs_per_rule: Counter[str] = Counter()
    prs_per_error_rule: Counter[str] = Counter()
    for r in ok:
        findings.update(r["rules"])
        prs_per_rule.update(r["rules"].keys())
        prs_per_error_rule.update(r["error_rules"])
    print(f"pull-request heads: {len(rows)} (against {args.base}'s merge base), "
          f"{elapsed:.1f} s with {args.jobs} process(es)")
    print(f"  with files to check: {len(checked)}; nothing to check: {len(ok) - len(checked)}")
    print(f"  files checked: {sum(r['files'] for r in ok)} "
          f"({sum(r['by_reference'] for r in ok)} because they reference a changed "
          "taxonomy/strategy entry)")
    print(f"  with errors: {len(with_errors)}; with warnings only: "
          f"{sum(1 for r in ok if not r['errors'] and r['warnings'])}")
    print(f"  findings: {sum(findings.values())} "
          f"({sum(r['errors'] for r in ok)} errors, {sum(r['warnings'] for r in ok)} warnings,"
          f" {sum(r['infos'] for r in ok)} infos)")
    print("  most common rules (findings, pull requests):")
    for rule_id, n in findings.most_common(5):
        print(f"    {rule_id:<10} {n:>6} findings in {prs_per_rule[rule_id]:>4} PRs")
    print("  rules causing errors in most PRs:")
    for rule_id, n in prs_per_error_rule.most_common(5):
        print(f"    {rule_id:<10} {n:>4} PRs")
    slowest = max(ok, key=lambda r: r["seconds"], default=None)
    if slowest:
        print(f"  slowest: PR #{slowest['pr']} {slowest['seconds']:.2f} s "
              f"({slowest['files']} files)")
    print(f"  crashes: {len(crashed)}")
    for r in crashed[:10]:
        print(f"    PR #{r['pr']}: {r.get('crash') or r.get('internal_errors')}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
