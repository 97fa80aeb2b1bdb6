"""Site renderings made for one text of a recipe are reused for another text of it
(:mod:`validator.render.recipe_reads`) exactly where what they read is the same: every
rendering of the second text equals the one a fresh ``render_all`` of it makes; where the
texts differ only in what no site rendering reads (the guide, ``meta``, another variant)
the renderings are the first text's objects; an edit of a node a rendering reads is
rendered anew (a key that ignored the node fails these tests: the stale rendering would
be served)."""

from __future__ import annotations

import copy
import hashlib
import shutil
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest

from validator.context import Context, Settings, build_context, local_context
from validator.load import LoadedDocument, load_yaml
from validator.render.cache import rendered_configurations, share_renderings
from validator.render.carry import Table
from validator.render.recipe_reads import OTHER_PATHS, PER_PATH, kept_table
from validator.render.renderer import Rendered, render_all, site_strategies
from validator.source.tree import LocalTree

RECIPE = "models/acme/Tiny-1B.yaml"


def _text(tree: Path, *edits: tuple[str, str]) -> LoadedDocument:
    """The tiny recipe with each ``(old, new)`` of ``edits`` replaced once."""
    text = (tree / RECIPE).read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    return load_yaml(text.encode(), RECIPE)


def _by_config(rendered: list[Rendered]) -> dict[str, Rendered]:
    return {repr(r.config): r for r in rendered}


def _shares(a: Rendered, b: Rendered) -> bool:
    """Whether ``b`` holds ``a``'s site rendering (the same argv objects)."""
    return bool(a.processes) and all(
        p.argv is q.argv for p, q in zip(a.processes, b.processes, strict=True))


def _one_after_another(tree: Path, first: LoadedDocument, second: LoadedDocument,
                       ) -> tuple[list[Rendered], list[Rendered]]:
    """``first`` then ``second`` rendered in two contexts sharing one store (as the fix
    loop's texts, or a pull request's base and head, are)."""
    store: OrderedDict[Any, Table] = OrderedDict()
    out = []
    for doc in (first, second):
        ctx: Context = local_context(tree)
        share_renderings(ctx, OrderedDict(), store)
        out.append(rendered_configurations(doc, ctx))
    assert len(store) == 1 or first.data != second.data
    return out[0], out[1]


def _fresh(tree: Path, doc: LoadedDocument) -> list[Rendered]:
    ctx = local_context(tree)
    return render_all(doc, ctx.taxonomy, site_strategies(ctx), docker_forms=False,
                      command_texts=False)  # as rendered_configurations renders


def test_a_text_that_differs_where_no_rendering_reads_reuses_every_site_rendering(
        tree: Path) -> None:
    """Another guide, other ``meta`` values, another ``model.min_vllm_version`` (read by
    the install commands only, made again for each text) and one variant more: every configuration
    the first text has is the first text's site rendering, and each equals a fresh
    one."""
    first = _text(tree)
    second = _text(tree, ("meta:\n", "meta:\n  date_updated: '2031-01-01'\n"),
                   ('min_vllm_version: "0.20.0"', 'min_vllm_version: "0.21.0"'),
                   ("variants:\n", "variants:\n  extra:\n    precision: bf16\n"
                    "    vram_minimum_gb: 60\n    extra_args: [--enforce-eager]\n"))
    second.data["guide"] = "Another guide."
    before, after = _one_after_another(tree, first, second)
    assert [repr(r) for r in after] == [repr(r) for r in _fresh(tree, second)]
    old = _by_config(before)
    kept = [r for r in after if repr(r.config) in old]
    assert kept and all(_shares(old[repr(r.config)], r) for r in kept if r.processes)
    assert any(r.config.variant == "extra" for r in after)
    assert first.data["model"] != second.data["model"]


@pytest.mark.parametrize(("old", "new", "changed"), [
    # the model's arguments: every rendering reads them
    ('    - "4096"', '    - "8192"', None),
    # one variant's arguments: only that variant's renderings read them
    ('extra_args: ["--quantization", "fp8"]', 'extra_args: ["--quantization", "fp8x"]',
     ("variant", "fp8")),
    # the default variant, which the variants without their own values fall back to
    ("  default:\n    precision: bf16\n    vram_minimum_gb: 60\n",
     "  default:\n    precision: bf16\n    vram_minimum_gb: 60\n    extra_args: [-x]\n",
     ("variant", "default")),
    # the recipe's hardware overrides, a feature's arguments
    ('extra_args: ["--async-scheduling"]', 'extra_args: ["--async-scheduling", "-y"]', None),
    ('"--tool-call-parser", "tiny"', '"--tool-call-parser", "tiny2"', None),
    # a strategy's overrides: only that strategy's renderings read them
    ('extra_args: ["--data-parallel-size-local", "2"]',
     'extra_args: ["--data-parallel-size-local", "4"]', ("strategy", "multi_node_dep")),
    ('extra_args: ["--all2all-backend", "deepep"]', 'extra_args: ["--all2all-backend", "x"]',
     ("strategy", "single_node_dep")),
])
def test_an_edit_of_a_node_the_renderings_read_is_rendered_anew(
        tree: Path, old: str, new: str, changed: tuple[str, str] | None) -> None:
    """The second text's renderings are those a fresh ``render_all`` of it makes, and
    some differ from the first text's (the node is read: a key without it would serve
    the first text's renderings and fail); with ``changed`` (a variant or strategy),
    the renderings of every other variant or strategy are the first text's."""
    first, second = _text(tree), _text(tree, (old, new))
    before, after = _one_after_another(tree, first, second)
    assert [repr(r) for r in after] == [repr(r) for r in _fresh(tree, second)]
    old_ones = _by_config(before)
    assert any(repr(r) != repr(old_ones.get(repr(r.config))) for r in after)
    if changed is not None:
        field, name = changed
        others = [r for r in after if getattr(r.config, field) != name and r.processes
                  and repr(r.config) in old_ones]
        assert others and all(_shares(old_ones[repr(r.config)], r) for r in others)


def test_contexts_built_with_one_store_carry_the_renderings_from_one_to_the_next(
        tree: Path) -> None:
    """A fix's checks of its candidate texts (and a pull request's base and head) are
    made in contexts that share no store of their own (:func:`share_renderings`): the
    store the run built them with (:attr:`Context.renderings`, the session's) carries the
    renderings from one to the next."""
    first = _text(tree)
    second = _text(tree, ("meta:\n", "meta:\n  date_updated: '2032-02-02'\n"))
    store: OrderedDict[Any, Any] = OrderedDict()
    before = rendered_configurations(first, build_context(LocalTree(tree), renderings=store))
    after = rendered_configurations(second, build_context(LocalTree(tree), renderings=store))
    assert [repr(r) for r in after] == [repr(r) for r in _fresh(tree, second)]
    old = _by_config(before)
    assert all(_shares(old[repr(r.config)], r) for r in after if r.processes)
    assert len(store) == 1


def test_contexts_built_each_with_a_store_of_its_own_share_no_rendering(tree: Path) -> None:
    """The process keeps no renderings: contexts of two runs (each built without a store)
    render the same text each for itself."""
    doc = _text(tree)
    first, second = local_context(tree), local_context(tree)
    before = rendered_configurations(doc, first)
    after = rendered_configurations(doc, second)
    assert [repr(r) for r in after] == [repr(r) for r in before]
    assert not any(_shares(a, b) for a, b in zip(before, after, strict=True))
    assert first.renderings is not second.renderings and len(second.renderings) == 1


def test_every_context_of_a_session_and_its_limited_copies_use_the_session_store(
        tree: Path, tmp_path: Path) -> None:
    """check's trees, ``pr``'s base and head: the contexts one session builds, and the
    copies limited to a rule's reads, keep their renderings in the session's store."""
    from validator.rule_index import check_rules
    from validator.rules.metadata import Reads
    from validator.session import Session

    other = tmp_path / "other"
    shutil.copytree(tree, other)
    session = Session(Settings(), check_rules())
    opened = [session.open(LocalTree(root)) for root in (tree, other)]
    contexts = [o.context for o in opened if o is not None]
    assert len(contexts) == 2 and contexts[0] is not contexts[1]
    assert all(c.renderings is session.renderings for c in contexts)
    limited = contexts[0].limited_to({Reads.TAXONOMY, Reads.STRATEGIES, Reads.KV_STORES})
    assert limited.renderings is session.renderings


def test_a_store_keeps_some_tables_of_the_recipe_and_one_of_another() -> None:
    store: OrderedDict[tuple[str, str, str], Any] = OrderedDict()
    for i in range(PER_PATH + 3):
        kept_table(store, ("a.yaml", str(i), "in"))
    assert [k[1] for k in store] == [str(i) for i in range(3, PER_PATH + 3)]
    table = kept_table(store, ("a.yaml", "5", "in"))
    assert table is store[("a.yaml", "5", "in")]  # found again, and used last
    kept_table(store, ("b.yaml", "0", "in"))
    assert list(store) == [("a.yaml", "5", "in"), ("b.yaml", "0", "in")][-1 - OTHER_PATHS:]
    assert kept_table(store, ("a.yaml", "5", "in")) is table


#: Corpus recipes: many variants (GLM-5.2), disaggregated and multi-node strategies,
#: feature modes.
SAMPLED = ("models/zai-org/GLM-5.2.yaml", "models/deepseek-ai/DeepSeek-V3.2.yaml",
           "models/Qwen/Qwen3-Next-80B-A3B-Instruct.yaml")


def _corpus_recipes(tree: Path) -> list[str]:
    return sorted(str(p.relative_to(tree)) for p in (tree / "models").rglob("*.yaml"))


def _digest(rendered: list[Rendered]) -> str:
    return hashlib.sha256("\n".join(repr(r) for r in rendered).encode()).hexdigest()


def _variant_edited(doc: LoadedDocument) -> LoadedDocument:
    """``doc`` with another guide and an argument more in its first variant (a text whose
    renderings of every other variant are reused for ``doc``)."""
    data = copy.deepcopy(doc.data)
    data["guide"] = "another guide"
    variants = data.get("variants")
    if isinstance(variants, dict) and variants:
        first = next(iter(variants))
        if isinstance(variants[first], dict):
            variants[first] = {**variants[first], "extra_args": ["--edited-by-the-test"]}
    return LoadedDocument(doc.path, doc.text, data, doc.source_map, sha256="edited")


def _reused_equals_fresh(tree: Path, ctx: Context, path: str) -> int:
    """How many renderings of ``path`` were compared: those made through a store that
    holds the renderings of an edited text of it equal a fresh ``render_all``'s."""
    doc = load_yaml((tree / path).read_bytes(), path)
    if not doc.ok:
        return 0
    store: OrderedDict[Any, Table] = OrderedDict()
    for text in (_variant_edited(doc), doc):
        share = Context(tree=ctx.tree, taxonomy=ctx.taxonomy, strategies=ctx.strategies,
                        kv_stores=ctx.kv_stores, recipe_paths=ctx.recipe_paths,
                        settings=ctx.settings, cli=ctx.cli)
        share_renderings(share, OrderedDict(), store)
        reused = rendered_configurations(text, share)
    fresh = render_all(doc, ctx.taxonomy, site_strategies(ctx), docker_forms=False,
                       command_texts=False)  # as rendered_configurations renders
    assert _digest(reused) == _digest(fresh), path
    return len(fresh)


@pytest.mark.corpus
@pytest.mark.parametrize("path", SAMPLED)
def test_sampled_corpus_recipes_render_the_same_through_another_texts_renderings(
        corpus_main_tree: Path, path: str) -> None:
    assert _reused_equals_fresh(corpus_main_tree, local_context(corpus_main_tree), path) > 10


@pytest.mark.corpus
@pytest.mark.full_sweep
def test_every_corpus_recipe_renders_the_same_through_another_texts_renderings(
        corpus_main_tree: Path) -> None:
    ctx = local_context(corpus_main_tree)
    compared = sum(_reused_equals_fresh(corpus_main_tree, ctx, p)
                   for p in _corpus_recipes(corpus_main_tree))
    assert compared > 25_000


def test_texts_that_differ_only_in_the_guide_are_rendered_once(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``render_all`` reads a recipe's path and data but never its guide: two texts of a
    recipe that differ only in the guide (a fix of the guide, a candidate the fix loop
    tries) get one ``render_all`` in a context, the first text's renderings, which equal a
    fresh rendering of the second; a text with other ``meta`` (the planning reads it) is
    rendered anew."""
    import validator.render.cache as render_cache

    calls: list[str] = []
    real = render_all

    def counted(recipe: LoadedDocument, *args: Any, **kwargs: Any) -> list[Rendered]:
        calls.append(recipe.sha256)
        return real(recipe, *args, **kwargs)

    monkeypatch.setattr(render_cache, "render_all", counted)
    base = (tree / RECIPE).read_text()
    first, second, third = (
        load_yaml(f"{base}guide: |\n  {line}\n".encode(), RECIPE)
        for line in ("Run it.", "Run it twice.", "Run it twice."))
    third = load_yaml(third.text.replace("meta:\n", "meta:\n  date_updated: '2033-03-03'\n",
                                         1).encode(), RECIPE)
    assert first.data["guide"] != second.data["guide"] and first.sha256 != second.sha256
    ctx = local_context(tree)
    before = rendered_configurations(first, ctx)
    after = rendered_configurations(second, ctx)
    assert after is before and len(calls) == 1
    assert [repr(r) for r in after] == [repr(r) for r in _fresh(tree, second)]
    assert rendered_configurations(third, ctx) is not before and len(calls) == 2
