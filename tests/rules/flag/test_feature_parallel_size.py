"""``FLAG029``: a feature's argument replaces a parallel size the site derives from the
strategy and the hardware (features render after the strategy, and the site's last-wins
de-duplication keeps the feature's). On the small tree of ``test_flag_overrides``; what
the site's own JavaScript renders for the same tree is pinned by
``tests/render/test_feature_parallel_size_site.py``."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import line_of
from tests.rules.flag.test_flag_overrides import MODES, RECIPE, edit, found, tree

FEATURE_TP = RECIPE + ("features:\n  tool_calling:\n"
                       "    args: [\"--enable-auto-tool-choice\", \"--tool-call-parser\", "
                       "\"hermes\",\n           \"--tensor-parallel-size\", \"2\"]\n")

TP_PP = ("name: multi_node_tp_pp\ndeploy_type: multi_node\n"
         "parallel_flag: \"--tensor-parallel-size\"\nparallelism: tp_pp\n")


@MODES
def test_a_feature_tp_size_replaces_the_one_the_site_derives(tmp_path: Path,
                                                             rendered: bool) -> None:
    text = edit(FEATURE_TP, "  - single_node_tp\n", "  - single_node_tp\n  - multi_node_tp\n")
    root = tree(tmp_path, text)
    (hit,) = found(root, "FLAG029", rendered)
    assert hit.severity.value == "warning"
    # at the feature's flag, naming the sizes the site would have rendered (8 on one
    # 8-GPU node and on two 4-GPU nodes, 16 on two 8-GPU nodes, 4 on one 4-GPU node)
    assert (hit.pointer, hit.line) == ("/features/tool_calling/args/3",
                                       line_of(text, '"--tensor-parallel-size"'))
    assert hit.message == (
        "`--tensor-parallel-size 2` of features.tool_calling.args replaces the "
        "`--tensor-parallel-size` the site derives from the strategy and the hardware's "
        "gpu_count: the site keeps the feature's and drops its own (on bx8 · default · "
        "single_node_tp and 2 more: `--tensor-parallel-size 8`; on bx8 · default · "
        "multi_node_tp ×2 and 1 more: `--tensor-parallel-size 16`; on gbx4 · default · "
        "single_node_tp: `--tensor-parallel-size 4`)"), hit.message
    assert hit.hint is not None and "remove it from features.tool_calling.args" in hit.hint
    assert "variants.<name>.tp" in hit.hint
    # the recipe's own lists are not overridden, and the site keeps the recipe's value
    assert found(root, "FLAG012", rendered) == []
    assert found(root, "FLAG025", rendered) == []


@MODES
def test_the_line_that_makes_the_dropped_size_is_named(tmp_path: Path, rendered: bool) -> None:
    text = edit(FEATURE_TP, "    vram_minimum_gb: 200\n",
                "    vram_minimum_gb: 200\n    tp: 4\n")
    (hit,) = found(tree(tmp_path, text), "FLAG029", rendered)
    assert hit.message.endswith("(on bx8 · default · single_node_tp and 2 more: "
                                "`--tensor-parallel-size 4`)"), hit.message
    (rel,) = hit.related
    assert rel.line == line_of(text, "    tp: 4")
    assert "variants.default.tp makes it `--tensor-parallel-size 4`" in rel.message


@MODES
def test_a_feature_size_equal_to_the_sites_is_no_finding(tmp_path: Path,
                                                         rendered: bool) -> None:
    text = edit(FEATURE_TP, '"--tensor-parallel-size", "2"', '"--tensor-parallel-size", "4"')
    text = edit(text, "    vram_minimum_gb: 200\n", "    vram_minimum_gb: 200\n    tp: 4\n")
    assert found(tree(tmp_path, text), "FLAG029", rendered) == []


@MODES
def test_a_feature_hardware_override_is_reported_too(tmp_path: Path, rendered: bool) -> None:
    text = RECIPE + ("features:\n  tuning:\n    args: [\"--max-num-seqs\", \"128\"]\n"
                     "    hardware_overrides:\n      blackwell:\n"
                     "        args: [\"--tensor-parallel-size\", \"2\"]\n")
    (hit,) = found(tree(tmp_path, text), "FLAG029", rendered)
    assert hit.pointer == "/features/tuning/hardware_overrides/blackwell/args/0"
    assert hit.message.endswith(
        "(on bx8 · default · single_node_tp: `--tensor-parallel-size 8`; "
        "on gbx4 · default · single_node_tp: `--tensor-parallel-size 4`)"), hit.message


@MODES
def test_a_modal_features_size_is_reported_and_the_last_feature_is_what_wins(
        tmp_path: Path, rendered: bool) -> None:
    """Two features set the size: the later one is what the command keeps, so it alone
    replaces the site's (the earlier one is overridden by the later: ``FLAG012``)."""
    text = RECIPE + ("features:\n  tuning:\n    args: [\"--tensor-parallel-size\", \"2\"]\n"
                     "  speed:\n    modes:\n      fast:\n"
                     "        args: [\"--tensor-parallel-size\", \"1\"]\n")
    (hit,) = found(tree(tmp_path, text), "FLAG029", rendered)
    assert hit.pointer == "/features/speed/modes/fast/args/0"
    assert hit.message.startswith("`--tensor-parallel-size 1` of features.speed.modes.fast.args "
                                  "replaces"), hit.message


@MODES
def test_a_feature_pipeline_size_replaces_the_multi_node_one(tmp_path: Path,
                                                             rendered: bool) -> None:
    text = edit(RECIPE, "  - single_node_tp\n", "  - multi_node_tp_pp\n") + (
        "features:\n  deep:\n    args: [\"--pipeline-parallel-size\", \"4\"]\n")
    root = tree(tmp_path, text)
    (root / "strategies" / "multi_node_tp_pp.yaml").write_text(TP_PP, "utf-8")
    (hit,) = found(root, "FLAG029", rendered)
    assert hit.pointer == "/features/deep/args/0"
    assert hit.message.startswith("`--pipeline-parallel-size 4` of features.deep.args "
                                  "replaces the `--pipeline-parallel-size` the site derives")
    assert "`--pipeline-parallel-size 2`" in hit.message, hit.message


@MODES
def test_a_feature_value_over_a_strategy_files_own_args_is_not_this_finding(
        tmp_path: Path, rendered: bool) -> None:
    """Only what the site derives for the parallelism: a strategy file's ``vllm_args``
    value replaced by a feature is no parallel size."""
    text = edit(RECIPE, "  - single_node_tp\n", "  - single_node_tep\n") + (
        "features:\n  batch:\n    args: [\"--max-num-batched-tokens\", \"2048\"]\n")
    assert found(tree(tmp_path, text), "FLAG029", rendered) == []
