"""``recipe-check rules`` says where each rule lives: the file and line of its check (or
of the ``declare`` call of a stage rule) and of its fix, so that a reader finds a rule
from its id."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]


def catalogue() -> list[dict[str, object]]:
    proc = subprocess.run([sys.executable, "-m", "validator", "rules", "--format", "json"],
                          cwd=PROJECT, capture_output=True, text=True, timeout=120, check=True)
    entries: list[dict[str, object]] = json.loads(proc.stdout)
    return entries


def _line(where: object) -> str:
    assert isinstance(where, str)
    path, line = where.rsplit(":", 1)
    lines = (PROJECT / path).read_text("utf-8").splitlines()
    # the decorator (or the declare call) stands on the named line or just above it
    return "\n".join(lines[max(0, int(line) - 3):int(line) + 1])


def test_every_rule_names_the_line_that_declares_it() -> None:
    for entry in catalogue():
        assert str(entry["id"]) in _line(entry["where"]), entry["id"]


def test_a_fixable_rule_names_its_fix_and_the_others_none() -> None:
    entries = {str(e["id"]): e for e in catalogue()}
    assert entries["FLAG001"]["fix_where"] is None
    fixable = [e for e in entries.values() if e["fix"]]
    assert fixable
    for entry in fixable:
        where = entry["fix_where"]
        assert isinstance(where, str) and where.startswith("validator/fix/")
        assert (PROJECT / where.rsplit(":", 1)[0]).is_file()
