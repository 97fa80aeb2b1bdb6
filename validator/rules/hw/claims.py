"""``HW`` rules about what a recipe claims of its hardware and variants: an implausible
``vram_minimum_gb`` (HW010), a default variant the page cannot show on verified hardware
(HW011), ``supported`` on a profile the site offers anyway (HW013). The profiles are
:mod:`validator.rules.hw.facts`, the formula :mod:`validator.rules.hw.vram_formula`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from validator.analysis.recipe_data import get, items
from validator.findings import Related, Severity
from validator.rules.api import RECIPE_ONLY, Hit, Reads, rule
from validator.rules.hw.facts import is_omni, profiles, requirement
from validator.rules.hw.vram_formula import sized_variants, vram_out_of_bounds

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


@rule("HW010", Severity.WARNING, "vram_minimum_gb is implausible for the checkpoint",
      reads=RECIPE_ONLY)
def vram_implausible(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A variant's ``vram_minimum_gb`` is below the raw size of its weights (total
    parameters × bytes per parameter of its precision, AWQ counted at 4 bits and GPTQ at 2,
    the fewest vLLM's kernels take: the weights alone do not fit), or
    more than 2.5× the documented formula ``ceil(params × bytes × 1.2)`` (the site then
    hides hardware the checkpoint fits on; not judged for vLLM-Omni recipes, whose
    diffusion and speech pipelines need far more than their weights). Smaller deviations
    are ``HW009`` (info).

    Failing::

        model: {parameter_count: "8B"}
        variants:
          default: {precision: bf16, vram_minimum_gb: 10}   # 16 GB of weights

    Passing::

        model: {parameter_count: "8B"}
        variants:
          default: {precision: bf16, vram_minimum_gb: 20}

    How to fix: use the formula's value, or the real safetensors size plus headroom."""
    omni = is_omni(doc)  # diffusion/TTS pipelines: activations dominate
    for vname, vptr, declared, precision, params in sized_variants(doc):
        why = vram_out_of_bounds(declared, params, precision, low_only=omni) \
            if params is not None else None
        if why is not None:
            yield Hit(vptr + "/vram_minimum_gb", f"vram_minimum_gb {declared:g} of variant "
                      f"{vname!r} is {why}", "use the formula's value, or the checkpoint's "
                      "real size plus headroom (and its real precision if it is mixed)")


@rule("HW011", Severity.ERROR, "The default variant cannot run on verified hardware",
      reads=frozenset({Reads.TAXONOMY}))
def default_variant_on_verified_hardware(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The ``default`` variant (the one the page and the site's API render first) is
    NVFP4/FP4 (NVIDIA Blackwell only, upstream ``PRECISION_HARDWARE_CONSTRAINTS``) without
    a ``precision_hardware`` exemption, while ``meta.hardware`` marks an NVIDIA GPU older
    than Blackwell (Hopper, Ada, Ampere) ``verified``. The site filters variants by
    precision per hardware, so the page of that verified hardware has no default variant.
    Upstream fixed such a recipe with a ``precision_hardware`` exemption (a runtime
    fallback, e.g. W4A16 on Hopper).

    Failing::

        meta: {hardware: {h200: verified, b200: verified}}
        variants:
          default: {precision: nvfp4, vram_minimum_gb: 5}

    Passing::

        variants:
          default:
            precision: nvfp4
            vram_minimum_gb: 5
            precision_hardware: {brand: NVIDIA}   # W4A16 fallback on Hopper

    How to fix: make a variant that runs there the default, add ``precision_hardware``
    when a fallback really serves it, or drop the ``verified`` claim."""
    variant = get(doc.data, "variants", "default")
    if not isinstance(variant, dict) or get(variant, "precision") not in ("nvfp4", "fp4") \
            or get(variant, "precision_hardware"):
        return
    req = requirement(variant)
    if req is None:
        return
    table = profiles(ctx)
    line = doc.source_map.position("/variants/default/precision")[0]
    for hw, status, ptr in items(get(doc.data, "meta", "hardware"), "/meta/hardware"):
        prof = table.get(hw) if isinstance(hw, str) else None
        if status == "verified" and prof is not None and prof.nvidia_family is not None \
                and prof.nvidia_family != "blackwell" and req.allows(prof) is False:
            yield Hit(ptr, f"{prof.label} is verified, but the default variant is "
                      f"{req.source}, which needs {req.text}: the page has no default "
                      "variant there",
                      "make a variant that runs there the default, or add precision_hardware "
                      "to variants.default if a fallback serves it", on_key=True,
                      related=(Related(line, f"variants.default {req.source}"),))


@rule("HW013", Severity.WARNING, "meta.hardware says supported for an open profile",
      reads=frozenset({Reads.TAXONOMY}))
def supported_on_open_profile(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``meta.hardware.<id>: supported`` offers a ``restricted`` profile (a TPU, a CPU, a
    workstation GPU), which the site shows only for recipes that list it in
    ``meta.hardware`` whatever the status, without claiming an end-to-end test. On an open
    profile the site reads only ``unsupported`` (hidden) and ``verified`` (the badge), so
    ``supported`` there changes nothing on the page: the author's claim is lost.

    Failing::

        meta:
          hardware: {h100: supported}

    Passing::

        meta:
          hardware: {h100: verified, rtx_pro_6000: supported}

    How to fix: write ``verified`` if it was tested end to end on that hardware, else
    leave the profile out (an open profile is offered anyway)."""
    table = profiles(ctx)
    for hw, status, ptr in items(get(doc.data, "meta", "hardware"), "/meta/hardware"):
        prof = table.get(hw) if isinstance(hw, str) else None
        if status == "supported" and prof is not None and not prof.restricted:
            yield Hit(ptr, f"{hw} is offered on every recipe's page unless marked "
                      "unsupported: 'supported' shows no badge and changes nothing there",
                      "write 'verified' if it was tested end to end, or leave the profile "
                      "out")
