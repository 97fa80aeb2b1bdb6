"""The KV-offload configurations the recipes site offers: each taxonomy ``kv_offload``
option beside a configuration, as its builder's "KV Offload" row shows it.

The site passes the option's key as ``resolveCommand``'s ``kvOffload`` (the same argument
that names a kv-store deployment, the row's Mooncake pill) and applies the option only
behind three gates (``command-synthesis.js``: ``isKvOffloadAllowedForStrategy``,
``isKvOffloadSupportedForRecipe``, ``isKvOffloadBrandSupported``): never under a
``pd_cluster`` or ``kv_store_lb`` deployment (both own ``--kv-transfer-config``), only on
the strategies an option's ``strategies`` allow-list names, not where the recipe lists it
``unsupported`` under ``kv_offload_support`` (an option with ``requires_opt_in`` only
where it lists it ``verified``), and only on hardware of the option's ``brands``. An
option the gates close is dropped silently, so the row offers exactly the options that
pass them (:func:`offered_options`); :func:`with_offload` adds their renderings to a
batch, for ``render --all`` and the catalogue's picker.

``check`` does not render them: what an option adds to a configuration is its ``args``
(last, winning the last-wins de-duplication), its ``env`` and its companion command, the
same tokens on every configuration; they are judged once per recipe (the ``FLAG`` rules
read an option's ``args`` at the recipe's release range when :func:`recipe_options`
offers it to the recipe) and once on the taxonomy itself (``REF018``, ``REF022``/``023``,
``FLAG001`` at the newest release).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from validator.render import jsval, offload_gates
from validator.render.configuration import Configuration, Rendered, document_data
from validator.render.jsval import get, or_
from validator.render.renderer import CONFIGURATION_LIMIT, MAX_CONFIGURATIONS
from validator.render.types import RenderProblem

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


def offered_options(recipe: Any, taxonomy: Any, strategies: Any,
                    config: Configuration) -> list[str]:
    """The keys of the taxonomy's KV offload options the site's row offers beside
    ``config`` (in the taxonomy's order); none beside a kv-store composition, another
    option, or a vLLM-Omni configuration."""
    if config.kv_offload is not None or config.kv_option is not None or \
            config.strategy == "omni":
        return []
    options = get(taxonomy, "kv_offload")
    if not jsval.is_object(options):
        return []
    strategy = get(strategies, config.strategy)
    profile = get(get(taxonomy, "hardware_profiles"), config.hardware)
    try:
        return [key for key in jsval.keys(options) if _open(
            get(options, key), key, recipe, config.strategy, strategy, profile)]
    except jsval.JsTypeError:
        return []


def _open(option: Any, key: str, recipe: Any, name: str, strategy: Any, profile: Any) -> bool:
    return (jsval.is_object(option) and offload_gates.kv_offload_allowed(option, name, strategy)
            and offload_gates.kv_offload_supported_for_recipe(option, key, recipe)
            and offload_gates.kv_offload_brand_supported(option, profile))


def closed_reason(recipe: Any, taxonomy: Any, strategies: Any,
                  config: Configuration) -> str | None:
    """Why the site does not apply ``config.kv_option`` (its gates close it: the site
    renders the configuration without it), else ``None``."""
    key = config.kv_option
    if key is None:
        return None
    if config.kv_offload is not None:
        return (f"KV offload option {key!r} and kv-store {config.kv_offload!r} are one "
                "choice of the site's KV Offload row: it applies one of them")
    option = get(get(taxonomy, "kv_offload"), key)
    if not jsval.is_object(option):
        return f"KV offload option {key!r} is not an option of the taxonomy's kv_offload"
    if key in offered_options(recipe, taxonomy, strategies, replace(config, kv_option=None)):
        return None
    return (f"the site does not offer KV offload option {key!r} here (its strategy, recipe "
            f"and brand gates close it on {config.hardware} · {config.strategy}): it "
            "renders the command without it")


def with_offload(batch: Iterable[Rendered], recipe: Any, taxonomy: Any, strategies: Any,
                 render_one: Callable[[Configuration], Rendered]) -> list[Rendered]:
    """``batch`` with, after each configuration that renders, a rendering of it with each
    KV offload option the site offers beside it (:func:`offered_options`); past
    :data:`~validator.render.renderer.MAX_CONFIGURATIONS` renderings, one
    ``CONFIGURATION_LIMIT`` problem instead of the rest (a taxonomy of many options must
    not multiply the run)."""
    out: list[Rendered] = []
    for rendered in batch:
        out.append(rendered)
        if not rendered.ok:
            continue
        for key in offered_options(recipe, taxonomy, strategies, rendered.config):
            if len(out) >= MAX_CONFIGURATIONS:
                out.append(_over_the_limit(rendered.recipe_path))
                return out
            out.append(render_one(replace(rendered.config, kv_option=key)))
    return out


def _over_the_limit(path: str) -> Rendered:
    return Rendered(Configuration(""), path, False, problems=(RenderProblem(
        CONFIGURATION_LIMIT, "error",
        f"the site renders more than {MAX_CONFIGURATIONS} configurations of this recipe "
        "with its KV offload options: recipe-check renders the first "
        f"{MAX_CONFIGURATIONS} only", path, ""),))


def recipe_options(recipe: Any, taxonomy: Any, strategies: Any,
                   renderings: Iterable[Rendered]) -> list[str]:
    """The keys of the KV offload options the site offers beside at least one of a
    recipe's ``renderings`` (its configurations), in the taxonomy's order: the options
    whose tokens reach some command of the recipe."""
    found: set[str] = set()
    seen: set[tuple[str, str]] = set()
    for rendered in renderings:
        c = rendered.config
        if not rendered.ok or c.kv_offload is not None or (c.hardware, c.strategy) in seen:
            continue  # the gates read the hardware and the strategy only
        seen.add((c.hardware, c.strategy))
        found.update(offered_options(recipe, taxonomy, strategies, replace(c, kv_option=None)))
    return [k for k in jsval.keys(or_(get(taxonomy, "kv_offload"), {})) if k in found]


def offered_to_recipe(doc: LoadedDocument, ctx: Context) -> list[str]:
    """:func:`recipe_options` of ``doc`` over the configurations ``check`` renders of it
    (:func:`validator.render.cache.rendered_configurations`, shared with the other
    rules: nothing is rendered again), once per document content and context."""
    from validator.render.cache import context_strategies, rendered_configurations

    taxonomy = ctx.taxonomy
    if not doc.ok or taxonomy is None or not taxonomy.ok or not jsval.is_object(
            get(taxonomy.data, "kv_offload")):
        return []

    def compute() -> list[str]:
        strategies = {k: document_data(v) for k, v in context_strategies(ctx).items()}
        return recipe_options(doc.data, taxonomy.data, strategies,
                              rendered_configurations(doc, ctx))

    if not doc.sha256:  # a document built by hand: nothing identifies it
        return compute()
    return list(ctx.memoised(f"kv:offered:{doc.path}:{doc.sha256}", compute))
