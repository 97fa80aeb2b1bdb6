"""A record of a file the recipes site cannot load (js-yaml refuses it) says so in its
limitations and shows no rendered commands, and its catalogue page offers no
configuration: no site page renders any."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLES
from tests.evidence.conftest import make_repo
from validator.evidence.record import build_record
from validator.evidence.site.renderings import RecipeReader

RECIPE = "models/example-org/Example-Chat-8B.yaml"


def _record(tmp_path: Path, edit: str) -> dict[str, Any]:
    files = {str(p.relative_to(EXAMPLES)): p.read_text("utf-8")
             for p in EXAMPLES.rglob("*") if p.is_file()}
    files[RECIPE] = files[RECIPE] + edit
    shutil.rmtree(tmp_path / "repo", ignore_errors=True)
    tree = make_repo(tmp_path / "repo", files)
    record = build_record(tree, RECIPE, checked_on="2026-12-06").model_dump(mode="json")
    record["page"] = RecipeReader(lambda source: tree)(record)
    return record


@pytest.mark.parametrize(("edit", "rule"), [
    ("meta:\n  title: twice\n", "YAML002"),
    ("extra_note: !!python/object/apply:os.system ['true']\n", "YAML009"),
])
def test_a_file_js_yaml_refuses_has_a_limitation_and_no_rendered_commands(
        tmp_path: Path, edit: str, rule: str) -> None:
    record = _record(tmp_path, edit)
    notes = [n for n in record["limitations"] if "recipes site cannot load" in n]
    assert len(notes) == 1 and f"{RECIPE}:" in notes[0] and rule in notes[0]
    assert record["rendered_defaults"] is None
    assert record["page"] is None


@pytest.mark.parametrize("edit", [
    "", 'extra_note: "a\u202eb"\n',  # a loader error (YAML010) js-yaml reads past
])
def test_a_file_the_site_loads_keeps_its_rendered_commands(tmp_path: Path, edit: str) -> None:
    record = _record(tmp_path, edit)
    assert record["rendered_defaults"]
    assert record["page"] is not None and record["page"].offered
    assert not any("recipes site cannot load" in n for n in record["limitations"])
