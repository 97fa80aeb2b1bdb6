"""``FLAG028``: a rendered ``vllm serve`` with ``--enable-eplb`` but no expert parallelism,
which vLLM refuses ("enable_expert_parallel must be True to use EPLB"). The
expert-parallel strategy adds ``--enable-expert-parallel``; a feature offered on a
tensor-parallel strategy too renders the load balancer alone there."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once

CHAT = "models/example-org/Example-Chat-8B.yaml"
DEP = """name: single_node_dep
deploy_type: single_node
display_name: "Data + Expert Parallel"
orientation: throughput
description: "Own fixture: data parallel attention, expert parallel experts"
hardware_match:
  min_gpus: 2
  max_gpus: 8
  multi_node: false
vllm_args:
  - "--enable-expert-parallel"
parallel_flag: "--data-parallel-size"
"""


def _with_eplb(root: Path, args: str, limit: str = "") -> str:
    (root / "strategies/single_node_dep.yaml").write_text(DEP, "utf-8")
    replace_once(root / CHAT, "compatible_strategies:\n  - single_node_tp\n",
                 "compatible_strategies:\n  - single_node_tp\n  - single_node_dep\n")
    return replace_once(root / CHAT, "\nopt_in_features: []\n",
                        f"\n  eplb:\n    description: \"EPLB\"\n    args: [{args}]\n{limit}"
                        "\nopt_in_features: [eplb]\n")


def _found(root: Path) -> list[tuple[str, int, str]]:
    return [(f.rule, f.line, f.message) for f in check_tree(root, CHAT, rendered=True)
            if f.rule == "FLAG028"]


def test_a_feature_offered_on_tensor_parallel_strategies_is_an_error_at_its_item(
        examples_tree: Path) -> None:
    text = _with_eplb(examples_tree, '"--enable-eplb"')
    ((_, line, message),) = _found(examples_tree)
    assert line == line_of(text, "--enable-eplb")
    assert "--enable-eplb without --enable-expert-parallel: vLLM refuses" in message
    assert "single_node_tp" in message and "single_node_dep" not in message


@pytest.mark.parametrize(("args", "limit"), [
    ('"--enable-eplb"', "    strategies: [single_node_dep]\n"),
    ('"--enable-expert-parallel", "--enable-eplb"', ""),
    ('"--enable-eplb", "--no-enable-eplb"', ""),
], ids=["only-expert-parallel-strategies", "expert-parallel-beside-it", "switched-off-after"])
def test_eplb_with_expert_parallel_or_switched_off_passes(examples_tree: Path, args: str,
                                                          limit: str) -> None:
    _with_eplb(examples_tree, args, limit)
    assert _found(examples_tree) == []


def test_expert_parallel_switched_off_after_the_strategy_is_an_error(
        examples_tree: Path) -> None:
    """The last of the command's expert-parallel switches decides (argparse's last wins):
    on the expert-parallel strategy the feature's ``--no-enable-expert-parallel`` comes
    after the strategy's ``--enable-expert-parallel``."""
    _with_eplb(examples_tree, '"--enable-eplb", "--no-enable-expert-parallel"',
               "    strategies: [single_node_dep]\n")
    ((_, _, message),) = _found(examples_tree)
    assert "single_node_dep" in message
