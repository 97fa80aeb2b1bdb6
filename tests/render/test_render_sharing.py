"""What :func:`render_all` shares between the configurations of one recipe (composers,
argument layers, environments, tokens) never changes a rendering: every rendering made
through the shared memo equals the one a fresh :func:`render` makes alone, also where two
configurations differ only in a value the shared parts must not confuse (the KV offload
that moves the followers' address, the node count, a feature mode, 1 vs "1")."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from validator.context import Context
from validator.load import LoadedDocument, load_yaml
from validator.render.renderer import Configuration, Rendered, render, render_all, site_strategies
from validator.rules.metadata import READS_EVERYTHING

RECIPES = ("models/acme/Tiny-1B.yaml", "models/acme/Broken-1B.yaml")


def _doc(tree: Path, path: str) -> LoadedDocument:
    return load_yaml((tree / path).read_bytes(), path)


def _fresh(doc: LoadedDocument, ctx: Context, config: Configuration) -> Rendered:
    return render(doc, ctx.taxonomy, site_strategies(ctx), config)


def _shared(doc: LoadedDocument, ctx: Context, configs: list[Configuration]) -> list[Rendered]:
    memo: dict[Any, Any] = {}
    return [render(doc, ctx.taxonomy, site_strategies(ctx), c, memo=memo) for c in configs]


@pytest.mark.parametrize("path", RECIPES)
def test_render_all_equals_a_fresh_rendering_of_each_configuration(
        tree: Path, ctx: Context, path: str) -> None:
    doc = _doc(tree, path)
    batch = render_all(doc, ctx.taxonomy, site_strategies(ctx))
    assert len(batch) >= 10
    kinds = {r.deploy_type for r in batch}
    assert {"single_node", "multi_node", "kv_store_lb"} <= kinds or path.endswith("Broken-1B.yaml")
    for rendered in batch:
        # repr: 1, 1.0 and True compare equal but render differently
        assert repr(rendered) == repr(_fresh(doc, ctx, rendered.config)), rendered.config


def test_configurations_that_differ_in_one_value_do_not_share_a_rendering(
        tree: Path, ctx: Context) -> None:
    doc = _doc(tree, RECIPES[0])
    batch = render_all(doc, ctx.taxonomy, site_strategies(ctx))
    multi = next(r.config for r in batch if r.deploy_type == "multi_node")
    kv = next(r.config for r in batch if r.deploy_type == "kv_store_lb")
    modal = next(r.config for r in batch if r.config.feature_modes)
    variants = [
        multi, replace(multi, nodes=multi.nodes + 1), replace(multi, kv_offload=kv.kv_offload),
        replace(multi, kv_offload=kv.kv_offload, kv_instances=1),
        replace(multi, kv_offload=kv.kv_offload, kv_instances=3), kv,
        replace(kv, kv_instances=1), modal, replace(modal, feature_modes=()),
        replace(modal, features=()), replace(multi, advanced_args=("--seed", "1")),
        replace(multi, advanced_args=("--seed", 1)),  # type: ignore[arg-type]
        replace(multi, nodes=float(multi.nodes)),  # type: ignore[arg-type]
    ]
    for order in (variants, variants[::-1]):
        shared = _shared(doc, ctx, order)
        for config, rendered in zip(order, shared, strict=True):
            assert repr(rendered) == repr(_fresh(doc, ctx, config)), config
    # the address the followers use moves with the KV composition: not one shared head
    texts = {tuple(p.argv) for r in _shared(doc, ctx, variants[:5]) for p in r.processes}
    assert any("$VLLM_INSTANCE_1" in argv for argv in texts)
    assert any("$HEAD_IP" in argv for argv in texts)


@pytest.mark.parametrize("path", RECIPES)
def test_render_all_leaves_no_reference_cycle(tree: Path, ctx: Context, path: str) -> None:
    """What the renderings of a recipe shared is freed with the last of them, not at a
    later full garbage collection (a models/ run would hold several recipes' worth)."""
    import gc

    from validator.render.layers import Composer

    doc = _doc(tree, path)
    strategies = site_strategies(ctx)
    gc.collect()
    gc.disable()
    try:
        batch = render_all(doc, ctx.taxonomy, strategies)
        assert batch
        one = render(doc, ctx.taxonomy, strategies, batch[-1].config)  # its own memo
        assert repr(one) == repr(batch[-1])
        del batch, one
        left = [o for o in gc.get_objects() if type(o) is Composer]
    finally:
        gc.enable()
    assert left == []


def test_contexts_sharing_a_rendering_store_render_a_recipe_once(
        tree: Path, ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two contexts of the same taxonomy and strategies (the history audit's, in two
    release windows) given one store render a recipe once; a context with a store of its
    own renders it again."""
    from collections import OrderedDict

    from validator.render import cache as render_cache
    from validator.render.cache import rendered_configurations, share_renderings

    calls: list[str] = []
    real = render_all  # the function validator.render.cache calls

    def counted(doc: LoadedDocument, *args: Any, **kwargs: Any) -> list[Rendered]:
        calls.append(doc.path)
        return real(doc, *args, **kwargs)

    monkeypatch.setattr(render_cache, "render_all", counted)
    doc = _doc(tree, RECIPES[0])
    store: OrderedDict[str, list[Rendered]] = OrderedDict()
    first, second, alone = (ctx.limited_to(READS_EVERYTHING) for _ in range(3))
    share_renderings(first, store)
    share_renderings(second, store)
    assert rendered_configurations(doc, first) is rendered_configurations(doc, second)
    assert calls == [doc.path]
    [kept] = store.values()  # the one recipe's renderings, under the key of what they read
    assert repr(rendered_configurations(doc, alone)) == repr(kept)
    assert calls == [doc.path, doc.path]
