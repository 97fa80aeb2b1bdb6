"""Recipe-level parts of the site's static API: the feature-mode validation that stops its
build, and the recipe documents it publishes (parent and promoted variants). The install
commands it puts into ``model.install`` are :func:`validator.render.docker.synthesize_install`.

Each function reproduces the behaviour of the site's build on any input js-yaml can give,
odd types included (JavaScript truthiness, spreading a string into its characters), so
that the files we write equal the site's field for field.
"""

from __future__ import annotations

from typing import Any

from validator.render.jsval import entries, get, has_key, js_str, keys, or_, truthy
from validator.sourcemap import escape_token


def js_spread_object(value: Any) -> dict[str, Any]:
    """``{...value}``: a mapping's entries, an array's or string's indices; else nothing."""
    if isinstance(value, dict | list | str):
        return dict(entries(value))
    return {}


def feature_mode_errors(recipe: dict[str, Any]) -> list[tuple[str, str]]:
    """Problems in the feature/mode cross-references that make the site's build refuse
    the recipe, each as ``(JSON Pointer, message)``: a ``modes`` map that is empty or sits
    beside flat ``args``, an unknown ``default_mode``, a mode without an ``args`` list, a
    mode naming an unknown variant, a variant left with no mode of a feature, and
    ``default_modes`` naming an unknown or flat feature or an unavailable mode."""
    errors: list[tuple[str, str]] = []
    features = or_(get(recipe, "features"), {})
    variants = or_(get(recipe, "variants"), {})
    for fkey, feature in entries(features):
        if not has_key(feature, "modes"):
            continue
        at = f"/features/{escape_token(fkey)}"
        modes = feature["modes"]
        mode_keys = keys(modes) if isinstance(modes, dict) else []
        if not mode_keys:
            errors.append((f"{at}/modes", f"feature {fkey}: `modes` is empty or not a mapping"))
            continue
        if "args" in feature:
            errors.append((at, f"feature {fkey} has both `args` and `modes`; keep one"))
        default = feature.get("default_mode")
        if truthy(default) and default not in mode_keys:
            errors.append((f"{at}/default_mode",
                           f"feature {fkey}: default_mode {js_str(default)} is not one of its "
                           "modes"))
        for mkey, mode in entries(modes):
            mat = f"{at}/modes/{escape_token(mkey)}"
            if not isinstance(get(mode, "args"), list):
                errors.append((mat, f"feature {fkey} mode {mkey}: `args` is not a list"))
            allowed = get(mode, "variants")
            if has_key(mode, "variants") and not isinstance(allowed, list):
                errors.append((f"{mat}/variants",
                               f"feature {fkey} mode {mkey}: `variants` is not a list"))
            for name in allowed if isinstance(allowed, list) else []:
                if not has_key(variants, js_str(name)):
                    errors.append((f"{mat}/variants", f"feature {fkey} mode {mkey} names "
                                   f"variant {js_str(name)}, which the recipe does not have"))
        for vkey in keys(variants):
            if not any(_mode_allows(get(modes, m), vkey) for m in mode_keys):
                errors.append((at, f"feature {fkey}: no mode is available for variant {vkey}"))
    for vkey, variant in entries(variants):
        for fkey, mkey in entries(or_(get(variant, "default_modes"), {})):
            at = f"/variants/{escape_token(vkey)}/default_modes/{escape_token(fkey)}"
            feature = get(features, fkey)
            mode = get(get(feature, "modes"), mkey)
            if not truthy(feature):
                errors.append((at, f"variant {vkey}: default_modes names unknown feature {fkey}"))
            elif not truthy(get(feature, "modes")):
                errors.append((at, f"variant {vkey}: default_modes names feature {fkey}, "
                               "which has no modes"))
            elif not truthy(mode):
                errors.append((at, f"variant {vkey}: default_modes picks unknown mode "
                               f"{js_str(mkey)} of feature {fkey}"))
            elif not _mode_allows(mode, vkey):
                errors.append((at, f"variant {vkey}: default_modes picks mode {js_str(mkey)} "
                               f"of feature {fkey}, which that variant may not use"))
    return errors


def _mode_allows(mode: Any, variant_key: str) -> bool:
    allowed = get(mode, "variants")
    return not isinstance(allowed, list) or not allowed or variant_key in allowed


def publish_recipe(recipe: dict[str, Any], install: dict[str, Any] | None) -> None:
    """Turn ``recipe`` into the document the site publishes, before rendering (the site
    renders from this form): ``model.install`` becomes the synthesised commands (moved to
    the end of ``model``), ``dependencies`` is dropped."""
    model = recipe.get("model")
    if truthy(model):
        rest = {k: v for k, v in js_spread_object(model).items() if k != "install"}
        recipe["model"] = {**rest, "install": install} if install else rest
    elif install:
        recipe["model"] = {"install": install}
    recipe.pop("dependencies", None)


def head_ordered(payload: dict[str, Any]) -> dict[str, Any]:
    """A recipe document with ``hf_id``, ``meta``, ``recommended_command`` first."""
    head = ("hf_id", "meta", "recommended_command")
    out = {k: payload[k] for k in head if k in payload}
    out.update((k, v) for k, v in payload.items() if k not in head)
    return out


def promoted_recipe(recipe: dict[str, Any], variant_key: str, hf_id: str, parent_id: str,
                    recommended: dict[str, Any]) -> dict[str, Any]:
    """The document of a variant promoted to its own ``hf_id``: the parent's document with
    that id, ``meta.derived_from``/``meta.variant``, ``model.model_id``, the variant as its
    only ``default`` variant (without ``model_id``/``json``) and its own rendering."""
    core = {k: v for k, v in js_spread_object(
        or_(get(get(recipe, "variants"), variant_key), {})).items()
        if k not in ("model_id", "json")}
    promoted = dict(recipe)
    promoted["hf_id"] = hf_id
    promoted["meta"] = {**js_spread_object(recipe.get("meta")), "derived_from": parent_id,
                        "variant": variant_key}
    promoted["model"] = {**js_spread_object(recipe.get("model")), "model_id": hf_id}
    promoted["variants"] = {"default": core}
    promoted["recommended_command"] = recommended
    return head_ordered(promoted)
