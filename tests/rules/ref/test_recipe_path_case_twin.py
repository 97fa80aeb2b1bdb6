"""A recipe file whose path differs from another's only in letter case (one file on macOS
and Windows, one page of the site's API) is ``REF020``, on both files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree
from tests.context_files import KV_STORE, kv_store_text
from validator.cli import main

CHAT = "models/example-org/Example-Chat-8B.yaml"


def test_a_recipe_beside_its_case_twin_is_an_error_and_the_api_build_refuses_the_tree(
        examples_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    twin = "models/Example-Org/Example-Chat-8B.yaml"
    (examples_tree / twin).parent.mkdir()
    (examples_tree / "kv_store").mkdir(exist_ok=True)
    (examples_tree / KV_STORE).write_text(kv_store_text())
    (examples_tree / twin).write_bytes((examples_tree / CHAT).read_bytes())
    assert main(["render", "--api-out", str(tmp_path / "api"), str(examples_tree / CHAT),
                 str(examples_tree / twin)]) == 2
    capsys.readouterr()
    found = [f for f in check_tree(examples_tree, twin) if f.rule == "REF020"]
    assert [(f.severity.value, f.line) for f in found] == [("error", 1)]
    assert f"is one file with '{CHAT}'" in found[0].message
    assert [f.rule for f in check_tree(examples_tree, CHAT) if f.rule == "REF020"] == [
        "REF020"]


def test_recipes_of_distinct_paths_are_no_twins(examples_tree: Path) -> None:
    assert [f for f in check_tree(examples_tree, CHAT) if f.rule == "REF020"] == []


def test_unicode_form_twins_are_told_apart_in_the_message(examples_tree: Path) -> None:
    composed, decomposed = "models/caf/G\u00e9.yaml", "models/caf/Ge\u0301.yaml"
    (examples_tree / "models/caf").mkdir()
    for path in (composed, decomposed):
        (examples_tree / path).write_bytes((examples_tree / CHAT).read_bytes())
    [found] = [f for f in check_tree(examples_tree, decomposed) if f.rule == "REF020"]
    assert ("the recipe path 'models/caf/Ge\\u0301.yaml' is one file with "
            "'models/caf/G\\xe9.yaml'") in found.message
