#!/usr/bin/env python3
"""Benchmark recipe-check on the real recipes history (the corpus bundle).

Prints, for a frozen copy of the project's code (so that edits made while it runs do not
change what is measured):

* ``recipe-check models/`` on ``main`` (every recipe, every rule): wall time and peak
  RSS (``resource.getrusage(RUSAGE_CHILDREN)`` of a wrapper process);
* one file, cold: interpreter start to exit of ``python -m validator FILE``, median of N;
  and which heavy modules that run imports (``python -X importtime``);
* the whole-history audit (``recipe-check history``): ``main`` (first parent) and every
  commit of every ref (``--all-refs``, 2,915 commits), cold (fresh cache folder) and warm
  (the same folder again).

Goals (issue 8): all recipes <= ~1 s; one file < 0.5 s; whole history cold < 60 s on 2
cores and warm < 5 s; peak memory < 300 MB.

Usage::

    python benchmarks/bench.py [--bundle ../shared/corpus/vllm-recipes.bundle] [--runs 7]
        [--skip-history] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
BUNDLE = PROJECT.parent / "shared" / "corpus" / "vllm-recipes.bundle"
HEAVY = ("git", "requests", "jsonschema", "pydantic", "ruamel", "urllib3", "packaging",
         "filelock", "yaml", "referencing")

# Runs a command and prints {"wall": s, "maxrss_kb": n, "rc": n}: RUSAGE_CHILDREN covers
# the command and every descendant it waited for (the history workers).
_WRAPPER = """
import json, resource, subprocess, sys, time
t = time.perf_counter()
proc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "maxrss_kb": ru.ru_maxrss, "rc": proc.returncode,
                  "cpu": ru.ru_utime + ru.ru_stime, "err": proc.stderr.decode()[-400:]}))
"""


def measure(cmd: list[str], env: dict[str, str], cwd: Path) -> dict[str, float]:
    """Wall time, CPU time, peak RSS and exit code of ``cmd`` (run by a fresh wrapper)."""
    out = subprocess.run([sys.executable, "-c", _WRAPPER, *cmd], env=env, cwd=cwd,
                         check=True, capture_output=True, text=True).stdout
    result: dict[str, float] = json.loads(out)
    return result


def freeze(dest: Path) -> Path:
    """Copy the code and data the tool reads (validator/, schemas/, snapshots/)."""
    for name in ("validator", "schemas", "snapshots"):
        if (PROJECT / name).exists():
            shutil.copytree(PROJECT / name, dest / name,
                            ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def clone(bundle: Path, dest: Path) -> Path:
    """Clone the bundle (main) and fetch every ``refs/pull/*`` head."""
    subprocess.run(["git", "clone", "-q", str(bundle), str(dest)], check=True)
    subprocess.run(["git", "-C", str(dest), "fetch", "-q", str(bundle),
                    "refs/pull/*:refs/pull/*"], check=True)
    return dest


def heavy_imports(env: dict[str, str], cwd: Path, target: str) -> list[str]:
    """Top-level packages among ``HEAVY`` that checking one file imports."""
    err = subprocess.run([sys.executable, "-X", "importtime", "-m", "validator", target],
                         env=env, cwd=cwd, capture_output=True, text=True).stderr
    seen = set()
    for line in err.splitlines():
        if "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            top = name.split(".")[0]
            if top in HEAVY:
                seen.add(top)
    return sorted(seen)


def row(label: str, m: dict[str, float], goal: str, ok: bool) -> str:
    """One table line."""
    return (f"{label:<44} {m['wall']:>7.2f} s {m.get('cpu', 0):>7.2f} s "
            f"{m['maxrss_kb'] / 1024:>7.0f} MB  {goal:<14} {'ok' if ok else 'MISSED'}")


def main() -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description="recipe-check benchmark on the corpus")
    parser.add_argument("--bundle", type=Path, default=BUNDLE)
    parser.add_argument("--runs", type=int, default=7, help="runs of the one-file case")
    parser.add_argument("--jobs", type=int, default=None, help="history worker processes")
    parser.add_argument("--skip-history", action="store_true")
    args = parser.parse_args()
    if not args.bundle.is_file():
        print(f"bench: no bundle at {args.bundle}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="rc-bench-") as tmp:
        root = Path(tmp)
        code = freeze(root / "code")
        repo = clone(args.bundle, root / "recipes")
        env = {**os.environ, "PYTHONPATH": str(code), "XDG_CACHE_HOME": str(root / "xdg")}
        tool = [sys.executable, "-m", "validator"]
        one = "models/zai-org/GLM-5.2.yaml"
        recipes = len(list((repo / "models").rglob("*.yaml")))
        commits_main = len(subprocess.run(["git", "-C", str(repo), "rev-list", "main"],
                                          capture_output=True, text=True).stdout.split())
        commits_all = len(subprocess.run(["git", "-C", str(repo), "rev-list", "--all"],
                                         capture_output=True, text=True).stdout.split())
        print(f"corpus: {recipes} recipes at main, {commits_main} commits on main, "
              f"{commits_all} with PR heads; {os.cpu_count()} CPUs; "
              f"python {sys.version.split()[0]}")
        print(f"{'case':<44} {'wall':>9} {'cpu':>9} {'peak RSS':>10}  {'goal':<14}")
        lines = []
        measure([*tool, "models/"], env, repo)  # warm the page cache and .pyc files
        m = measure([*tool, "models/"], env, repo)
        lines.append(row(f"recipe-check models/ ({recipes} files)", m, "<= ~1 s",
                         m["wall"] <= 1.0 and m["maxrss_kb"] < 300 * 1024))
        runs = [measure([*tool, one], env, repo) for _ in range(args.runs)]
        med = dict(runs[0])
        med["wall"] = statistics.median(r["wall"] for r in runs)
        med["cpu"] = statistics.median(r["cpu"] for r in runs)
        med["maxrss_kb"] = max(r["maxrss_kb"] for r in runs)
        lines.append(row(f"one file cold (median of {args.runs})", med, "< 0.5 s",
                         med["wall"] < 0.5))
        for line in lines:
            print(line, flush=True)
        print(f"  heavy modules imported for one file: {', '.join(heavy_imports(env, repo, one))}")
        if not args.skip_history:
            jobs = ["--jobs", str(args.jobs)] if args.jobs else []
            for label, extra, goal_cold in (("main, first parent", [], 60.0),
                                            (f"all refs ({commits_all} commits)",
                                             ["--all-refs"], 60.0)):
                cache = root / f"cache-{len(extra)}"
                cmd = [*tool, "history", "--cache-dir", str(cache), *extra, *jobs]
                cold = measure(cmd, env, repo)
                warm = measure(cmd, env, repo)
                print(row(f"history {label}, cold", cold, f"< {goal_cold:.0f} s",
                          cold["wall"] < goal_cold and cold["maxrss_kb"] < 300 * 1024),
                      flush=True)
                print(row(f"history {label}, warm", warm, "< 5 s",
                          warm["wall"] < 5 and warm["maxrss_kb"] < 300 * 1024), flush=True)
                for m_ in (cold, warm):
                    if m_["rc"] != 0:
                        print(f"  exit {m_['rc']}: {m_['err']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
