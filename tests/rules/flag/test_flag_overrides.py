"""``FLAG012`` (a later layer of the recipe overrides an earlier one) and ``FLAG025`` (the
site replaces a flag of the recipe with its own value) come from the renderer's trace of
the site's last-wins de-duplication, the same with ``--rendered`` and ``--as-written``.

A small recipes tree of our own: two 8-GPU profiles (hopper, blackwell), a 4-GPU one, the
strategies the site synthesizes parallel sizes for, and one strategy with a valued flag.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import line_of
from validator.checker import Checker, RunResult
from validator.context import Settings, local_context
from validator.findings import Finding, normalise_message
from validator.rule_index import check_rules
from validator.schema import SchemaValidator

TAXONOMY = """\
hardware_profiles:
  hx8: {brand: NVIDIA, generation: hopper, gpu_count: 8, vram_gb: 640}
  bx8: {brand: NVIDIA, generation: blackwell, gpu_count: 8, vram_gb: 1440}
  gbx4: {brand: NVIDIA, generation: blackwell, gpu_count: 4, vram_gb: 768}
"""

STRATEGIES = {
    "single_node_tp": "name: single_node_tp\ndeploy_type: single_node\n"
                      "parallel_flag: \"--tensor-parallel-size\"\n",
    "multi_node_tp": "name: multi_node_tp\ndeploy_type: multi_node\n",
    "single_node_tep": "name: single_node_tep\ndeploy_type: single_node\n"
                       "vllm_args:\n  - \"--enable-expert-parallel\"\n"
                       "  - \"--max-num-batched-tokens\"\n  - \"8192\"\n",
}

RECIPE = """\
meta:
  title: Small
  provider: Acme
  tasks:
    - text
model:
  model_id: acme/Small-9B
  min_vllm_version: "0.20.0"
  base_args:
    - "--max-model-len"
    - "8192"
  base_env: {}
variants:
  default:
    precision: bf16
    vram_minimum_gb: 200
compatible_strategies:
  - single_node_tp
"""
PATH = "models/acme/Small-9B.yaml"
MODES = pytest.mark.parametrize("rendered", [True, False], ids=["rendered", "as-written"])


def tree(root: Path, recipe: str) -> Path:
    (root / "strategies").mkdir(parents=True)
    (root / "taxonomy.yaml").write_text(TAXONOMY, "utf-8")
    for name, text in STRATEGIES.items():
        (root / "strategies" / f"{name}.yaml").write_text(text, "utf-8")
    (root / PATH).parent.mkdir(parents=True)
    (root / PATH).write_text(recipe, "utf-8")
    return root


def found(root: Path, rule: str, rendered: bool, path: str = PATH) -> list[Finding]:
    ctx = local_context(root, Settings(rendered=rendered, offline=True))
    result = RunResult()
    data = (root / path).read_bytes()
    rules = [r for r in check_rules() if r.id == rule]
    Checker(ctx, rules, SchemaValidator()).check_recipe(
        path, data, ctx.tree.provenance(path, data), result)
    assert not result.internal_errors, result.internal_errors
    return [f for f in result.all_findings() if f.rule == rule]


def edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


# --------------------------------------------------------------------------- FLAG025

TP_IN_BASE = edit(RECIPE, '    - "8192"\n', '    - "8192"\n    - "--tensor-parallel-size"\n'
                  '    - "4"\n')


@MODES
def test_a_tp_size_in_base_args_is_replaced_by_the_synthesized_one(
        tmp_path: Path, rendered: bool) -> None:
    root = tree(tmp_path, edit(TP_IN_BASE, "  - single_node_tp\n",
                               "  - single_node_tp\n  - multi_node_tp\n"))
    (hit,) = found(root, "FLAG025", rendered)
    assert hit.severity.value == "warning"
    assert (hit.pointer, hit.line) == ("/model/base_args/2",
                                       line_of(TP_IN_BASE, '"--tensor-parallel-size"'))
    # the value the site renders instead, with the configurations that get it (most
    # first), in the one "(on ...)" suffix that PR mode leaves out of its comparison: 8 on
    # one 8-GPU node and on two 4-GPU nodes, 16 on two 8-GPU nodes; one 4-GPU node
    # renders 4, the recipe's own value: no change there
    assert hit.message == (
        "`--tensor-parallel-size 4` of model.base_args is dropped from the command: the site "
        "renders its own `--tensor-parallel-size` after it, from the parallelism it derives "
        "from the strategy and the hardware's gpu_count (on bx8 · default · single_node_tp "
        "and 2 more: `--tensor-parallel-size 8`; on bx8 · default · multi_node_tp ×2 and 1 "
        "more: `--tensor-parallel-size 16`)"), hit.message
    assert normalise_message(hit.message).endswith("hardware's gpu_count")
    assert hit.hint is not None and "variants.<name>.tp" in hit.hint
    assert not found(root, "FLAG012", rendered)  # not the recipe's own later layer


@MODES
def test_a_tp_size_pinned_where_the_site_reads_it_is_no_finding(
        tmp_path: Path, rendered: bool) -> None:
    root = tree(tmp_path, edit(RECIPE, "    vram_minimum_gb: 200\n",
                               "    vram_minimum_gb: 200\n    tp: 4\n"))
    assert found(root, "FLAG025", rendered) == []


@MODES
def test_only_configurations_where_the_size_changes_are_named(tmp_path: Path,
                                                             rendered: bool) -> None:
    # single_node_tp renders the GPU count here (the weights need the whole node): 8 on
    # the 8-GPU profiles, as the recipe says; only the 4-GPU profile renders another size
    same = edit(TP_IN_BASE, '    - "4"\n', '    - "8"\n')
    (hit,) = found(tree(tmp_path, same), "FLAG025", rendered)
    assert hit.message.endswith(
        "(on gbx4 · default · single_node_tp: `--tensor-parallel-size 4`)"), hit.message


@MODES
def test_a_strategy_value_that_replaces_the_recipes_names_its_line(
        tmp_path: Path, rendered: bool) -> None:
    text = edit(RECIPE, '    - "8192"\n', '    - "8192"\n    - "--max-num-batched-tokens"\n'
                '    - "4096"\n')
    root = tree(tmp_path, edit(text, "  - single_node_tp\n",
                               "  - single_node_tp\n  - single_node_tep\n"))
    (hit,) = found(root, "FLAG025", rendered)
    assert hit.line == line_of(text, '"--max-num-batched-tokens"')
    assert "`--max-num-batched-tokens 4096` of model.base_args is dropped" in hit.message
    assert "renders its own `--max-num-batched-tokens` after it, from strategies/"\
        "single_node_tep.yaml vllm_args (on bx8 · default · single_node_tep and 2 more: " \
        "`--max-num-batched-tokens 8192`)" in hit.message, hit.message
    (rel,) = hit.related  # the strategy's value, line 6 of its file
    assert (rel.path, rel.line) == ("strategies/single_node_tep.yaml", 6)
    assert hit.hint is not None and "strategy_overrides.single_node_tep" in hit.hint


# --------------------------------------------------------------------------- FLAG012


@MODES
def test_an_exact_gpu_strategy_override_overrides_its_generation_override(
        tmp_path: Path, rendered: bool) -> None:
    """Both are strategy hardware overrides; the site adds the exact-GPU one after the
    generation one, so it wins on hx8."""
    text = RECIPE + ("strategy_overrides:\n  single_node_tp:\n    hardware_overrides:\n"
                     "      hopper:\n        extra_args: [\"--max-num-seqs\", \"64\"]\n"
                     "      hx8:\n        extra_args: [\"--max-num-seqs\", \"32\"]\n")
    root = tree(tmp_path, text)
    (hit,) = found(root, "FLAG012", rendered)
    assert hit.pointer == "/strategy_overrides/single_node_tp/hardware_overrides/hx8/extra_args/0"
    assert hit.message == (
        "`--max-num-seqs` in strategy_overrides.single_node_tp.hardware_overrides.hx8."
        "extra_args overrides `--max-num-seqs 64` of strategy_overrides.single_node_tp."
        "hardware_overrides.hopper.extra_args (on hx8 · default · single_node_tp)")
    assert hit.related[0].line == line_of(text, '"64"')


@MODES
def test_an_override_the_site_never_renders_is_no_finding(tmp_path: Path,
                                                          rendered: bool) -> None:
    """A feature's hardware override keyed by a profile id: the site picks a feature's
    override by generation or brand only, so it reaches no command."""
    text = RECIPE + ("features:\n  tuning:\n    args: [\"--max-num-seqs\", \"128\"]\n"
                     "    hardware_overrides:\n      hx8:\n"
                     "        args: [\"--max-model-len\", \"4096\"]\n")
    root = tree(tmp_path, text)
    assert found(root, "FLAG012", rendered) == []
    # keyed by the generation, it renders after the base args and overrides them
    root2 = tree(tmp_path / "gen", edit(text, "      hx8:\n", "      hopper:\n"))
    (hit,) = found(root2, "FLAG012", rendered)
    assert hit.message.startswith("`--max-model-len` in features.tuning.hardware_overrides."
                                  "hopper.args overrides `--max-model-len 8192` of "
                                  "model.base_args (on hx8 · default · single_node_tp"), \
        hit.message


@MODES
def test_a_recipe_value_over_a_strategy_files_is_no_override_finding(
        tmp_path: Path, rendered: bool) -> None:
    """The recipe setting what a strategy file sets is what strategy overrides are for:
    neither FLAG012 (the dropped value is not the recipe's) nor FLAG025."""
    text = RECIPE.replace("  - single_node_tp\n", "  - single_node_tep\n") + (
        "strategy_overrides:\n  single_node_tep:\n"
        "    extra_args: [\"--max-num-batched-tokens\", \"2048\"]\n")
    root = tree(tmp_path, text)
    assert found(root, "FLAG012", rendered) == []
    assert found(root, "FLAG025", rendered) == []


@MODES
def test_a_vllm_omni_override_names_its_configurations(tmp_path: Path, rendered: bool) -> None:
    """The vLLM-Omni command is de-duplicated by the site as well, and traced the same."""
    text = edit(edit(RECIPE, "    - text\n", "    - omni\n"), '    - "8192"\n',
                '    - "8192"\n    - "--num-gpus"\n    - "4"\n')
    text = edit(text, "    vram_minimum_gb: 200\n", "    vram_minimum_gb: 200\n"
                "    hardware_overrides:\n      hopper:\n"
                "        extra_args: [\"--num-gpus\", \"8\"]\n")
    (hit,) = found(tree(tmp_path, text), "FLAG012", rendered)
    assert hit.message == ("`--num-gpus` in variants.default.hardware_overrides.hopper."
                           "extra_args overrides `--num-gpus 4` of model.base_args "
                           "(on hx8 · default · omni)")
    assert hit.related[0].line == line_of(text, '"--num-gpus"')


DOTTED_STRATEGY = ("name: single_node_tep\ndeploy_type: single_node\n"
                   "vllm_args:\n  - \"--enable-expert-parallel\"\n"
                   "  - \"-cc.pass_config.fuse_allreduce_rms=False\"\n")


def test_a_strategy_override_setting_a_strategys_flag_again_is_the_override_finding(
        tmp_path: Path) -> None:
    """The strategy file sets ``-cc.pass_config.x``, the recipe's override for that
    strategy ``--compilation-config``: spelled apart, both stay in the command and vLLM
    takes the last, which is what the override is written for: FLAG012's info, not
    FLAG011's error (a repeat the rendered command shows)."""
    text = RECIPE.replace("  - single_node_tp\n", "  - single_node_tep\n") + (
        "strategy_overrides:\n  single_node_tep:\n"
        "    extra_args: [\"--compilation-config\", '{\"mode\": 0}']\n")
    root = tree(tmp_path, text)
    (root / "strategies" / "single_node_tep.yaml").write_text(DOTTED_STRATEGY, "utf-8")
    assert found(root, "FLAG011", True) == []
    (hit,) = found(root, "FLAG012", True)
    assert hit.pointer == "/strategy_overrides/single_node_tep/extra_args/0"
    assert hit.severity.value == "info"
    assert "overrides `-cc.pass_config.fuse_allreduce_rms=False` of strategy:single_node_tep" \
           in hit.message, hit.message


def test_a_variant_repeating_a_base_flag_spelled_apart_stays_flag011(tmp_path: Path) -> None:
    """Only the override lists are written to win: a variant's list repeating a base
    argument in another spelling is still FLAG011."""
    text = edit(RECIPE, "    vram_minimum_gb: 200\n", "    vram_minimum_gb: 200\n"
                "    extra_args: [\"--max-model-len=4096\"]\n")
    root = tree(tmp_path, text)
    assert len(found(root, "FLAG011", True)) == 1
    assert found(root, "FLAG012", True) == []
