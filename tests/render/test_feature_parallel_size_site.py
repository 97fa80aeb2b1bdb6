"""A feature's ``--tensor-parallel-size`` under the site's own JavaScript: the site keeps
the feature's size and drops the one it derives from the strategy and the hardware, on
one node and on several. Our renderer renders the same commands, and its override trace
(what ``FLAG029`` reads) names that very drop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.render.test_differential import _config, run_oracle
from tests.rules.flag.test_feature_parallel_size import FEATURE_TP
from tests.rules.flag.test_flag_overrides import PATH, edit, found, tree
from validator.context import local_context
from validator.load import load_yaml
from validator.render.renderer import render, site_strategies

CASES = [("hx8", "single_node_tp", 1, "8"), ("hx8", "multi_node_tp", 2, "16"),
         ("gbx4", "single_node_tp", 1, "4")]


def test_the_site_keeps_a_features_tp_size_and_drops_its_own(site_dir: Path,
                                                             tmp_path: Path) -> None:
    root = tree(tmp_path, edit(FEATURE_TP, "  - single_node_tp\n",
                               "  - single_node_tp\n  - multi_node_tp\n"))
    cases: list[dict[str, Any]] = [
        {"path": PATH, "variant": "default", "strategy": strategy, "hardware": hw,
         "features": ["tool_calling"], "nodes": nodes, "pd_nodes": None, "feature_modes": {},
         "kv_offload": None, "kv_instances": None, "advanced": []}
        for hw, strategy, nodes, _ in CASES]
    want = run_oracle(site_dir, root, cases)
    ctx = local_context(root)
    doc = load_yaml((root / PATH).read_bytes(), PATH)
    for case, result, (*_, own) in zip(cases, want, CASES, strict=True):
        site = result["ok"]
        command = site.get("headCommand") or site["command"]
        words = command.split()
        sizes = [words[i + 1] for i, w in enumerate(words) if w == "--tensor-parallel-size"]
        assert sizes == ["2"], command  # the feature's; the site's own `own` is dropped
        ours = render(doc, ctx.taxonomy, site_strategies(ctx), _config(case))
        assert ours.processes[0].command == command
        drops = {(ov.dropped.layer, ov.dropped_value.value if ov.dropped_value else None,
                  ov.winner.pointer) for ov in ours.overrides
                 if ov.dropped.value == "--tensor-parallel-size"}  # per process
        assert drops == {(f"strategy:{case['strategy']}", own,
                          "/features/tool_calling/args/3")}, drops
    (hit,) = found(root, "FLAG029", True)
    assert hit.pointer == "/features/tool_calling/args/3"
