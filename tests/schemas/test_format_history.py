"""A revision is judged by the format of its date (``schemas/format-history.json``): with
``--as-of`` before a change, the schema does not have the change yet; from its date on,
and without a date, it does."""

from __future__ import annotations

import copy
import json
import subprocess
from datetime import date
from pathlib import Path

import pytest

from validator.format_history import format_changes, schema_as_of, undone_at
from validator.load import load_yaml
from validator.schema import SchemaValidator, load_schema

PROJECT = Path(__file__).resolve().parents[2]
RECIPE = (PROJECT / "examples" / "recipes" / "models" / "example-org"
          / "Example-Chat-8B.yaml").read_text("utf-8")
STRATEGY = """\
name: kv_store_centralized
deploy_type: kv_store_lb
display_name: "Centralized KV store"
"""


def rules_of(text: str, schema: str, as_of: date | None) -> list[tuple[str, str]]:
    doc = load_yaml(text.encode(), f"{schema}.yaml")
    return [(f.rule, f.message) for f in SchemaValidator(as_of=as_of).validate(doc, schema)]


def test_date_added_is_required_from_the_day_the_format_required_it() -> None:
    text = "".join(line for line in RECIPE.splitlines(keepends=True)
                   if not line.lstrip().startswith("date_added:"))
    missing = ("SCHEMA003", "meta: required key 'date_added' is missing")
    assert missing in rules_of(text, "recipe", None)
    assert missing in rules_of(text, "recipe", date(2026, 7, 28))
    assert missing not in rules_of(text, "recipe", date(2026, 7, 27))
    assert rules_of(RECIPE, "recipe", date(2026, 7, 27)) == []  # a complete recipe stays clean


def test_an_omni_recipe_needs_its_omni_block_only_once_the_block_existed() -> None:
    text = RECIPE.replace("  tasks:\n    - text\n", "  tasks:\n    - text\n    - omni\n")
    assert "- omni" in text
    needs = ("SCHEMA003", "required key 'omni' is missing")
    assert needs in rules_of(text, "recipe", date(2026, 5, 22))
    assert needs not in rules_of(text, "recipe", date(2026, 5, 21))


def test_a_kv_store_strategy_was_a_strategy_until_kv_store_took_it_over() -> None:
    def deploy_type_findings(as_of: date | None) -> list[str]:
        return [r for r, m in rules_of(STRATEGY, "strategy", as_of) if "deploy_type" in m]

    assert deploy_type_findings(None) == ["SCHEMA002"]
    assert deploy_type_findings(date(2026, 7, 13)) == ["SCHEMA002"]
    assert deploy_type_findings(date(2026, 7, 12)) == []


def test_every_change_undoes_something_today_s_schema_has() -> None:
    changes = format_changes()
    assert [c.since for c in changes] == sorted(c.since for c in changes)
    for change in changes:
        today = load_schema(change.schema)
        before = schema_as_of(today, change.schema, (change.id,))
        assert before != today, change.id
        assert load_schema(change.schema) == copy.deepcopy(today)  # today's is left alone
        assert len(change.upstream) == 40 and change.what
    assert undone_at("recipe", None) == ()
    assert undone_at("recipe", date(2026, 1, 1)) == ("omni-block", "date-added")
    assert json.loads((PROJECT / "schemas" / "format-history.json").read_text())["changes"]


@pytest.mark.corpus
def test_a_pull_request_is_held_to_the_format_of_its_day(corpus_repo: Path,
                                                         tmp_path: Path) -> None:
    """A real PR of 2026-05 that added a recipe without ``meta.date_added`` (required only
    from 2026-07-28): as of its date the missing key is no error; judged by today's
    format it is."""
    from validator.context import Settings
    from validator.pr.run import run_pr

    head = "refs/pull/460/head"
    day = subprocess.run(["git", "-C", str(corpus_repo), "log", "-1", "--format=%cs", head],
                         capture_output=True, text=True, check=True).stdout.strip()
    base = subprocess.run(["git", "-C", str(corpus_repo), "merge-base", "main", head],
                          capture_output=True, text=True, check=True).stdout.strip()

    def new_schema_errors(as_of: date | None) -> list[str]:
        settings = Settings(offline=True, rendered=True, as_of=as_of)
        result = run_pr(corpus_repo, base, head, settings=settings, env={})
        return [f.message for f in result.all_findings()
                if f.rule == "SCHEMA003" and f.baseline == "new"]

    assert new_schema_errors(None) == ["meta: required key 'date_added' is missing"]
    assert new_schema_errors(date.fromisoformat(day)) == []
