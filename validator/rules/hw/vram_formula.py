"""``HW009``: ``vram_minimum_gb`` vs the documented formula
``ceil(params × bytes_per_param × 1.2)``, with the bytes-per-param table of upstream
``CONTRIBUTING.md`` ("VRAM formula"); the helpers are shared with HW010
(:mod:`validator.rules.hw.claims`)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from validator.analysis.recipe_data import get, items
from validator.context import Context
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import RECIPE_ONLY, Hit, rule
from validator.rules.hw.facts import amount, is_omni

# ---------------------------------------------------------------------------------------
# HW009 VRAM formula

BYTES_PER_PARAM: dict[str, float] = {
    "bf16": 2, "fp16": 2,
    "fp8": 1, "int8": 1, "awq": 1, "gptq": 1,
    "int4": 0.5, "nvfp4": 0.5, "fp4": 0.5, "mxfp4": 0.5,
}
"""Bytes per parameter by precision: the table of upstream ``CONTRIBUTING.md`` ("VRAM
formula") and ``CLAUDE.md``, verbatim (``awq``/``gptq`` at 1 byte as upstream writes it).
Precisions it does not list (``mxfp8``, ``int2/4/8``) are not judged."""

RAW_BYTES_FLOOR: dict[str, float] = {"awq": 0.5, "gptq": 0.25}
"""The fewest bytes per parameter a checkpoint of these precisions holds, for HW010's
"the weights alone do not fit" (a statement of fact, unlike HW009's formula): vLLM's AWQ
kernels take 4-bit weights only, its GPTQ ones 2, 3, 4 or 8 bits. Other precisions: their
:data:`BYTES_PER_PARAM`."""

_PARAMS = re.compile(r"^\s*~?(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>[KMBT])\s*$", re.IGNORECASE)
_UNIT = {"K": 1e-6, "M": 1e-3, "B": 1.0, "T": 1e3}
DEVIATION = 0.25


def parameters_billions(text: Any) -> float | None:
    """``"743B"`` -> 743.0, ``"2.4T"`` -> 2400.0, ``"350M"`` -> 0.35; ``None`` otherwise."""
    if not isinstance(text, str):
        return None
    m = _PARAMS.match(text)
    return float(m.group("n")) * _UNIT[m.group("unit").upper()] if m else None


def formula_vram_gb(params_b: float, precision: str) -> int | None:
    """``ceil(params × bytes_per_param × 1.2)`` in GB, ``None`` for unknown precisions."""
    per = BYTES_PER_PARAM.get(precision)
    try:
        return math.ceil(round(params_b * per * 1.2, 6)) if per is not None else None
    except (OverflowError, ValueError):  # infinite or NaN parameter count
        return None


_SIZE_IN_NAME = re.compile(r"(?<![A-Za-z0-9.])(\d+(?:\.\d+)?)B(?![A-Za-z0-9])", re.IGNORECASE)


def variant_parameters(model_id: object, model_params: float,
                       variant_model_id: object) -> float | None:
    """Total parameters (billions) of the checkpoint a variant serves.

    The model's ``parameter_count`` when the variant serves the model itself or a
    re-quantisation of it (its repository name starts with the model's:
    ``GLM-5.2`` -> ``GLM-5.2-FP8``); else the size written in the variant's repository name
    (``ERNIE-4.5-300B-A47B-PT`` -> 300); else ``None`` (another model of unstated size).
    """
    if not isinstance(variant_model_id, str) or not isinstance(model_id, str) \
            or variant_model_id == model_id:
        return model_params
    base = model_id.rsplit("/", 1)[-1].lower()
    name = variant_model_id.rsplit("/", 1)[-1]
    if name.lower().startswith(base):
        return model_params
    sized = _SIZE_IN_NAME.search(name)
    return float(sized.group(1)) if sized else None


#: Above this multiple of the formula a ``vram_minimum_gb`` hides hardware that fits.
VRAM_TOO_HIGH = 2.5


def vram_out_of_bounds(declared: float, params_b: float, precision: str, *,
                       low_only: bool = False) -> str | None:
    """Why ``declared`` GB cannot be right (below the raw weight size, or — unless
    ``low_only`` — above :data:`VRAM_TOO_HIGH` × the formula), ``None`` when it is
    plausible (see HW010)."""
    per = BYTES_PER_PARAM.get(precision)
    expected = formula_vram_gb(params_b, precision)
    if per is None or expected is None or expected <= 0:
        return None
    least = RAW_BYTES_FLOOR.get(precision, per)
    raw = params_b * least
    if declared < raw:
        return (f"below the raw weight size ({params_b:g}B × {least:g} B/param ({precision}) "
                f"= {raw:g} GB): the weights alone do not fit")
    if declared > VRAM_TOO_HIGH * expected and not low_only:
        return (f"more than {VRAM_TOO_HIGH:g}× the formula ({expected} GB): the site hides "
                "hardware the checkpoint fits on")
    return None


def sized_variants(doc: LoadedDocument) -> Iterator[
        tuple[str, str, float, str, float | None]]:
    """``(name, pointer, vram_minimum_gb, precision, parameters in billions or None)`` of
    each variant that declares a numeric ``vram_minimum_gb`` and a string ``precision``,
    when ``model.parameter_count`` is known (``None`` parameters: the variant serves
    another checkpoint whose size the recipe does not state). Shared by HW009 and HW010."""
    model_params = parameters_billions(get(doc.data, "model", "parameter_count"))
    model_id = get(doc.data, "model", "model_id")
    if model_params is None:
        return
    for vname, variant, vptr in items(get(doc.data, "variants"), "/variants"):
        declared = amount(get(variant, "vram_minimum_gb"))
        precision = get(variant, "precision")
        if declared is None or not isinstance(precision, str):
            continue
        yield (vname, vptr, declared,
               precision, variant_parameters(model_id, model_params, get(variant, "model_id")))


@rule("HW009", Severity.INFO, "vram_minimum_gb deviates from the documented formula",
      reads=RECIPE_ONLY)
def vram_matches_formula(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``vram_minimum_gb`` is documented as ``ceil(params × bytes_per_param × 1.2)`` with
    total parameters (``model.parameter_count``) and the precision's bytes per parameter
    (:data:`BYTES_PER_PARAM`). A value more than 25 % away from it is reported with the
    computed value — informational, since mixed-precision checkpoints are legitimately
    sized from their real safetensors (upstream ``CLAUDE.md``) and a variant serving
    another checkpoint may have another parameter count.

    Failing::

        model: {parameter_count: "8B"}
        variants:
          default: {precision: bf16, vram_minimum_gb: 30}   # the formula gives 20

    Passing::

        model: {parameter_count: "8B"}
        variants:
          default: {precision: bf16, vram_minimum_gb: 20}

    How to fix: use the computed value, or keep a value sized from the real checkpoint
    files (this finding is informational)."""
    for vname, vptr, declared, precision, params in sized_variants(doc):
        if params is None:
            continue  # another model whose size the recipe does not state
        expected = formula_vram_gb(params, precision)
        if expected is None or expected <= 0:
            continue
        deviation = abs(declared - expected) / expected
        if deviation > DEVIATION and vram_out_of_bounds(
                declared, params, precision, low_only=is_omni(doc)) is None:  # as HW010 judges it
            yield Hit(vptr + "/vram_minimum_gb",
                      f"vram_minimum_gb {declared:g} of variant {vname!r} is "
                      f"{deviation:.0%} off the formula: ceil({params:g}B × "
                      f"{BYTES_PER_PARAM[precision]:g} B/param ({precision}) × 1.2) = "
                      f"{expected} GB", f"use {expected}, or note why this checkpoint "
                      "differs (mixed precision, other parameter count)")
