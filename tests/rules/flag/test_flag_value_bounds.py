"""FLAG006 for a number outside the bound vLLM's config states for the option in the
minimum's release (vendored with its source in ``validator/data/vllm_bounds.json``):
``--gpu-memory-utilization`` above 1 in every vendored release, 0 from 0.11.1 (pydantic
``gt=0``); ``--max-num-batched-tokens`` below 1. A value no bound of that release covers
is not judged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import check_tree
from tests.tiny_recipe import PATH, RECIPE, write_tiny
from validator.paths import SNAPSHOTS_DIR


def flag006(root: Path, minimum: str, args: str) -> list[str]:
    write_tiny(root, args, RECIPE.replace('"0.12.0"', f'"{minimum}"'))
    return [f.message.split(":")[0] for f in check_tree(root, PATH) if f.rule == "FLAG006"]


@pytest.mark.parametrize("minimum", ["0.8.5", "0.23.0"])
def test_numbers_outside_the_stated_bounds_are_flag006(corpus_copy: Path, minimum: str) -> None:
    found = flag006(corpus_copy, minimum, '["--gpu-memory-utilization", "1.5", '
                    '"--max-num-batched-tokens=0", "--max-num-seqs", "8"]')
    assert found == ["`--gpu-memory-utilization 1.5`", "`--max-num-batched-tokens 0`"]


def test_zero_utilisation_is_judged_only_where_the_release_states_it(corpus_copy: Path) -> None:
    args = '["--gpu-memory-utilization", "0"]'
    assert flag006(corpus_copy, "0.8.5", args) == []
    assert flag006(corpus_copy, "0.23.0", args) == ["`--gpu-memory-utilization 0`"]


def test_numbers_inside_the_bounds_and_filled_in_values_pass(corpus_copy: Path) -> None:
    assert flag006(corpus_copy, "0.23.0", '["--gpu-memory-utilization", "1", '
                   '"--max-num-batched-tokens", "8k", "--max-num-seqs", "$N"]') == []


def test_every_vendored_bound_names_vendored_releases_and_a_source() -> None:
    from validator.vllm_cli.value_bounds import DATA_FILE

    registries = {p.stem for p in (SNAPSHOTS_DIR / "vllm-cli").glob("0.*.json")}
    for entry in json.loads(DATA_FILE.read_text(encoding="utf-8"))["bounds"]:
        assert entry["source"] and set(entry["releases"]) <= registries, entry["option"]


def test_nan_utilisation_is_flag006_only_where_a_pydantic_bound_refuses_it(
        corpus_copy: Path) -> None:
    """From 0.11.1 the field is a pydantic ``Field(gt=0, le=1)``, which refuses NaN; before,
    the check is ``gpu_memory_utilization > 1.0``, false for NaN, so vLLM took it."""
    args = '["--gpu-memory-utilization", "nan"]'
    assert flag006(corpus_copy, "0.12.0", args) == ["`--gpu-memory-utilization nan`"]
    assert flag006(corpus_copy, "0.8.5", args) == []
