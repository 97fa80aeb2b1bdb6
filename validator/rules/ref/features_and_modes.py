"""``REF``: references between documents of one revision and inside one recipe.

The feature/mode rules mirror ``validateFeatureModes`` in upstream's site build
(``scripts/build-recipes-api.mjs`` in vllm-project/recipes), which refuses to build a site
from a recipe that breaks them; here each becomes its own finding with a line.
"""

from __future__ import annotations

from collections.abc import Iterator

from validator.checks._data import as_dict, elements, get, items
from validator.checks.registry import RECIPE_ONLY, Hit, Reads, rule
from validator.context import Context
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.ref.facts import (
    RecipeIndex,
    expected_model_id,
    nearest_hint,
    not_a_file_name,
)


@rule("REF001", Severity.ERROR, "model.model_id does not match the file path",
      reads=RECIPE_ONLY)
def model_id_matches_path(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``model.model_id`` must equal ``<org>/<repo>`` of ``models/<org>/<repo>.yaml``:
    the site derives the page URL from the path and links Hugging Face by the id, so a
    mismatch publishes a page for one model that serves another. An id that differs
    only in letter case is ``REF019``'s warning.

    Failing::

        model:
          model_id: "example-org/Example-Chat-8B-Base"

    Passing::

        model:
          model_id: "example-org/Example-Chat-8B"

    How to fix: set ``model_id`` to the file's ``<org>/<repo>`` exactly, or rename the file
    after the Hugging Face id."""
    expected = expected_model_id(doc.path)
    model_id = get(doc.data, "model", "model_id")
    if expected is None or not isinstance(model_id, str) or \
            model_id.lower() == expected.lower():
        return
    not_a_name = not_a_file_name(model_id)
    hint = (f"set model_id to {expected!r}; no file can be renamed after {model_id!r}: it "
            f"{not_a_name}" if not_a_name else
            f"rename the file to models/{model_id}.yaml or set model_id to {expected!r}")
    yield Hit("/model/model_id", f"model_id {model_id!r} does not match the file path "
              f"{doc.path!r}", hint)


@rule("REF019", Severity.WARNING, "model.model_id differs from the file path only in case",
      reads=RECIPE_ONLY)
def model_id_case_differs(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``model.model_id`` names the same model as ``models/<org>/<repo>.yaml`` but in
    other letter case (``google/gemma-4-31B-it`` in ``models/Google/…``). The Hugging
    Face Hub resolves ids case-insensitively, so the command the page shows downloads
    the right model; tools that compare ids exactly see two. A warning, not ``REF001``'s
    error.

    Failing::

        model:
          model_id: "example-org/example-chat-8b"

    Passing::

        model:
          model_id: "example-org/Example-Chat-8B"

    How to fix: write ``model_id`` as the file path spells it (``recipe-check fix
    --unsafe-fixes``), or rename the file after the Hub's spelling."""
    expected = expected_model_id(doc.path)
    model_id = get(doc.data, "model", "model_id")
    if expected is None or not isinstance(model_id, str) or model_id == expected \
            or model_id.lower() != expected.lower():
        return
    yield Hit("/model/model_id", f"model_id {model_id!r} differs from the file path "
              f"{doc.path!r} only in letter case", f"set model_id to {expected!r} or rename "
              f"the file to models/{model_id}.yaml")


@rule("REF002", Severity.ERROR, "compatible_strategies names an unknown strategy",
      reads=frozenset({Reads.STRATEGIES}), needs_root=True)
def compatible_strategy_exists(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Every entry of ``compatible_strategies`` must be a ``strategies/<name>.yaml`` of the
    same revision.

    Failing::

        compatible_strategies:
          - single_node_tensor_parallel

    Passing::

        compatible_strategies:
          - single_node_tp

    How to fix: use the name of a file in ``strategies/`` (the hint lists them), or add the
    strategy there first."""
    known = sorted(ctx.strategies)
    strategies = get(doc.data, "compatible_strategies")
    for _, name, pointer in elements(strategies, "/compatible_strategies"):
        if isinstance(name, str) and name not in ctx.strategies:
            yield Hit(pointer, f"strategy {name!r} does not exist in strategies/",
                      f"known strategies: {', '.join(known)}")


@rule("REF003", Severity.ERROR, "strategy_overrides names an unknown strategy",
      reads=frozenset({Reads.STRATEGIES}), needs_root=True)
def strategy_override_exists(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Every key of ``strategy_overrides`` must be a strategy of the same revision; an
    override for a strategy that does not exist is never applied.

    Failing::

        strategy_overrides:
          single_node_pp:
            extra_args: ["--max-num-seqs", "64"]

    Passing::

        strategy_overrides:
          single_node_tp:
            extra_args: ["--max-num-seqs", "64"]

    How to fix: key the override by an existing strategy name, or drop it."""
    for name, _, pointer in items(get(doc.data, "strategy_overrides"), "/strategy_overrides"):
        if name not in ctx.strategies:
            yield Hit(pointer, f"strategy_overrides names unknown strategy {name!r}",
                      f"known strategies: {', '.join(sorted(ctx.strategies))}", on_key=True)


@rule("REF004", Severity.ERROR, "meta.hardware names a hardware id missing from the taxonomy",
      reads=frozenset({Reads.TAXONOMY}), needs_root=True)
def meta_hardware_in_taxonomy(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Keys of ``meta.hardware`` are exact taxonomy ``hardware_profiles`` ids (upstream's
    ``validateHardwareKeys``: lookups are exact string matches, so an unknown id silently
    never renders its badge).

    Failing::

        meta:
          hardware:
            H100: verified

    Passing::

        meta:
          hardware:
            h100: verified

    How to fix: use the exact profile id from ``taxonomy.yaml`` (lower case, as the hint
    suggests)."""
    if ctx.taxonomy is None:
        return
    profiles = ctx.hardware_profiles
    for hw_id, _, pointer in items(get(doc.data, "meta", "hardware"), "/meta/hardware"):
        if hw_id not in profiles:
            yield Hit(pointer, f"hardware id {hw_id!r} is not a profile in taxonomy.yaml",
                      nearest_hint(hw_id, profiles), on_key=True)


@rule("REF005", Severity.ERROR, "opt_in_features names an undeclared feature",
      reads=RECIPE_ONLY)
def opt_in_feature_declared(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Every ``opt_in_features`` entry must be a key of ``features``; otherwise the opt-in
    is inert and the feature it meant is on by default.

    Failing::

        opt_in_features:
          - tool_call

    Passing::

        opt_in_features:
          - tool_calling

    How to fix: name a key of ``features`` (check the spelling), or declare the feature."""
    features = as_dict(get(doc.data, "features"))
    for _, name, pointer in elements(get(doc.data, "opt_in_features"), "/opt_in_features"):
        if isinstance(name, str) and name not in features:
            yield Hit(pointer, f"opt-in feature {name!r} is not declared under features",
                      nearest_hint(name, features))


@rule("REF006", Severity.ERROR, "Feature declares both args and modes",
      reads=RECIPE_ONLY)
def feature_args_or_modes(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A feature has flat ``args`` or ``modes``, not both: the site build rejects both,
    since one would silently shadow the other (``validateFeatureModes``).

    Failing::

        features:
          kv_cache_quant:
            description: "FP8 KV cache"
            args: ["--kv-cache-dtype", "fp8"]
            modes:
              fp8_e5m2: {args: ["--kv-cache-dtype", "fp8_e5m2"]}

    Passing::

        features:
          kv_cache_quant:
            description: "FP8 KV cache"
            modes:
              fp8: {args: ["--kv-cache-dtype", "fp8"]}
              fp8_e5m2: {args: ["--kv-cache-dtype", "fp8_e5m2"]}

    How to fix: move the flat ``args`` into a mode of their own, or drop ``modes``."""
    for name, feature, pointer in items(get(doc.data, "features"), "/features"):
        if isinstance(feature, dict) and "modes" in feature and "args" in feature:
            yield Hit(pointer + "/args", f"feature {name!r} declares both args and modes",
                      "move the args into a mode, or drop the modes", on_key=True)


@rule("REF007", Severity.ERROR, "Feature modes is empty",
      reads=RECIPE_ONLY)
def feature_modes_nonempty(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``features.<f>.modes``, when present, must be a non-empty mapping
    (``validateFeatureModes``).

    Failing::

        features:
          kv_cache_quant:
            description: "FP8 KV cache"
            modes: {}

    Passing::

        features:
          kv_cache_quant:
            description: "FP8 KV cache"
            modes:
              fp8: {args: ["--kv-cache-dtype", "fp8"]}

    How to fix: declare at least one mode, or replace ``modes`` with flat ``args``."""
    for name, feature, pointer in items(get(doc.data, "features"), "/features"):
        if isinstance(feature, dict) and "modes" in feature and not as_dict(feature["modes"]):
            yield Hit(pointer + "/modes", f"feature {name!r} has an empty modes map",
                      "declare at least one mode or remove modes")


@rule("REF008", Severity.ERROR, "default_mode names an unknown mode",
      reads=RECIPE_ONLY)
def default_mode_exists(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``features.<f>.default_mode`` must be one of that feature's modes
    (``validateFeatureModes``).

    Failing::

        features:
          kv_cache_quant:
            description: "FP8 KV cache"
            default_mode: fp8_e4m3
            modes:
              fp8: {args: ["--kv-cache-dtype", "fp8"]}
              fp8_e5m2: {args: ["--kv-cache-dtype", "fp8_e5m2"]}

    Passing::

        features:
          kv_cache_quant:
            description: "FP8 KV cache"
            default_mode: fp8
            modes:
              fp8: {args: ["--kv-cache-dtype", "fp8"]}
              fp8_e5m2: {args: ["--kv-cache-dtype", "fp8_e5m2"]}

    How to fix: set ``default_mode`` to one of the feature's mode keys."""
    for name, feature, pointer in items(get(doc.data, "features"), "/features"):
        modes = as_dict(get(feature, "modes"))
        default = get(feature, "default_mode")
        if modes and isinstance(default, str) and default and default not in modes:
            yield Hit(pointer + "/default_mode",
                      f"default_mode {default!r} of feature {name!r} is not one of its modes",
                      f"modes: {', '.join(modes)}")


@rule("REF009", Severity.ERROR, "Mode variants names an undeclared variant",
      reads=RECIPE_ONLY)
def mode_variants_exist(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Each name in ``features.<f>.modes.<m>.variants`` must be a key of ``variants``
    (``validateFeatureModes``).

    Failing::

        features:
          kv_cache_quant:
            description: "FP8 KV cache"
            modes:
              fp8: {variants: [bf16], args: ["--kv-cache-dtype", "fp8"]}

    Passing::

        features:
          kv_cache_quant:
            description: "FP8 KV cache"
            modes:
              fp8: {variants: [default], args: ["--kv-cache-dtype", "fp8"]}

    How to fix: list only keys of ``variants`` (or drop ``variants`` to offer the mode to
    all of them)."""
    variants = as_dict(get(doc.data, "variants"))
    for fname, feature, fptr in items(get(doc.data, "features"), "/features"):
        for mname, mode, mptr in items(get(feature, "modes"), fptr + "/modes"):
            for _, vname, vptr in elements(get(mode, "variants"), mptr + "/variants"):
                if isinstance(vname, str) and vname not in variants:
                    yield Hit(vptr, f"mode {fname}.{mname} names unknown variant {vname!r}",
                              nearest_hint(vname, variants) or
                              f"variants: {', '.join(variants) or '(none)'}")


def mode_available(mode: object, variant: str) -> bool:
    """Whether a mode is offered for ``variant``: no (or an empty) ``variants`` list
    means every variant (upstream's ``validateFeatureModes``)."""
    allow = get(mode, "variants")
    return not isinstance(allow, list) or not allow or variant in allow


@rule("REF010", Severity.ERROR, "A variant has no usable mode of a modal feature",
      reads=RECIPE_ONLY)
def every_variant_has_mode(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """For a feature with modes, every variant must have at least one mode available, so
    that enabling the feature is never a no-op (``validateFeatureModes``).

    Failing::

        variants:
          fp8: {precision: fp8, vram_minimum_gb: 12}
        features:
          kv_cache_quant:
            description: "FP8 KV cache"
            modes:
              fp8: {variants: [default], args: ["--kv-cache-dtype", "fp8"]}

    Passing::

        variants:
          fp8: {precision: fp8, vram_minimum_gb: 12}
        features:
          kv_cache_quant:
            description: "FP8 KV cache"
            modes:
              fp8: {variants: [default, fp8], args: ["--kv-cache-dtype", "fp8"]}

    How to fix: add the variant to some mode's ``variants`` list, or give one mode no
    ``variants`` list so that every variant has it."""
    variants = as_dict(get(doc.data, "variants"))
    for fname, feature, fptr in items(get(doc.data, "features"), "/features"):
        modes = as_dict(get(feature, "modes"))
        if not modes:
            continue
        for vname in variants:
            if not any(mode_available(m, vname) for m in modes.values()):
                yield Hit(fptr + "/modes", f"feature {fname!r} has no mode available for "
                          f"variant {vname!r}", f"add {vname!r} to a mode's variants list",
                          on_key=True)


@rule("REF011", Severity.ERROR, "default_modes names an unknown or non-modal feature",
      reads=RECIPE_ONLY)
def default_modes_feature(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Keys of ``variants.<v>.default_modes`` must be features that have ``modes``
    (``validateFeatureModes``).

    Failing::

        variants:
          default: {default_modes: {tool_calling: hermes}}

    Passing::

        features:
          kv_cache_quant:
            description: "FP8 KV cache"
            modes:
              fp8: {args: ["--kv-cache-dtype", "fp8"]}
        variants:
          default: {default_modes: {kv_cache_quant: fp8}}

    How to fix: key ``default_modes`` by a feature that has ``modes`` (a feature with flat
    ``args`` has none to select), or drop the entry."""
    features = as_dict(get(doc.data, "features"))
    for vname, variant, vptr in items(get(doc.data, "variants"), "/variants"):
        for fname, _, ptr in items(get(variant, "default_modes"), vptr + "/default_modes"):
            if fname not in features:
                yield Hit(ptr, f"variant {vname!r} default_modes names unknown feature "
                          f"{fname!r}", nearest_hint(fname, features), on_key=True)
            elif not isinstance(get(features[fname], "modes"), dict):
                yield Hit(ptr, f"variant {vname!r} default_modes names feature {fname!r}, "
                          "which has no modes", None, on_key=True)


@rule("REF012", Severity.ERROR, "default_modes selects a mode that is missing or unavailable",
      reads=RECIPE_ONLY)
def default_modes_mode(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``variants.<v>.default_modes.<f>`` must name a mode of feature ``f`` that is
    available to variant ``v`` (``validateFeatureModes``).

    Failing::

        features:
          kv_cache_quant:
            description: "FP8 KV cache"
            modes:
              fp8: {args: ["--kv-cache-dtype", "fp8"]}
              fp8_e5m2: {variants: [fp8], args: ["--kv-cache-dtype", "fp8_e5m2"]}
        variants:
          fp8: {precision: fp8, vram_minimum_gb: 12}
          default: {default_modes: {kv_cache_quant: fp8_e5m2}}

    Passing::

        features:
          kv_cache_quant:
            description: "FP8 KV cache"
            modes:
              fp8: {args: ["--kv-cache-dtype", "fp8"]}
              fp8_e5m2: {variants: [fp8], args: ["--kv-cache-dtype", "fp8_e5m2"]}
        variants:
          fp8: {precision: fp8, vram_minimum_gb: 12}
          default: {default_modes: {kv_cache_quant: fp8}}

    How to fix: name a mode of that feature that is offered to the variant (its
    ``variants`` list includes it, or it has none)."""
    features = as_dict(get(doc.data, "features"))
    for vname, variant, vptr in items(get(doc.data, "variants"), "/variants"):
        for fname, mname, ptr in items(get(variant, "default_modes"), vptr + "/default_modes"):
            modes = get(features.get(fname), "modes")
            if not isinstance(modes, dict) or not isinstance(mname, str):
                continue
            if mname not in modes:
                yield Hit(ptr, f"default mode {mname!r} is not a mode of feature {fname!r}",
                          f"modes: {', '.join(modes)}")
            elif not mode_available(modes[mname], vname):
                yield Hit(ptr, f"mode {fname}.{mname} is not available for variant {vname!r}",
                          f"add {vname!r} to features.{fname}.modes.{mname}.variants")


@rule("REF013", Severity.WARNING, "related_recipes names a recipe missing from the tree",
      reads=frozenset({Reads.RECIPE_LIST}), needs_root=True)
def related_recipe_exists(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Each ``meta.related_recipes`` entry (``org/name``) should be a recipe
    ``models/org/name.yaml`` of the same revision; a missing one renders a dead link.

    Failing::

        meta:
          related_recipes: ["example-org/Example-Chat-70B"]

    Passing::

        meta:
          related_recipes: []

    How to fix: correct the ``org/name`` (the hint names close recipes), or drop the entry
    until that recipe is merged."""
    for _, ref, pointer in elements(get(doc.data, "meta", "related_recipes"),
                                    "/meta/related_recipes"):
        if not isinstance(ref, str):
            continue
        if not {f"models/{ref}.yaml", f"models/{ref}.yml"} & ctx.recipe_paths:
            index = ctx.memoised("REF013.index", lambda: RecipeIndex(ctx.recipe_paths))
            yield Hit(pointer, f"related recipe {ref!r} does not exist (models/{ref}.yaml)",
                      index.hint(ref))
