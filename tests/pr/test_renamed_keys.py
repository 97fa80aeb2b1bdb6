"""A pull request that renames a mapping key (a variant, a feature) keeps the findings
below it existing: the lines did not change, only the key above them (trial 10 #1: the
rename blocked the PR for an error it did not make, and listed it as fixed at once)."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.identity import Identity
from validator.pr.renamed_keys import key_renames, moved

from .conftest import commit_all, git, pr_json

CHAT = "models/example-org/Example-Chat-8B.yaml"
FP8 = '''  fp8:
    precision: fp9
    vram_minimum_gb: 12
    description: "FP8 weights"
'''


def test_a_key_with_the_same_value_or_the_only_one_replaced_is_a_rename() -> None:
    base = {"variants": {"a": {"x": 1}, "b": {"y": 2}}, "features": {"old": {"z": 3}}}
    head = {"variants": {"a": {"x": 1}, "c": {"y": 2}}, "features": {"new": {"z": 4}}}
    assert key_renames(base, head) == [("/variants/b", "/variants/c"),
                                       ("/features/old", "/features/new")]


def test_a_key_inside_a_renamed_one_is_given_under_its_new_parent() -> None:
    base = {"v": {"old": {"modes": {"m1": 1}}}}
    head = {"v": {"new": {"modes": {"m2": 1}}}}
    renames = key_renames(base, head)
    assert renames == [("/v/old", "/v/new"), ("/v/new/modes/m1", "/v/new/modes/m2")]
    assert moved(Identity("R", "s", "/v/old/modes/m1/x"), renames).anchor == \
        "/v/new/modes/m2/x"


def test_two_keys_replaced_by_two_others_of_other_values_are_no_rename() -> None:
    assert key_renames({"m": {"a": 1, "b": 2}}, {"m": {"c": 3, "d": 4}}) == []
    assert moved(Identity("R", "s", "/m/ab"), [("/m/a", "/m/c")]).anchor == "/m/ab"


def test_renaming_a_variant_keeps_its_defect_existing_and_not_fixed(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chat = example_repo / CHAT
    text = chat.read_text("utf-8")
    chat.write_text(text.replace("\ncompatible_strategies:", FP8 + "\ncompatible_strategies:"),
                    "utf-8")
    commit_all(example_repo, "a variant with a precision no one knows")
    git(example_repo, "branch", "base")
    chat.write_text(chat.read_text("utf-8").replace("  fp8:\n", "  fp8_dynamic:\n"), "utf-8")
    commit_all(example_repo, "the variant renamed")
    code, data = pr_json(example_repo, "base", "HEAD", capsys)
    [doc] = [d for d in data["documents"] if d["path"] == CHAT]
    states = {(f["rule"], f["baseline"]) for f in doc["findings"] if "fp9" in f["message"]}
    assert states == {("SCHEMA002", "unchanged")}
    assert doc["fixed"] == [] and code == 0
