#!/usr/bin/env python3
"""Survey the keys used by recipe YAML files over the whole history of a recipes repo.

Walks every commit of every ref of a git repository (a clone of ``vllm-project/recipes``
or of the corpus bundle), collects the distinct blobs of

* ``models/**/*.yaml``            (kind ``recipe``)
* ``taxonomy.yaml``               (kind ``taxonomy``)
* ``strategies/*.yaml``           (kind ``strategy``)
* ``kv_store/*.yaml``             (kind ``kv_store``)

loads each with ``yaml.safe_load`` (good enough for a survey; the validator itself uses
:mod:`validator.load`), and reports, per JSON-pointer pattern, the value types seen, how
many blobs use it, and the value sets of enum-like leaves.  In a pattern ``*`` stands for
the key of an id-keyed map (hardware ids, feature names, variant names, env var names…)
and ``[]`` for a list item.

Usage::

    python scripts/survey_keys.py /tmp/recipes              # all refs, markdown to stdout
    python scripts/survey_keys.py /tmp/recipes --rev main   # main's history only
    python scripts/survey_keys.py /tmp/recipes --rev main --tip-only  # files at main
    python scripts/survey_keys.py /tmp/recipes --json out.json

Trees are read through one ``git cat-file --batch`` process and cached by tree id, so the
whole corpus (~3,000 commits) takes a few seconds.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import fnmatch
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

KIND_GLOBS: list[tuple[str, str]] = [
    ("recipe", "models/*.yaml"),
    ("recipe", "models/*.yml"),
    ("taxonomy", "taxonomy.yaml"),
    ("strategy", "strategies/*.yaml"),
    ("kv_store", "kv_store/*.yaml"),
]

# Containers whose keys are ids or names rather than a fixed vocabulary.  A pattern
# matches a container's own pattern (fnmatch; ``*`` in these globs also spans ``/``).
MAP_CONTAINERS: dict[str, list[str]] = {
    "recipe": [
        "/meta/hardware",
        "/model/base_env",
        "/features",
        "/variants",
        "/hardware_overrides",
        "/strategy_overrides",
        "/strategy_hardware",
        "/strategy_hardware/*",
        "/kv_cache_strategy_hardware",
        "/kv_cache_strategy_hardware/*",
        "/strategy_min_gpus",
        "/strategy_min_gpus/*",
        "/hardware_opt_in_features",
        "*/hardware_overrides",
        "*/modes",
        "*/modes/*/hardware",
        "*/default_modes",
        "/variants/*/tp",
        "*/env",
        "*/extra_env",
        "*/base_env",
        "*/vram_minimum_gb",
    ],
    "taxonomy": [
        "/hardware_profiles",
        "/tasks",
        "/strategies",
        "/kv_offload",
        "/precisions",
        "/precision_hardware",
        "*/env",
        "*/extra_env",
    ],
    "strategy": ["*/env", "*/extra_env", "*/base_env"],
    "kv_store": ["*/env", "*/extra_env", "*/base_env", "*/install"],
}

ENUM_MAX = 40  # report the value set of string leaves with at most this many values


def kind_of(path: str) -> str | None:
    for kind, pattern in KIND_GLOBS:
        if fnmatch.fnmatchcase(path, pattern):
            return kind
    return None


class Git:
    """A ``git cat-file --batch`` session on ``repo``."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.proc = subprocess.Popen(
            ["git", "-C", str(repo), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def read(self, oid: str) -> tuple[str, bytes]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(oid.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) < 3:
            raise KeyError(oid)
        otype, size = header[1].decode(), int(header[2])
        data = self.proc.stdout.read(size)
        self.proc.stdout.read(1)
        return otype, data

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait()


def rev_list(repo: Path, rev: str | None, tip_only: bool = False) -> list[str]:
    args = ["git", "-C", str(repo), "rev-list"] + (["--all"] if rev is None else [rev])
    if tip_only:
        args.insert(4, "--no-walk")
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout.split()


def parse_tree(data: bytes) -> Iterator[tuple[str, str, str]]:
    """Yield (mode, name, oid) of a raw git tree object."""
    i = 0
    while i < len(data):
        sp = data.index(b" ", i)
        nul = data.index(b"\0", sp)
        mode = data[i:sp].decode()
        name = data[sp + 1 : nul].decode("utf-8", "surrogateescape")
        oid = data[nul + 1 : nul + 21].hex()
        i = nul + 21
        yield mode, name, oid


def collect_blobs(
    repo: Path, rev: str | None, tip_only: bool = False
) -> dict[str, tuple[str, set[str]]]:
    """Map blob id -> (kind, paths it appeared under) over the selected commits."""
    git = Git(repo)
    tree_cache: dict[str, list[tuple[str, str]]] = {}  # tree id -> [(path, blob)]

    def walk(tree: str) -> list[tuple[str, str]]:
        if tree in tree_cache:
            return tree_cache[tree]
        out: list[tuple[str, str]] = []
        _, data = git.read(tree)
        for mode, name, oid in parse_tree(data):
            if mode == "40000":
                out.extend((f"{name}/{p}", b) for p, b in walk(oid))
            elif mode.startswith("100"):
                out.append((name, oid))
        tree_cache[tree] = out
        return out

    blobs: dict[str, tuple[str, set[str]]] = {}
    for commit in rev_list(repo, rev, tip_only):
        _, data = git.read(commit)
        tree = data.split(b"\n", 1)[0].split()[1].decode()
        for path, oid in walk(tree):
            kind = kind_of(path)
            if kind is None:
                continue
            blobs.setdefault(oid, (kind, set()))[1].add(path)
    git.close()
    return blobs


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dt.datetime):
        return "timestamp"
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


@dataclass
class PathStats:
    types: collections.Counter[str] = field(default_factory=collections.Counter)
    blobs: set[str] = field(default_factory=set)
    values: collections.Counter[str] = field(default_factory=collections.Counter)
    keys: set[str] = field(default_factory=set)  # literal keys collapsed into this `*`


def is_map(kind: str, pattern: str) -> bool:
    return any(fnmatch.fnmatchcase(pattern, g) for g in MAP_CONTAINERS[kind])


def survey_value(kind: str, value: Any, pattern: str, blob: str,
                 stats: dict[str, PathStats], literal_key: str | None = None) -> None:
    st = stats.setdefault(pattern or "/", PathStats())
    st.types[type_name(value)] += 1
    st.blobs.add(blob)
    if literal_key is not None:
        st.keys.add(literal_key)
    short_text = isinstance(value, str) and len(value) <= 60 and "\n" not in value
    if isinstance(value, bool | int | float) or short_text:
        st.values[json.dumps(value)] += 1
    if isinstance(value, dict):
        collapse = is_map(kind, pattern)
        for key, child in value.items():
            k = str(key)
            seg = "*" if collapse else k.replace("~", "~0").replace("/", "~1")
            survey_value(kind, child, f"{pattern}/{seg}", blob, stats, k if collapse else None)
    elif isinstance(value, list):
        for item in value:
            survey_value(kind, item, f"{pattern}/[]", blob, stats)


def run(repo: Path, rev: str | None, tip_only: bool = False) -> dict[str, Any]:
    blobs = collect_blobs(repo, rev, tip_only)
    git = Git(repo)
    per_kind: dict[str, dict[str, PathStats]] = collections.defaultdict(dict)
    counts: collections.Counter[str] = collections.Counter()
    paths_per_kind: dict[str, set[str]] = collections.defaultdict(set)
    unparsable: list[dict[str, str]] = []
    for oid, (kind, paths) in sorted(blobs.items()):
        counts[kind] += 1
        paths_per_kind[kind] |= paths
        _, data = git.read(oid)
        try:
            doc = yaml.safe_load(data)
        except yaml.YAMLError as exc:
            unparsable.append({"blob": oid, "path": sorted(paths)[0], "error": str(exc)[:200]})
            continue
        survey_value(kind, doc, "", oid, per_kind[kind])
    git.close()

    label = rev or "--all"
    if tip_only:
        label += " (tip only)"
    report: dict[str, Any] = {"revision": label, "kinds": {}, "unparsable": unparsable}
    for kind, stats in per_kind.items():
        entries = {}
        for pattern, st in sorted(stats.items()):
            entry: dict[str, Any] = {
                "types": dict(st.types.most_common()),
                "blobs": len(st.blobs),
            }
            only_scalars = set(st.types) <= {"string", "boolean", "integer", "number"}
            if st.values and only_scalars and len(st.values) <= ENUM_MAX:
                entry["values"] = dict(st.values.most_common())
            if st.keys:
                entry["map_keys"] = sorted(st.keys)[:ENUM_MAX]
                entry["map_key_count"] = len(st.keys)
            entries[pattern] = entry
        report["kinds"][kind] = {
            "blobs": counts[kind],
            "paths": len(paths_per_kind[kind]),
            "patterns": entries,
        }
    return report


def to_markdown(report: dict[str, Any]) -> str:
    lines = [f"# Key survey ({report['revision']})", ""]
    for kind, info in sorted(report["kinds"].items()):
        lines += [f"## {kind}: {info['blobs']} distinct blobs, {info['paths']} paths", ""]
        lines += ["| pointer pattern | blobs | types | values / map keys |", "|---|---|---|---|"]
        for pattern, e in info["patterns"].items():
            types = ", ".join(f"{t} {n}" for t, n in e["types"].items())
            extra = ""
            if "values" in e:
                extra = ", ".join(f"{v} ({n})" for v, n in e["values"].items())
            elif "map_keys" in e:
                extra = f"{e['map_key_count']} keys: " + ", ".join(e["map_keys"])
            lines.append(f"| `{pattern}` | {e['blobs']} | {types} | {extra.replace('|', '/')} |")
        lines.append("")
    if report["unparsable"]:
        lines += ["## unparsable blobs", ""]
        lines += [f"- {u['path']} ({u['blob'][:12]}): {u['error']}" for u in report["unparsable"]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", type=Path, help="a git clone of the recipes repository")
    ap.add_argument("--rev", help="survey one revision instead of every ref")
    ap.add_argument("--tip-only", action="store_true",
                    help="only the files of the revision itself, not of its history")
    ap.add_argument("--json", type=Path, help="also write the full report as JSON here")
    args = ap.parse_args(argv)
    report = run(args.repo, args.rev, args.tip_only)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    sys.stdout.write(to_markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
