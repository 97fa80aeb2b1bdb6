"""``HW005``-``HW008``: verified and allowlisted hardware the variants can really run on
(precision, allowlist, single-node VRAM fit, multi-node strategies, ``restricted``
profiles)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from validator.analysis.recipe_data import as_dict, as_list, elements, get, items
from validator.context import Context
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, Reads, rule
from validator.rules.hw.facts import (
    Profile,
    claims,
    fits_single_node,
    is_omni,
    lookup,
    profiles,
    requirement,
    variant_vram,
)


def multi_node_strategies(doc: LoadedDocument, ctx: Context, prof: Profile) -> list[str]:
    """Strategies that span nodes and are offered on ``prof``: ``compatible_strategies``
    plus ``strategy_hardware`` opt-ins (``effectiveCompatibleStrategies``), gated per
    hardware by ``strategy_hardware`` (``isStrategySupportedOnHardware``)."""
    listed = [s for s in as_list(get(doc.data, "compatible_strategies")) if isinstance(s, str)]
    gates = as_dict(get(doc.data, "strategy_hardware"))
    names = listed + [s for s, m in gates.items()
                      if s not in listed and "supported" in as_dict(m).values()]
    out = []
    for name in names:
        deploy = get(ctx.strategy_data(name), "deploy_type")
        spans = deploy in ("multi_node", "pd_cluster") or name.startswith("multi_node_") \
            or name == "pd_cluster"
        gate = lookup(as_dict(gates.get(name)), prof)
        supported = gate != "unsupported" if gate is not None else name in listed
        if spans and supported:
            out.append(name)
    return out


def runs_on(doc: LoadedDocument, ctx: Context, variant: Any, prof: Profile) -> str | None:
    """``None`` when the variant can run on ``prof``, else the reason it cannot (precision,
    allowlist, or memory: it does not fit one node and the profile cannot cluster or no
    multi-node strategy is offered there)."""
    req = requirement(variant)
    if req is not None and req.allows(prof) is False:
        return f"needs {req.text}"
    allow = as_list(get(variant, "supported_hardware"))
    if allow and prof.id not in allow:
        return "not in its supported_hardware"
    if is_omni(doc) or fits_single_node(variant, prof):
        return None
    need = variant_vram(variant, prof.id)
    if not prof.scalable:
        return f"needs {need:g} GB, one {prof.id} has {prof.vram_gb:g} GB and cannot cluster"
    if not multi_node_strategies(doc, ctx, prof):
        return (f"needs {need:g} GB, one {prof.id} node has {prof.vram_gb:g} GB and no "
                "multi-node strategy is offered")
    return None


@rule("HW005", Severity.ERROR, "Hardware is verified but no variant can run on it",
      reads=frozenset({Reads.STRATEGIES, Reads.TAXONOMY}))
def verified_hardware_runnable(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``meta.hardware.<id>: verified`` says the recipe was run end-to-end on that
    hardware; at least one variant must be able to run there — precision-compatible
    (``isPrecisionCompatible``), allowed by its ``supported_hardware``, and fitting in
    memory (one node, or several when the profile is scalable and a multi-node strategy is
    offered; ``fitsSingleNode``, ``isHardwareScalable``).

    Failing::

        meta:
          hardware: {mi300x: verified}
        variants:
          default: {supported_hardware: [h100, b200]}

    Passing::

        meta:
          hardware: {mi300x: verified}
        variants:
          default: {supported_hardware: [h100, b200, mi300x]}

    How to fix: fix the claim, or correct the variant that really ran there (its
    ``supported_hardware``, ``precision_hardware`` or ``vram_minimum_gb``)."""
    table = profiles(ctx)
    variants = as_dict(get(doc.data, "variants"))
    if not variants:
        return
    for hw, status, ptr in items(get(doc.data, "meta", "hardware"), "/meta/hardware"):
        prof = table.get(hw)
        if status != "verified" or prof is None:
            continue
        reasons = {name: runs_on(doc, ctx, v, prof) for name, v in variants.items()}
        if all(reasons.values()):
            why = "; ".join(f"{n}: {r}" for n, r in reasons.items())
            yield Hit(ptr, f"{prof.label} is verified but no variant can run on it ({why})",
                      "fix the claim, or correct the variant that actually ran there "
                      "(precision_hardware, supported_hardware, vram_minimum_gb)",
                      on_key=True)


@rule("HW006", Severity.ERROR, "A variant allowlists a non-scalable profile it does not fit",
      reads=frozenset({Reads.TAXONOMY}))
def allowlisted_profile_fits(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A ``scalable: false`` profile (single-box workstations: DGX Station, RTX Pro, ...)
    cannot be clustered, so VRAM is a hard limit there (``variantRunsOnHardware``). A
    variant that lists such a profile in ``supported_hardware`` (or is ``verified`` on it)
    with a ``vram_minimum_gb`` above the profile's ``vram_gb`` can never run there.

    Failing::

        model: {parameter_count: "20B", active_parameters: "20B"}
        meta:
          hardware: {rtx_5090: verified}
        variants:
          default:
            precision: bf16
            vram_minimum_gb: 48          # a 32 GB RTX 5090 cannot hold it
            supported_hardware: [h100, b200, rtx_5090]

    Passing::

        model: {parameter_count: "20B", active_parameters: "20B"}
        meta:
          hardware: {rtx_pro_6000: verified}
        variants:
          default:
            precision: bf16
            vram_minimum_gb: 48
            supported_hardware: [h100, b200, rtx_pro_6000]

    How to fix: remove the profile it does not fit (or allowlist a larger one), or lower
    ``vram_minimum_gb`` if the footprint is overstated."""
    if is_omni(doc):
        return
    table = profiles(ctx)
    for vname, variant, vptr in items(get(doc.data, "variants"), "/variants"):
        for hw, ptr, how in claims(variant, vptr):
            prof = table.get(hw)
            if prof is None or prof.scalable or fits_single_node(variant, prof):
                continue
            yield Hit(ptr, f"variant {vname!r} {how} {hw}, which cannot cluster, but needs "
                      f"{variant_vram(variant, hw):g} GB and {hw} has {prof.vram_gb:g} GB",
                      "remove it, or lower vram_minimum_gb if the footprint is overstated",
                      on_key=how.startswith("is verified"))


@rule("HW007", Severity.WARNING, "A variant does not fit one node and no multi-node "
      "strategy is offered",
      reads=frozenset({Reads.STRATEGIES, Reads.TAXONOMY}))
def oversized_variant_has_multinode(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """On a scalable profile a variant larger than one node needs a multi-node strategy
    (``multi_node_*`` or ``pd_cluster`` offered on that hardware); without one the site
    renders a single-node command that cannot load the weights ("VRAM is a display hint,
    never a gate" upstream, so nothing else warns). Checked on the profiles the site shows
    for the variant: precision-compatible, in its allowlist, not ``unsupported``, and not
    ``restricted`` unless declared in ``meta.hardware``. One finding per variant.

    Failing::

        model: {parameter_count: "290B", active_parameters: "290B"}
        variants:
          default: {precision: bf16, vram_minimum_gb: 700}   # more than one 8x80 GB node
        compatible_strategies: [single_node_tp]

    Passing::

        model: {parameter_count: "290B", active_parameters: "290B"}
        variants:
          default: {precision: bf16, vram_minimum_gb: 700}
        compatible_strategies: [single_node_tp, multi_node_tp]

    How to fix: add a ``multi_node_*`` strategy to ``compatible_strategies``, or restrict
    ``supported_hardware`` to profiles one node of which holds the variant."""
    if is_omni(doc):
        return
    declared = as_dict(get(doc.data, "meta", "hardware"))
    for vname, variant, vptr in items(get(doc.data, "variants"), "/variants"):
        req = requirement(variant)
        allow = as_list(get(variant, "supported_hardware"))
        short = []
        for prof in profiles(ctx).values():
            if (not prof.scalable or (prof.restricted and prof.id not in declared)
                    or declared.get(prof.id) == "unsupported"
                    or (allow and prof.id not in allow)
                    or (req is not None and req.allows(prof) is False)
                    or fits_single_node(variant, prof)):
                continue
            if not multi_node_strategies(doc, ctx, prof):
                short.append(f"{prof.id} ({prof.vram_gb:g} GB)")
        if short:
            yield Hit(vptr + "/vram_minimum_gb", f"variant {vname!r} needs "
                      f"{variant_vram(variant):g} GB, more than one node of "
                      f"{', '.join(short)}, and no multi-node strategy is offered there",
                      "add a multi_node_* strategy to compatible_strategies, or restrict "
                      "supported_hardware to profiles it fits")


@rule("HW008", Severity.ERROR, "A restricted profile is claimed but not declared in meta.hardware",
      reads=frozenset({Reads.TAXONOMY}))
def restricted_profile_declared(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``restricted: true`` profiles (TPUs, CPUs, workstations) are shown only for recipes
    that list them in ``meta.hardware`` (``renderAndWriteVariant``,
    ``pickDefaultHardware``). A variant's ``supported_hardware`` entry,
    ``meta.default_hardware`` or a variant ``default_hardware`` naming an undeclared
    restricted profile is never rendered.

    Failing::

        variants:
          default:
            supported_hardware: [h100, b200, rtx_pro_6000]

    Passing::

        meta:
          hardware: {rtx_pro_6000: verified}
        variants:
          default:
            supported_hardware: [h100, b200, rtx_pro_6000]

    How to fix: declare the profile in ``meta.hardware`` if it was tested, or remove the
    entry."""
    table = profiles(ctx)
    declared = as_dict(get(doc.data, "meta", "hardware"))
    places: list[tuple[str, str]] = []
    default_hw = get(doc.data, "meta", "default_hardware")
    if isinstance(default_hw, str):
        places.append((default_hw, "/meta/default_hardware"))
    for _, variant, vptr in items(get(doc.data, "variants"), "/variants"):
        vdefault = get(variant, "default_hardware")
        if isinstance(vdefault, str):
            places.append((vdefault, vptr + "/default_hardware"))
        for _, hw, ptr in elements(get(variant, "supported_hardware"),
                                   vptr + "/supported_hardware"):
            if isinstance(hw, str):
                places.append((hw, ptr))
    for hw, ptr in places:
        prof = table.get(hw)
        if prof is not None and prof.restricted and hw not in declared:
            yield Hit(ptr, f"{hw} is a restricted profile and is not listed in meta.hardware, "
                      "so the site never shows it", f"add '{hw}: verified' to meta.hardware "
                      "if it was tested, or remove this entry")
