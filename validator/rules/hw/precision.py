"""``HW002``-``HW004``: precision x hardware: the GPUs a variant claims must run its
precision (FP8, NVFP4/FP4, MXFP4), and a variant described as Blackwell-only must be
restricted to Blackwell."""

from __future__ import annotations

import re
from collections.abc import Iterator

from validator.analysis.recipe_data import as_list, get, items
from validator.context import Context
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import RECIPE_ONLY, Hit, Reads, rule
from validator.rules.hw.facts import claims, profiles, requirement


@rule("HW002", Severity.ERROR, "A variant claims hardware its precision cannot run on",
      reads=frozenset({Reads.TAXONOMY}))
def precision_matches_claims(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A variant's ``supported_hardware`` entries and its ``hardware.<id>: verified``
    claims must satisfy its precision's hardware requirement: ``nvfp4``/``fp4`` need
    NVIDIA Blackwell, ``fp8`` needs NVIDIA Ada/Hopper/Blackwell or AMD CDNA 3+, and
    ``precision_hardware`` (when present) replaces the default, as upstream's
    ``precisionHardwareConstraint`` does. The site filters profiles by precision before it
    looks at the allowlist (``listCompatibleHardware``), so such a claim is never rendered
    — or the checkpoint would not run there.

    Failing::

        variants:
          nvfp4:
            precision: nvfp4
            vram_minimum_gb: 5
            supported_hardware: [h200, b200]

    Passing::

        variants:
          nvfp4:
            precision: nvfp4
            vram_minimum_gb: 5
            supported_hardware: [b200, b300]

    How to fix: list only hardware the precision runs on, or add ``precision_hardware`` to
    the variant when a runtime fallback really serves it there."""
    table = profiles(ctx)
    for vname, variant, vptr in items(get(doc.data, "variants"), "/variants"):
        req = requirement(variant)
        if req is None:
            continue
        for hw, ptr, how in claims(variant, vptr):
            prof = table.get(hw)
            if prof is not None and req.allows(prof) is False:
                yield Hit(ptr, f"variant {vname!r} {how} {prof.label}, but {req.source} needs "
                          f"{req.text}", "remove it, or add precision_hardware to the variant "
                          "if a runtime fallback really serves it there",
                          on_key=how.startswith("is verified"))


@rule("HW003", Severity.WARNING, "An MXFP4 variant allowlists an AMD GPU without native MXFP4",
      reads=frozenset({Reads.TAXONOMY}))
def mxfp4_on_cdna4(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """MXFP4 arithmetic is native on AMD CDNA 4 (MI350X/MI355X) only; on CDNA 3 (MI300X,
    MI325X) vLLM can only emulate or dequantise it. A variant of precision ``mxfp4`` that
    allowlists a pre-CDNA 4 GPU should say so deliberately with
    ``precision_hardware: {brand: AMD}`` (as the Inkling recipes do). NVIDIA GPUs are not
    judged here: vLLM serves MXFP4 checkpoints (gpt-oss) on Hopper and Blackwell.

    Failing::

        variants:
          mxfp4:
            precision: mxfp4
            vram_minimum_gb: 5
            supported_hardware: [mi300x, mi355x]

    Passing::

        variants:
          mxfp4:
            precision: mxfp4
            vram_minimum_gb: 5
            supported_hardware: [mi355x]

    How to fix: allowlist CDNA 4 GPUs only, or declare ``precision_hardware: {brand: AMD}``
    when the emulated path on MI300X/MI325X is intended."""
    table = profiles(ctx)
    for vname, variant, vptr in items(get(doc.data, "variants"), "/variants"):
        if get(variant, "precision") != "mxfp4" or get(variant, "precision_hardware"):
            continue
        for hw, ptr, how in claims(variant, vptr):
            prof = table.get(hw)
            if prof is not None and prof.cdna is not None and prof.cdna < 4:
                yield Hit(ptr, f"mxfp4 variant {vname!r} {how} {prof.label}; native MXFP4 "
                          "needs CDNA 4 (MI350X/MI355X)", "remove it, or declare "
                          "precision_hardware: {brand: AMD} if the fallback path is intended",
                          on_key=how.startswith("is verified"))


_BLACKWELL_ONLY = re.compile(
    r"blackwell[\s-]*(?:gpus?\s*)?only|only\s+(?:on|for|runs\s+on)\s+(?:nvidia\s+)?blackwell"
    r"|requires\s+(?:nvidia\s+)?blackwell|blackwell[\s-]*exclusive|blackwell[\s-]+required",
    re.IGNORECASE)


@rule("HW004", Severity.WARNING, "A variant described as Blackwell-only has no allowlist",
      reads=RECIPE_ONLY)
def blackwell_only_has_allowlist(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A variant whose description says it runs on Blackwell only ("Blackwell only",
    "requires Blackwell") but whose precision does not already restrict it to Blackwell
    (e.g. ``precision_hardware: {brand: NVIDIA}`` widened it, or it is FP8/BF16) and has
    no ``supported_hardware`` list is offered on every other GPU by the site.

    Failing::

        variants:
          fp8:
            precision: fp8
            vram_minimum_gb: 10
            description: "FP8 weights, Blackwell only"

    Passing::

        variants:
          fp8:
            precision: fp8
            vram_minimum_gb: 10
            description: "FP8 weights, Blackwell only"
            supported_hardware: [b200, b300]

    How to fix: add ``supported_hardware`` with the Blackwell profiles the variant runs on
    (or correct the description)."""
    for vname, variant, vptr in items(get(doc.data, "variants"), "/variants"):
        description = get(variant, "description")
        if not isinstance(description, str) or not _BLACKWELL_ONLY.search(description):
            continue
        req = requirement(variant)
        if (req is not None and req.blackwell) or as_list(get(variant, "supported_hardware")):
            continue
        pointer = vptr + ("/precision_hardware" if get(variant, "precision_hardware")
                          else "/description")
        yield Hit(pointer, f"variant {vname!r} is described as Blackwell-only but nothing "
                  "restricts it to Blackwell", "add supported_hardware with the Blackwell "
                  "profiles it runs on")
