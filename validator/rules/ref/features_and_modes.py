"""``REF005``-``REF012``: opt-in features, their modes and the default modes a recipe
selects refer to features, modes and variants it declares.

These rules mirror ``validateFeatureModes`` in upstream's site build
(``scripts/build-recipes-api.mjs`` in vllm-project/recipes), which refuses to build a site
from a recipe that breaks them; here each becomes its own finding with a line.
"""

from __future__ import annotations

from collections.abc import Iterator

from validator.analysis.recipe_data import as_dict, elements, get, items
from validator.context import Context
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import RECIPE_ONLY, Hit, rule
from validator.rules.ref.facts import (
    nearest_hint,
)
from validator.sourcemap import join_pointer


@rule("REF005", Severity.ERROR, "opt_in_features names an undeclared feature",
      reads=RECIPE_ONLY)
def opt_in_feature_declared(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Every ``opt_in_features`` entry, and every entry of a ``hardware_opt_in_features``
    list, must be a key of ``features``; otherwise the opt-in is inert and the feature it
    meant is on by default (on that hardware).

    Failing::

        opt_in_features:
          - tool_call

    Passing::

        opt_in_features:
          - tool_calling

    How to fix: name a key of ``features`` (check the spelling), or declare the feature."""
    features = as_dict(get(doc.data, "features"))
    lists = [("/opt_in_features", get(doc.data, "opt_in_features"))]
    lists += [(join_pointer("/hardware_opt_in_features", hw), names) for hw, names
              in as_dict(get(doc.data, "hardware_opt_in_features")).items()]
    for at, names in lists:
        for _, name, pointer in elements(names, at):
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


