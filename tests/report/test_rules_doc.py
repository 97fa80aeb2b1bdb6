"""``docs/rules.md`` is generated from the rule registry and must not go stale."""

from __future__ import annotations

from pathlib import Path

from validator.docs import rules_markdown
from validator.rule_index import all_rules

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_rules_md_matches_the_registry() -> None:
    assert DOC.read_text(encoding="utf-8") == rules_markdown(all_rules()), (
        "docs/rules.md is stale: run `recipe-check rules --format markdown > docs/rules.md`")
