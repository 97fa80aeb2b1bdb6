"""The cu129 renderings a record page offers beside the cu130 ones
(:func:`~validator.evidence.site.renderings.cu129_renderings`) are rendered sharing the
renderer's work between configurations (one memo, as ``render_all``), yet each is the
same to the last token pointer as ``render(..., cuda="cu129")`` of its configuration
alone. Sampled recipes in the suite; every corpus recipe with ``-m full_sweep``."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.context import Context, local_context
from validator.evidence.site.renderings import cu129_renderings
from validator.load import load_yaml
from validator.render.offered import offered_renderings
from validator.render.renderer import Rendered, render, site_strategies

pytestmark = [pytest.mark.corpus]

#: Multi-node, disaggregated and kv-store strategies on every brand (GLM-5.2), a CUDA
#: map of both builds (MiniMax-M3), plain tags on many NVIDIA hardware (DeepSeek-V3.2).
SAMPLED = ("models/zai-org/GLM-5.2.yaml", "models/MiniMaxAI/MiniMax-M3.yaml",
           "models/deepseek-ai/DeepSeek-V3.2.yaml")


def _cu129(tree: Path, ctx: Context, path: str) -> tuple[dict[int, Rendered], list[Rendered]]:
    """The cheap cu129 renderings of ``path`` and each offered configuration's full
    ``render(..., cuda="cu129")`` alone (by the same index)."""
    doc = load_yaml((tree / path).read_bytes(), path)
    strategies = site_strategies(ctx)
    offered = offered_renderings(doc, ctx)
    cheap = cu129_renderings(doc, ctx, strategies, offered)
    alone = [render(doc, ctx.taxonomy, strategies, offered[i].rendered.config, cuda="cu129")
             for i in cheap]
    return cheap, alone


def _assert_same_as_alone(tree: Path, ctx: Context, path: str) -> int:
    cheap, alone = _cu129(tree, ctx, path)
    for (i, rendered), full in zip(cheap.items(), alone, strict=True):
        # repr: 1, 1.0 and True compare equal but render differently
        assert repr(rendered) == repr(full), (path, i, rendered.config)
    return len(cheap)


@pytest.mark.parametrize("path", SAMPLED)
def test_sampled_cu129_renderings_equal_each_rendered_alone(corpus_main_tree: Path,
                                                            path: str) -> None:
    ctx = local_context(corpus_main_tree)
    assert _assert_same_as_alone(corpus_main_tree, ctx, path) >= 2


def test_cu129_renderings_of_a_recipe_share_site_renderings_across_hardware(
        corpus_main_tree: Path) -> None:
    """Configurations on hardware whose reads agree reuse one site rendering (the same
    processes object), as ``render_all``'s cu130 renderings do; rendered alone each makes
    its own."""
    ctx = local_context(corpus_main_tree)
    cheap, alone = _cu129(corpus_main_tree, ctx, "models/deepseek-ai/DeepSeek-V3.2.yaml")
    assert len({id(r.processes) for r in cheap.values()}) < len(cheap)
    assert len({id(r.processes) for r in alone}) == len(alone)


@pytest.mark.full_sweep
def test_every_corpus_cu129_rendering_equals_it_rendered_alone(corpus_main_tree: Path) -> None:
    ctx = local_context(corpus_main_tree)
    paths = sorted(str(p.relative_to(corpus_main_tree))
                   for p in (corpus_main_tree / "models").rglob("*.yaml"))
    assert sum(_assert_same_as_alone(corpus_main_tree, ctx, p) for p in paths) > 5_000
