"""REF rules: each fault injected into the real GLM-5.2 recipe of the corpus at ``main``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once

GLM = "models/zai-org/GLM-5.2.yaml"


def ref_findings(root: Path, path: str = GLM) -> list[tuple[str, str, int]]:
    return [(f.rule, f.pointer, f.line) for f in check_tree(root, path) if f.rule.startswith("REF")]


def inject(root: Path, old: str, new: str, path: str = GLM) -> str:
    return replace_once(root / path, old, new)


def test_unmodified_recipe_has_no_reference_findings(corpus_copy: Path) -> None:
    assert ref_findings(corpus_copy) == []


CASES = [
    # (rule, old, new, pointer, line needle)
    ("REF001", 'model_id: "zai-org/GLM-5.2"', 'model_id: "zai-org/GLM-5.2-Base"', "/model/model_id",
     'model_id: "zai-org/GLM-5.2-Base"'),
    ("REF002", "  - pd_cluster\n", "  - pd_clusters\n", "/compatible_strategies/6",
     "  - pd_clusters"),
    ("REF003", "strategy_overrides: {}",
     "strategy_overrides:\n  single_node_tpp:\n    extra_args: []",
     "/strategy_overrides/single_node_tpp", "single_node_tpp:"),
    ("REF004", "    mi355x: verified\n", "    mi355x: verified\n    h20: verified\n",
     "/meta/hardware/h20", "h20: verified"),
    ("REF005", "opt_in_features:\n  - spec_decoding", "opt_in_features:\n  - spec_decode",
     "/opt_in_features/0", "  - spec_decode"),
    ("REF006", "    default_mode: mtp\n", "    default_mode: mtp\n    args: [\"--foo\"]\n",
     "/features/spec_decoding/args", 'args: ["--foo"]'),
    ("REF007", "opt_in_features:", "  empty_feature:\n    modes: {}\n\nopt_in_features:",
     "/features/empty_feature/modes", "modes: {}"),
    ("REF008", "default_mode: mtp", "default_mode: eagle", "/features/spec_decoding/default_mode",
     "default_mode: eagle"),
    ("REF009", "          - mxfp4\n", "          - mxfp4\n          - fp4\n",
     "/features/spec_decoding/modes/mtp/variants/4", "          - fp4"),
    ("REF010", "          - bf16\n", "", "/features/spec_decoding/modes", "    modes:"),
    ("REF011", "    precision: bf16\n",
     "    precision: bf16\n    default_modes:\n      tool_calling: x\n",
     "/variants/bf16/default_modes/tool_calling", "      tool_calling: x"),
    ("REF012", "    precision: bf16\n",
     "    precision: bf16\n    default_modes:\n      spec_decoding: dspark\n",
     "/variants/bf16/default_modes/spec_decoding", "      spec_decoding: dspark"),
    ("REF013", '    - "zai-org/GLM-5.1"', '    - "zai-org/GLM-5.15"', "/meta/related_recipes/1",
     '"zai-org/GLM-5.15"'),
    ("REF005", "kv_offload_support:", "hardware_opt_in_features:\n  b200:\n    - spec_decode"
     "\n\nkv_offload_support:", "/hardware_opt_in_features/b200/0", "    - spec_decode"),
    ("REF031", "kv_offload_support:", "default_strategy: multi_node_tpp\n\nkv_offload_support:",
     "/default_strategy", "default_strategy: multi_node_tpp"),
    ("REF031", "kv_offload_support:", "default_strategy: multi_node_tp_dp\n\n"
     "kv_offload_support:", "/default_strategy", "default_strategy: multi_node_tp_dp"),
    ("REF032", "  offloading_fs: verified\n", "  offloading_fs: verified\n  offloading_gpu: "
     "verified\n", "/kv_offload_support/offloading_gpu", "offloading_gpu: verified"),
    ("REF036", "    default_mode: mtp\n", "    default_mode: mtp\n    strategies: [single_node_tp, "
     "multi_node_tpp]\n", "/features/spec_decoding/strategies/1",
     "strategies: [single_node_tp, multi_node_tpp]"),
    ("REF037", "    precision: fp8\n    vram_minimum_gb: 893\n", "    precision: fp8\n    "
     "vram_minimum_gb: 893\n    tp:\n      hopper: 8\n      h200: 16\n",
     "/variants/default/tp/h200", "      h200: 16"),
    ("REF038", "    default_mode: mtp\n", "    default_mode: mtp\n    strategies: "
     "[single_node_dep, multi_node_tp_dp]\n", "/features/spec_decoding/strategies",
     "strategies: [single_node_dep, multi_node_tp_dp]"),
    ("REF035", "kv_offload_support:", "kv_cache_strategy_hardware:\n  kv_store_distributed_"
     "mooncak:\n    mi300x: unsupported\n\nkv_offload_support:",
     "/kv_cache_strategy_hardware/kv_store_distributed_mooncak", "mooncak:"),
]


@pytest.mark.parametrize(("rule", "old", "new", "pointer", "needle"), CASES,
                         ids=[f"{c[0]}-{c[3]}" for c in CASES])
def test_injected_fault_is_found_at_its_line(corpus_copy: Path, rule: str, old: str, new: str,
                                             pointer: str, needle: str) -> None:
    text = inject(corpus_copy, old, new)
    expected_line = line_of(text, needle)
    found = ref_findings(corpus_copy)
    assert (rule, pointer, expected_line) in found, found
    assert {r for r, _, _ in found} == {rule}, found


def test_model_id_case_mismatch_is_a_warning(corpus_repo: Path) -> None:
    # upstream defect at corpus main: the Google/ folder holds lower-case google/ model ids;
    # the Hub resolves ids case-insensitively, so the page still serves the right model
    found = check_tree(corpus_repo, "models/Google/gemma-4-E2B-it.yaml")
    assert not [f for f in found if f.rule == "REF001"]
    ref001 = [f for f in found if f.rule == "REF019"]
    assert len(ref001) == 1 and "only in letter case" in ref001[0].message
    assert ref001[0].severity.value == "warning"
    text = (corpus_repo / "models/Google/gemma-4-E2B-it.yaml").read_text()
    assert ref001[0].line == line_of(text, "model_id:")


@pytest.mark.parametrize("added", [
    "default_strategy: multi_node_tp\n",
    "default_strategy: multi_node_tp_dp\nstrategy_hardware:\n  multi_node_tp_dp:\n"
    "    b200: supported\n",
])
def test_a_default_strategy_the_recipe_offers_is_no_finding(corpus_copy: Path,
                                                             added: str) -> None:
    """Offered by ``compatible_strategies``, or on some hardware by ``strategy_hardware``
    (the site recommends it there)."""
    inject(corpus_copy, "kv_offload_support:", added + "\nkv_offload_support:")
    assert not [f for f in ref_findings(corpus_copy) if f[0] == "REF031"]


def test_a_revision_without_kv_store_deployments_is_not_judged_by_ref035(
        examples_tree: Path) -> None:
    """Our example tree has no ``kv_store/`` (as upstream revisions before it): a recipe
    naming the deployments of a later revision gets no REF035 ("none exist" says nothing
    the missing folder does not)."""
    replace_once(examples_tree / "models/example-org/Example-Chat-8B.yaml",
                 "\nvariants:", "\nkv_cache_strategy_hardware:\n"
                 "  kv_store_distributed_mooncake:\n    h100: unsupported\nvariants:")
    found = check_tree(examples_tree, "models/example-org/Example-Chat-8B.yaml")
    assert not [f for f in found if f.rule == "REF035"]


@pytest.mark.parametrize("tp", ["    tp: 16\n", "    tp:\n      hopper: 16\n"])
def test_a_tp_size_for_several_profiles_is_not_judged_by_ref037(corpus_copy: Path,
                                                                 tp: str) -> None:
    """A bare number or a generation entry is one size for profiles of several GPU counts:
    the site fitting it to each node is its documented behaviour."""
    inject(corpus_copy, "    precision: fp8\n    vram_minimum_gb: 893\n",
           "    precision: fp8\n    vram_minimum_gb: 893\n" + tp)
    assert not [f for f in ref_findings(corpus_copy) if f[0] == "REF037"]


def test_a_feature_limited_to_one_offered_strategy_is_no_ref038(corpus_copy: Path) -> None:
    inject(corpus_copy, "    default_mode: mtp\n",
           "    default_mode: mtp\n    strategies: [single_node_dep, single_node_tep]\n")
    assert not [f for f in ref_findings(corpus_copy) if f[0] == "REF038"]
