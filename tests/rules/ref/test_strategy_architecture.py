"""REF033: a strategy meant for another model architecture (its
``hardware_match.architecture``) offered by a recipe of the real corpus at ``main``."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import check_tree, line_of, replace_once
from validator.findings import PAIR

DENSE = "models/meta-llama/Llama-3.1-8B-Instruct.yaml"
MOE = "models/zai-org/GLM-5.2.yaml"
LISTED = "  - single_node_tp\n  - multi_node_tp\n"


def ref033(root: Path, path: str) -> list[tuple[str, int, str | None]]:
    return [(f.pointer, f.line, f.reason) for f in check_tree(root, path) if f.rule == "REF033"]


def test_a_moe_only_strategy_on_a_dense_recipe_is_found_at_its_item(
        corpus_copy: Path) -> None:
    text = replace_once(corpus_copy / DENSE, LISTED, LISTED + "  - single_node_dep\n")
    found = [f for f in check_tree(corpus_copy, DENSE) if f.rule == "REF033"]
    assert [(f.pointer, f.line, f.reason, f.severity.value) for f in found] == [
        ("/compatible_strategies/2", line_of(text, "  - single_node_dep"), PAIR, "warning")]
    assert "'single_node_dep' is meant for moe models" in found[0].message
    assert "model.architecture is 'dense'" in found[0].message
    strategy = (corpus_copy / "strategies/single_node_dep.yaml").read_text("utf-8")
    assert [(r.path, r.line, r.pointer) for r in found[0].related] == [
        ("strategies/single_node_dep.yaml", line_of(strategy, "architecture: moe"),
         "/hardware_match/architecture")]


def test_a_strategy_hardware_grant_of_a_moe_only_strategy_is_found_at_its_key(
        corpus_copy: Path) -> None:
    """The site offers a strategy ``supported`` on some hardware though it is unlisted."""
    text = replace_once(corpus_copy / DENSE, LISTED,
                        LISTED + "\nstrategy_hardware:\n  multi_node_dep:\n    h200: supported\n")
    assert ref033(corpus_copy, DENSE) == [
        ("/strategy_hardware/multi_node_dep", line_of(text, "  multi_node_dep:"), PAIR)]


def test_strategies_of_the_model_architecture_are_no_finding(corpus_copy: Path) -> None:
    """GLM-5.2 is MoE and lists ``single_node_tep``; a pure opt-out grants nothing."""
    replace_once(corpus_copy / DENSE, LISTED,
                 LISTED + "\nstrategy_hardware:\n  multi_node_dep:\n    h200: unsupported\n")
    assert ref033(corpus_copy, MOE) == []
    assert ref033(corpus_copy, DENSE) == []


def test_every_moe_strategy_of_a_recipe_marked_dense_is_found(corpus_copy: Path) -> None:
    replace_once(corpus_copy / MOE, "  architecture: moe\n", "  architecture: dense\n")
    assert [pointer for pointer, _, _ in ref033(corpus_copy, MOE)] == [
        "/compatible_strategies/1", "/compatible_strategies/4", "/compatible_strategies/5"]
