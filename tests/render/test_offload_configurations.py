"""The KV-offload configurations the site offers (each taxonomy ``kv_offload`` option its
builder's KV Offload row shows beside a configuration) are in ``render --all`` and the
catalogue's configurations, gated as the site gates them, and render as the site's own
``resolveCommand`` does with the option's key as ``kvOffload``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.render.test_differential import compare, run_oracle
from tests.render.test_render_all_offload import QWEN
from validator.context import local_context
from validator.load import load_yaml
from validator.render.offered import every_offered, offered_renderings
from validator.render.renderer import site_strategies


@pytest.mark.corpus
@pytest.mark.slow
def test_offload_configurations_render_as_the_sites_resolve_command(
        site_dir: Path, corpus_main_tree: Path) -> None:
    ctx = local_context(corpus_main_tree)
    strategies = site_strategies(ctx)
    cases, rendered = [], []
    for path in (QWEN, "models/deepseek-ai/DeepSeek-V4-Pro.yaml"):
        doc = load_yaml((corpus_main_tree / path).read_bytes(), path)
        for r in every_offered(doc, ctx.taxonomy, strategies):
            c = r.config
            if c.kv_option is None:
                continue
            rendered.append((doc, r))
            cases.append({"path": path, "variant": c.variant, "strategy": c.strategy,
                          "hardware": c.hardware, "features": list(c.features),
                          "nodes": c.nodes, "pd_nodes": dict(c.pd_nodes) if c.pd_nodes else None,
                          "feature_modes": dict(c.feature_modes), "kv_offload": c.kv_option,
                          "kv_instances": c.kv_instances, "advanced": [], "docker": True})
    assert len(cases) > 100
    failures = []
    for case, want, (doc, r) in zip(cases, run_oracle(site_dir, corpus_main_tree, cases),
                                    rendered, strict=True):
        failures += [f"{r.config.label()}: {d}" for d in compare(case, want, doc.data, ctx,
                                                                 strategies, r)]
    assert failures == []


def test_the_catalogue_offers_the_kv_offload_configurations(
        examples_tree: Path) -> None:
    taxonomy = examples_tree / "taxonomy.yaml"
    taxonomy.write_text(taxonomy.read_text() + """
kv_offload:
  example_cpu:
    display_name: "CPU"
    args: ["--kv-transfer-config", '{"kv_connector":"ExampleOffload"}']
    env:
      PYTHONHASHSEED: "0"
  closed:
    display_name: "Opt-in only"
    requires_opt_in: true
    args: ["--kv-transfer-config", '{"kv_connector":"Closed"}']
""")
    ctx = local_context(examples_tree)
    path = "models/example-org/Example-Chat-8B.yaml"
    doc = load_yaml((examples_tree / path).read_bytes(), path)
    offered = offered_renderings(doc, ctx)
    options = [o.rendered for o in offered if o.rendered.config.kv_option is not None]
    assert options and {r.config.kv_option for r in options} == {"example_cpu"}
    for r in options:
        assert r.argv[-2:] == ("--kv-transfer-config", '{"kv_connector":"ExampleOffload"}')
        assert r.env["PYTHONHASHSEED"] == "0"
        assert "+ KV offload example_cpu" in r.config.label()
    assert len(offered) == 2 * len(options)  # each configuration once with the option


def test_offload_renderings_stop_at_the_configuration_limit(
        examples_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A taxonomy of many options must not multiply a run: past the limit, one problem."""
    taxonomy = examples_tree / "taxonomy.yaml"
    options = "".join(f"  opt{i}:\n    args: [\"--enforce-eager\"]\n" for i in range(50))
    taxonomy.write_text(taxonomy.read_text() + "\nkv_offload:\n" + options)
    monkeypatch.setattr("validator.render.offload.MAX_CONFIGURATIONS", 5)
    ctx = local_context(examples_tree)
    path = "models/example-org/Example-Chat-8B.yaml"
    doc = load_yaml((examples_tree / path).read_bytes(), path)
    batch = every_offered(doc, ctx.taxonomy, site_strategies(ctx))
    assert len(batch) == 6 and all(r.ok for r in batch[:5])
    (problem,) = batch[5].problems
    assert problem.code == "too-many-configurations" and "the first 5 only" in problem.message
