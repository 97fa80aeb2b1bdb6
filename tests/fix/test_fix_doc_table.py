"""docs/fix.md's table names every registered fix, with its applicability (a fixer added
without a line there was invisible to a reader of the docs: GUIDE019, FLAG023, GUIDE017)."""

from __future__ import annotations

import re
from pathlib import Path

import validator.fix.engine  # noqa: F401  (imports every fix module: registers the fixes)
from validator.fix.registry import FIXES

FIX_DOC = Path(__file__).resolve().parents[2] / "docs" / "fix.md"


def _table() -> dict[str, str]:
    """``{rule id: applicability}`` from the rows of the table in docs/fix.md."""
    out: dict[str, str] = {}
    for line in FIX_DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not re.fullmatch(r"[A-Z]+\d+(, [A-Z]+\d+)*", cells[0]):
            continue
        for rule_id in cells[0].split(", "):
            assert rule_id not in out, f"{rule_id} is in two rows of docs/fix.md"
            out[rule_id] = cells[2]
    return out


def test_every_registered_fix_has_its_row() -> None:
    table = _table()
    assert FIXES, "no fix registered"
    missing = sorted(set(FIXES) - set(table))
    assert not missing, f"docs/fix.md's table lacks {missing}"
    stale = sorted(set(table) - set(FIXES))
    assert not stale, f"docs/fix.md's table names rules without a fix: {stale}"
    wrong = {r: (table[r], s.applicability.value) for r, s in FIXES.items()
             if table[r] != s.applicability.value}
    assert not wrong, f"applicability in docs/fix.md differs from the registry: {wrong}"
