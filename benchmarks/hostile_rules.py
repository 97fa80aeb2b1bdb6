#!/usr/bin/env python3
"""Time the checks on pathological (but size-limit-respecting) recipes.

Each case takes the real ``models/zai-org/GLM-5.2.yaml`` of a corpus clone, changes one
part of it into something a hostile pull request could send, writes it into a temporary
copy of the tree (nothing is written to the clone or the project), and runs
``python -m validator FILE --format json`` with a time budget. Prints the size, wall
time, exit status, number of findings and size of the JSON report, so that quadratic
rules and unbounded outputs show up.

Usage::

    python benchmarks/hostile_rules.py /tmp/recipes [--budget 20]
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

SOURCE = "models/zai-org/GLM-5.2.yaml"


def _guide(text: str) -> Callable[[dict[str, Any]], None]:
    def apply(d: dict[str, Any]) -> None:
        d["guide"] = text
    return apply


def _features(n: int) -> Callable[[dict[str, Any]], None]:
    def apply(d: dict[str, Any]) -> None:
        d["features"] = {f"f{i}": {"args": ["--tensor-parallel-size", "8"] * 5}
                         for i in range(n)}
    return apply


def _related(n: int) -> Callable[[dict[str, Any]], None]:
    def apply(d: dict[str, Any]) -> None:
        d.setdefault("meta", {})["related_recipes"] = [f"org/missing{i}" for i in range(n)]
    return apply


CASES: dict[str, Callable[[dict[str, Any]], None]] = {
    "guide: unclosed quote, 4,000 continuation lines":
        _guide("```bash\nvllm serve org/m --x '" + "a \\\n" * 4000 + "\n```\n"),
    "guide: one command, 40,000 unknown flags":
        _guide("```bash\nvllm serve org/m " + "--tp 8 " * 40_000 + "\n```\n"),
    "guide: 12,000 serve commands":
        _guide("```bash\n" + "vllm serve org/m --tensor-parallel-size 8\n" * 12_000 + "```\n"),
    "features: 250 features with the same flag": _features(250),
    "meta.related_recipes: 20,000 missing": _related(20_000),
}


def main() -> int:
    """Run every case; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path, help="a clone of the recipes repository")
    parser.add_argument("--budget", type=float, default=20.0, help="seconds per case")
    args = parser.parse_args()
    base = yaml.safe_load((args.repo / SOURCE).read_bytes())
    with tempfile.TemporaryDirectory(prefix="rc-hostile-") as tmp:
        root = Path(tmp) / "recipes"
        (root / "models" / "org").mkdir(parents=True)
        shutil.copy(args.repo / "taxonomy.yaml", root / "taxonomy.yaml")
        shutil.copytree(args.repo / "strategies", root / "strategies")
        print(f"{'case':<52} {'bytes':>9} {'wall':>8} {'exit':>5} {'findings':>9} "
              f"{'report':>9}")
        for i, (name, apply) in enumerate(CASES.items()):
            doc = copy.deepcopy(base)
            apply(doc)
            target = root / "models" / "org" / f"case{i}.yaml"
            target.write_text(yaml.safe_dump(doc, sort_keys=False, width=10**9))
            start = time.monotonic()
            try:
                proc = subprocess.run([sys.executable, "-m", "validator", str(target),
                                       "--format", "json"], capture_output=True,
                                      timeout=args.budget)
                wall = f"{time.monotonic() - start:7.1f}s"
                code = str(proc.returncode)
                try:
                    report = json.loads(proc.stdout)
                    found = str(sum(len(d["findings"]) for d in report["documents"]))
                except ValueError:
                    found = "?"
                size = f"{len(proc.stdout) // 1024} KiB"
            except subprocess.TimeoutExpired:
                wall, code, found, size = f">{args.budget:.0f}s", "-", "-", "-"
            print(f"{name:<52} {target.stat().st_size:>9} {wall:>8} {code:>5} {found:>9} "
                  f"{size:>9}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
