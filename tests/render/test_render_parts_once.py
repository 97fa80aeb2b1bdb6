"""What :func:`render_all` computes per distinct part of its configurations, not per
configuration: the strategies offered on a hardware once per hardware (the planning and
the ``not-offered`` problems share them), the picker of a variant once, and each part of
a configuration's problems once per distinct value of what it reads. Every rendering
stays what rendering its configuration alone gives (``test_render_sharing``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from validator.context import Context
from validator.load import load_yaml
from validator.render import configuration, gates, site
from validator.render.configuration import Configuration, document_data
from validator.render.documents import Documents
from validator.render.problems import configuration_problems, configuration_problems_once
from validator.render.renderer import render_all, site_strategies

RECIPES = ("models/acme/Tiny-1B.yaml", "models/acme/Broken-1B.yaml")


def _counted(monkeypatch: pytest.MonkeyPatch, module: Any, name: str,
             calls: Counter[Any]) -> None:
    """Count the calls of ``module.name`` (the real function still runs) by its third
    argument's value where it has one (the hardware id)."""
    real = getattr(module, name)

    def counting(*args: Any) -> Any:
        calls[name, args[2] if name == "compatible_strategies" else None] += 1
        return real(*args)

    monkeypatch.setattr(module, name, counting)


@pytest.mark.parametrize("path", RECIPES)
def test_render_all_finds_the_strategies_offered_on_each_hardware_once(
        tree: Path, ctx: Context, path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = load_yaml((tree / path).read_bytes(), path)
    calls: Counter[Any] = Counter()
    _counted(monkeypatch, site, "compatible_strategies", calls)
    batch = render_all(doc, ctx.taxonomy, site_strategies(ctx))
    assert len({r.config.variant for r in batch}) >= 1 and len(batch) >= 10
    assert calls and set(calls.values()) == {1}, calls


@pytest.mark.parametrize("path", RECIPES)
def test_render_all_lists_the_hardware_of_each_variant_once(
        tree: Path, ctx: Context, path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = load_yaml((tree / path).read_bytes(), path)
    calls: Counter[Any] = Counter()
    _counted(monkeypatch, gates, "picker_hardware", calls)
    _counted(monkeypatch, gates, "pick_default_hardware", calls)
    batch = render_all(doc, ctx.taxonomy, site_strategies(ctx))
    variants = len(doc.data["variants"])
    assert calls == {("picker_hardware", None): variants,
                     ("pick_default_hardware", None): variants}, calls
    assert all(r.compatible_hardware for r in batch if r.ok)


def test_each_configuration_gets_the_problems_of_its_own_parts(tree: Path,
                                                               ctx: Context) -> None:
    """Unknown hardware, variant, strategy, KV offload and features, a strategy not
    offered, and ids of other types than strings: the problems made once per part, in a
    memo shared by all, are those each configuration gets alone, in the same order."""
    path = "models/acme/Tiny-1B.yaml"
    data = load_yaml((tree / path).read_bytes(), path).data
    tax = document_data(ctx.taxonomy)
    strat = {k: document_data(v) for k, v in site_strategies(ctx).items()}
    docs = Documents(path, "taxonomy.yaml", {})
    configs = [Configuration("hx8"), Configuration("nope"), Configuration("hx8", "nope"),
               Configuration("hx8", strategy="nope"), Configuration("box1",
                                                                    strategy="multi_node_tp"),
               Configuration("hx8", features=("nope", "reasoning")),
               Configuration("hx8", kv_offload="nope"),
               Configuration("hx8", strategy=1),  # type: ignore[arg-type]
               Configuration("hx8", strategy=True),  # type: ignore[arg-type]
               Configuration("nope", "nope", "nope", ("nope",), kv_offload="nope")]
    memo: dict[Any, Any] = {}
    shared = [configuration_problems_once(data, tax, strat, c, docs, memo)
              for c in configs * 2]
    alone = [tuple(configuration_problems(data, tax, strat, c, docs)) for c in configs * 2]
    assert shared == alone
    codes = {p.code for found in alone for p in found}
    assert codes >= {"unknown-hardware", "unknown-variant", "unknown-strategy",
                     "not-offered", "unknown-kv-offload", "unknown-feature"}, codes


def test_feature_variants_are_made_once_per_modal_feature_list() -> None:
    """The configurations with every feature on, and each mode of each modal feature, of
    one planned configuration: the same as the planned one but for the features."""
    data: dict[str, Any] = {"features": {"a": {}, "b": {"modes": {"x": {}, "y": {}}}}}
    modal: list[Any] = []
    base = Configuration("hx8", "v", "multi_node_tp", ("a",), 2, None, (), "kv")
    made = configuration._feature_variants(data, base, ("a", "b"), modal)
    assert made == [Configuration("hx8", "v", "multi_node_tp", ("a", "b"), 2, None, m, "kv")
                    for m in ((), (("b", "x"),), (("b", "y"),))]
    assert modal == [(), (("b", "x"),), (("b", "y"),)]
