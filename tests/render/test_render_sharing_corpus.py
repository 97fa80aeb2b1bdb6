"""On corpus ``main``, what :func:`render_all` shares between configurations (a site
rendering reused for another hardware where every read it made of its hardware gives the
same value there, the memoised composers, layers, feature gates and not-offered
problems) never changes a rendering: each configuration rendered alone, with nothing
shared, is the same to the last token pointer. Sampled recipes in the suite; every recipe
with ``-m full_sweep``."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.context import Context, local_context
from validator.load import load_yaml
from validator.render.renderer import render, render_all, site_strategies

pytestmark = [pytest.mark.corpus]

#: Recipes whose configurations share the most renderings across hardware (GLM-5.2:
#: multi-node and disaggregated strategies on every brand), and one of each other shape.
SAMPLED = ("models/zai-org/GLM-5.2.yaml", "models/deepseek-ai/DeepSeek-V3.2.yaml",
           "models/Qwen/Qwen3-Next-80B-A3B-Instruct.yaml",
           "models/inclusionAI/Ming-omni-tts-0.5B.yaml")


def _recipes(tree: Path) -> list[str]:
    return sorted(str(p.relative_to(tree)) for p in (tree / "models").rglob("*.yaml"))


def _shared_equals_alone(tree: Path, ctx: Context, path: str) -> int:
    """How many configurations of ``path`` were compared (each one asserted equal)."""
    doc = load_yaml((tree / path).read_bytes(), path)
    strategies = site_strategies(ctx)
    batch = render_all(doc, ctx.taxonomy, strategies)
    for rendered in batch:
        if not rendered.config.hardware:
            continue  # a variant the site cannot plan: no configuration to render alone
        alone = render(doc, ctx.taxonomy, strategies, rendered.config)
        # repr: 1, 1.0 and True compare equal but render differently
        assert repr(rendered) == repr(alone), (path, rendered.config)
    return len(batch)


@pytest.mark.parametrize("path", SAMPLED)
def test_sampled_corpus_recipes_render_the_same_shared_and_alone(corpus_main_tree: Path,
                                                                 path: str) -> None:
    ctx = local_context(corpus_main_tree)
    assert (corpus_main_tree / path).is_file(), path
    assert _shared_equals_alone(corpus_main_tree, ctx, path) >= 2


@pytest.mark.full_sweep
def test_every_corpus_configuration_renders_the_same_shared_and_alone(
        corpus_main_tree: Path) -> None:
    ctx = local_context(corpus_main_tree)
    compared = sum(_shared_equals_alone(corpus_main_tree, ctx, path)
                   for path in _recipes(corpus_main_tree))
    assert compared > 25_000
