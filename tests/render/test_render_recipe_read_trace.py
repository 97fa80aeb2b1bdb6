"""Every read a site rendering makes of its recipe lies inside the key under which the
renderings are reused for another text of the recipe (:mod:`validator.render.recipe_reads`:
the text digest, and the read fingerprint of the configuration's variant and strategy).
That key was derived by reading the renderer's code; these tests trace the reads instead:
each configuration's site rendering
(:func:`~validator.render.site_renderings.shared_site_rendering`, whose results the carried
tables keep) is made again from the recipe wrapped so that it records what is read of it
(:mod:`tests.render.recipe_read_trace`), and must equal the rendering ``render_all`` made
of the plain recipe.

The configurations of one variant and strategy share one memo (as ``render_all``'s do):
they have one key, so a layer one of them made and another reused was read under that
key."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.render.recipe_read_trace import ReadLog, recorded, uncovered
from tests.render.tiny_tree import STRATEGIES, write_tree
from validator.context import Context, local_context
from validator.load import LoadedDocument, load_yaml
from validator.render import recipe_reads
from validator.render.configuration import document_data
from validator.render.documents import Documents
from validator.render.omni import is_omni
from validator.render.renderer import Rendered, render_all, site_strategies
from validator.render.site_renderings import shared_site_rendering

TINY = "models/acme/Tiny-1B.yaml"


def _groups(rendered: list[Rendered]) -> dict[tuple[str, str], list[Rendered]]:
    """The renderings that made a site rendering (those the carried tables keep), by
    variant and strategy."""
    out: dict[tuple[str, str], list[Rendered]] = defaultdict(list)
    for r in rendered:
        if r.ok:
            out[repr(r.config.variant), repr(r.config.strategy)].append(r)
    return out


def reads_outside_the_key(doc: LoadedDocument, ctx: Context) -> tuple[int, list[str]]:
    """How many configurations of ``doc`` were rendered through the recording recipe, and
    the reads of each variant and strategy that lie outside its key."""
    if not doc.ok or type(doc.data) is not dict or is_omni(doc.data):
        return 0, []  # no carried table: an omni recipe is rendered anew in each context
    strategies = site_strategies(ctx)
    tax = document_data(ctx.taxonomy)
    strat = {k: document_data(v) for k, v in strategies.items()}
    rendered = render_all(doc, ctx.taxonomy, strategies)
    count, outside = 0, list[str]()
    for group in _groups(rendered).values():
        log = ReadLog()
        data = recorded(doc.data, log)
        docs = Documents(doc.path, ctx.taxonomy.path if ctx.taxonomy else "taxonomy.yaml",
                         {k: v.path for k, v in strategies.items()})
        memo: dict[Any, Any] = {"docker-forms": True}
        for plain in group:
            log.on = True
            site, _overrides, processes, _sources = shared_site_rendering(
                data, plain.config, strat, tax, docs, memo)
            log.on = False
            assert repr((site, processes)) == repr((plain.site, plain.processes)), \
                (doc.path, plain.config)
            count += 1
        config = group[0].config
        outside += [f"{doc.path} {config.variant}/{config.strategy}: {kind} {path}"
                    for kind, path in uncovered(doc.data, log.reads, config.variant,
                                                config.strategy)]
        docs.cache.clear()
    return count, outside


PD_POOL = """\
name: pd_pool
deploy_type: pd_cluster
prefill:
  vllm_args: ["--port", "8001"]
decode:
  vllm_args: ["--port", "8002"]
"""


@pytest.fixture(scope="module")
def pd_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny tree with a second disaggregated strategy (``pd_pool``, which reads the
    recipe's ``strategy_overrides.pd_cluster`` like ``pd_cluster`` does) that the tiny
    recipe lists, and a ``pd_cluster`` override narrowing the pool modes."""
    assert "pd_pool" not in STRATEGIES
    root = write_tree(tmp_path_factory.mktemp("pd") / "recipes")
    (root / "strategies" / "pd_pool.yaml").write_text(PD_POOL, "utf-8")
    recipe = root / TINY
    text = recipe.read_text("utf-8").replace(
        "  - pd_cluster\n", "  - pd_cluster\n  - pd_pool\n", 1).replace(
        "strategy_overrides:\n",
        "strategy_overrides:\n  pd_cluster:\n    pool_modes: [tp]\n", 1)
    recipe.write_text(text, "utf-8")
    return root


def _tiny(root: Path) -> LoadedDocument:
    return load_yaml((root / TINY).read_bytes(), TINY)


def test_every_read_of_the_tiny_recipe_lies_inside_its_key(pd_tree: Path) -> None:
    """The tiny recipe (variants with and without values of their own, strategy
    overrides, hardware overrides, features with modes, a second P/D strategy)."""
    count, outside = reads_outside_the_key(_tiny(pd_tree), local_context(pd_tree))
    assert outside == []
    assert count > 100


def test_a_key_without_a_model_key_the_renderings_read_leaves_reads_outside(
        pd_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard sees a narrower key: without ``model.base_env`` in ``MODEL_READ`` the
    text digest no longer holds what every rendering reads of it."""
    monkeypatch.setattr(recipe_reads, "MODEL_READ", recipe_reads.MODEL_READ - {"base_env"})
    _count, outside = reads_outside_the_key(_tiny(pd_tree), local_context(pd_tree))
    assert outside and all(line.endswith("get ('model', 'base_env')") for line in outside)


def test_a_fingerprint_without_pd_cluster_leaves_the_pd_pool_reads_outside(
        pd_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard sees a narrower fingerprint: a P/D strategy other than ``pd_cluster``
    reads ``strategy_overrides.pd_cluster`` (its pool modes)."""
    def strategy_read(overrides: Any, strategy: Any) -> str | None:
        if type(overrides) is not dict:
            return None
        return repr(overrides.get(strategy))

    monkeypatch.setattr(recipe_reads, "_strategy_read", strategy_read)
    _count, outside = reads_outside_the_key(_tiny(pd_tree), local_context(pd_tree))
    assert outside
    assert all("/pd_pool:" in line and line.endswith("('strategy_overrides', 'pd_cluster')")
               for line in outside)


#: Corpus recipes: many variants (GLM-5.2), disaggregated and multi-node strategies,
#: feature modes, strategy overrides (Ring-2.6-1T).
SAMPLED = ("models/zai-org/GLM-5.2.yaml", "models/deepseek-ai/DeepSeek-V3.2.yaml",
           "models/Qwen/Qwen3-Next-80B-A3B-Instruct.yaml", "models/inclusionAI/Ring-2.6-1T.yaml")


@pytest.mark.corpus
@pytest.mark.parametrize("path", SAMPLED)
def test_every_read_of_a_sampled_corpus_recipe_lies_inside_its_key(
        corpus_main_tree: Path, path: str) -> None:
    doc = load_yaml((corpus_main_tree / path).read_bytes(), path)
    count, outside = reads_outside_the_key(doc, local_context(corpus_main_tree))
    assert outside == []
    assert count > 10


@pytest.mark.corpus
@pytest.mark.full_sweep
def test_every_read_of_every_corpus_recipe_lies_inside_its_key(
        corpus_main_tree: Path) -> None:
    ctx = local_context(corpus_main_tree)
    count, outside = 0, list[str]()
    for file in sorted((corpus_main_tree / "models").rglob("*.yaml")):
        path = str(file.relative_to(corpus_main_tree))
        made, found = reads_outside_the_key(load_yaml(file.read_bytes(), path), ctx)
        count, outside = count + made, outside + found
    assert outside == []
    assert count > 25_000
