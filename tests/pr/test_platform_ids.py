"""``REF026``: a recipe's ``meta.platforms`` names an ``id`` of ``platforms.yaml`` -- in
``check``, and in ``pr``, which re-checks the recipes naming a platform the change renamed
or removed (real git)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import check_tree, line_of, replace_once
from validator.cli import main

from .conftest import commit_all

CHAT = "models/example-org/Example-Chat-8B.yaml"
PLATFORMS = ("platforms:\n  - id: example-cloud\n    name: Example Cloud\n"
             "    url: https://example.com/guide\n    blurb: A platform of our own\n")


def _opt_in(root: Path) -> str:
    (root / "platforms.yaml").write_text(PLATFORMS)
    return replace_once(root / CHAT, "  hardware:\n",
                        "  platforms:\n    - id: example-cloud\n  hardware:\n")


def test_a_platform_id_missing_from_platforms_yaml_is_reported(examples_tree: Path) -> None:
    _opt_in(examples_tree)
    assert not [f for f in check_tree(examples_tree, CHAT) if f.rule == "REF026"]
    text = replace_once(examples_tree / CHAT, "    - id: example-cloud\n",
                        "    - id: example-clod\n")
    found = [f for f in check_tree(examples_tree, CHAT) if f.rule == "REF026"]
    assert [f.line for f in found] == [line_of(text, "example-clod")]
    assert "example-cloud" in (found[0].hint or "")


def test_pr_renaming_a_platform_rechecks_the_recipes_naming_it(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _opt_in(example_repo)
    base = commit_all(example_repo, "a platform")
    replace_once(example_repo / "platforms.yaml", "id: example-cloud", "id: example-cloud-2")
    head = commit_all(example_repo, "rename the platform")
    code = main(["pr", "--offline", "--repo", str(example_repo), "--base", base, "--head",
                 head, "--format", "json", "--no-summary"])
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    new = [(d["path"], f["rule"], f["line"]) for d in doc["documents"] for f in d["findings"]
           if f.get("baseline") == "new"]
    assert code == 1
    assert new == [(CHAT, "REF026", line_of(text, "- id: example-cloud"))]
