"""``HW``: hardware ids, precision on each GPU generation, VRAM fit.

Sources, all of vllm-project/recipes:

* the hardware keyspaces are those of ``validateHardwareKeys`` in
  ``scripts/build-recipes-api.mjs`` (the site build refuses a recipe that breaks them):
  *exact* taxonomy profile ids (``meta.default_hardware``,
  ``kv_cache_strategy_hardware.*``, ``strategy_min_gpus`` GPU keys, variant
  ``supported_hardware`` — which also takes ``arch:<compute_arch>``) and *layered* keys =
  profile id | generation | brand (lower-cased) | ``default`` (``strategy_hardware.*``,
  ``hardware_overrides``, variant ``hardware_overrides`` and ``tp``, feature
  ``hardware_overrides``, mode ``hardware`` and ``hardware_overrides``);
  ``precision_hardware.generation``/``brand`` name a generation/brand that exists;
* precision constraints: ``PRECISION_HARDWARE_CONSTRAINTS`` in
  ``src/lib/command-synthesis.js`` (``nvfp4``/``fp4`` → NVIDIA Blackwell), replaced by a
  variant's ``precision_hardware`` (``precisionHardwareConstraint``), plus FP8's hardware
  floor (native FP8 tensor cores: NVIDIA Ada/Hopper/Blackwell, AMD CDNA 3+) and MXFP4's
  (native on AMD CDNA 4 only);
* VRAM: ``fitsSingleNode`` (``vram_minimum_gb`` vs the profile's ``vram_gb``),
  ``isHardwareScalable`` (``scalable: false`` profiles cannot be clustered),
  ``restricted`` profiles render only when listed in ``meta.hardware``
  (``renderAndWriteVariant``), and the documented formula
  ``vram_minimum_gb = ceil(params × bytes_per_param × 1.2)`` with the bytes-per-param
  table of ``CONTRIBUTING.md`` ("VRAM formula").

``meta.hardware`` keys are checked by ``REF004``; every other place is ``HW001``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from validator.checks._data import as_dict, as_list, elements, get, items
from validator.checks.registry import CONTEXT_FILES, RECIPE_ONLY, Hit, Reads, rule
from validator.context import Context
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.sourcemap import join_pointer

# ---------------------------------------------------------------------------------------
# profiles

_AMD_ARCH_CDNA = {"gfx908": 1, "gfx90a": 2, "gfx940": 3, "gfx941": 3, "gfx942": 3, "gfx950": 4}
"""AMD ``compute_arch`` (LLVM gfx target) -> CDNA generation (ROCm's GPU specs table)."""
_AMD_ID_CDNA = {"mi100": 1, "mi210": 2, "mi250": 2, "mi250x": 2, "mi300a": 3, "mi300x": 3,
                "mi308x": 3, "mi325x": 3, "mi350x": 4, "mi355x": 4}
"""Fallback when a profile states neither compute_arch, a ``cdnaN`` generation nor
"(CDNA N)" in its description: AMD Instinct model -> CDNA generation."""
_NVIDIA_FAMILIES = ("hopper", "blackwell", "ada", "ampere", "turing", "volta")


@dataclass(frozen=True)
class Profile:
    """A taxonomy hardware profile, normalised.

    Attributes:
        id: profile id (``h200``).
        brand: ``brand`` as written (``NVIDIA``).
        generations: ``generation`` (or legacy ``gpu_generation``) values; upstream allows
            a list (``[amd, cdna4]``).
        vram_gb: node VRAM in GB, ``None`` when unknown.
        gpu_count: GPUs per node, ``None`` when unknown.
        scalable: ``scalable`` is not ``false`` (``isHardwareScalable``).
        restricted: ``restricted: true`` (rendered only when declared in meta.hardware).
        compute_arch: ``compute_arch`` when the taxonomy has it.
        description: the profile description.
    """

    id: str
    brand: str
    generations: tuple[str, ...]
    vram_gb: float | None
    gpu_count: int | None
    scalable: bool
    restricted: bool
    compute_arch: str | None
    description: str

    @property
    def brand_key(self) -> str:
        """Lower-cased brand, as layered hardware keys write it."""
        return self.brand.lower()

    @property
    def nvidia_family(self) -> str | None:
        """``hopper``/``blackwell``/``ada``/... for NVIDIA profiles (``blackwell_sm120``
        counts as Blackwell)."""
        if self.brand_key != "nvidia":
            return None
        for gen in self.generations:
            for family in _NVIDIA_FAMILIES:
                if gen.lower().startswith(family):
                    return family
        return None

    @property
    def cdna(self) -> int | None:
        """CDNA generation of an AMD profile, from ``compute_arch``, a ``cdnaN``
        generation, "(CDNA N)" in the description, or the Instinct model id."""
        if self.brand_key != "amd":
            return None
        if self.compute_arch and self.compute_arch.lower() in _AMD_ARCH_CDNA:
            return _AMD_ARCH_CDNA[self.compute_arch.lower()]
        for gen in self.generations:
            m = re.fullmatch(r"cdna\s*(\d)", gen.lower())
            if m:
                return int(m.group(1))
        m = re.search(r"\bCDNA\s*(\d)\b", self.description, re.IGNORECASE)
        if m:
            return int(m.group(1))
        return _AMD_ID_CDNA.get(self.id.lower())

    @property
    def label(self) -> str:
        """``"h200 (NVIDIA hopper)"`` for messages."""
        arch = f"CDNA {self.cdna}" if self.cdna else "/".join(self.generations) or "?"
        return f"{self.id} ({self.brand} {arch})"


def amount(value: Any) -> float | None:
    """A YAML number as a float; ``None`` for booleans, non-numbers and integers beyond
    any float (a rule then treats the amount as not stated)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return float(value)
    except OverflowError:  # an integer beyond any float: not a usable amount
        return None


def profiles(ctx: Context) -> dict[str, Profile]:
    """Normalised taxonomy profiles of the context's revision (``{}`` without taxonomy);
    computed once per context."""
    return ctx.memoised("hw.profiles", lambda: _profiles(ctx))


def _profiles(ctx: Context) -> dict[str, Profile]:
    out: dict[str, Profile] = {}
    for hw_id, raw in ctx.hardware_profiles.items():
        gen = raw.get("generation", raw.get("gpu_generation"))
        gens = tuple(str(g) for g in (gen if isinstance(gen, list) else [gen]) if g)
        count = raw.get("gpu_count")
        out[hw_id] = Profile(
            id=hw_id, brand=str(raw.get("brand") or ""), generations=gens,
            vram_gb=amount(raw.get("vram_gb")),
            gpu_count=count if isinstance(count, int) and not isinstance(count, bool) else None,
            scalable=raw.get("scalable") is not False, restricted=raw.get("restricted") is True,
            compute_arch=str(raw["compute_arch"]) if raw.get("compute_arch") else None,
            description=str(raw.get("description") or ""))
    return out


def layered_keys(ctx: Context) -> set[str]:
    """Profile ids, generations, lower-cased brands and ``default``: the keyspace of
    ``hardware_overrides``-style maps (``hardwareKeyedValue``)."""
    keys = {"default", *ctx.hardware_profiles}
    for p in profiles(ctx).values():
        keys.update(p.generations)
        if p.brand:
            keys.add(p.brand_key)
    return keys


def lookup(mapping: dict[str, Any], profile: Profile) -> Any:
    """``hardwareKeyedValue``: exact id > generation > brand (lower) > ``default``."""
    for key in (profile.id, *profile.generations[:1], profile.brand_key, "default"):
        if key in mapping:
            return mapping[key]
    return None


# ---------------------------------------------------------------------------------------
# HW001 hardware keys

_LAYERED_MAPS = (
    ("strategy_hardware", "*"),
    ("hardware_overrides", ""),
    ("features", "*/hardware_overrides"),
    ("features", "*/hardware"),
    ("features", "*/modes/*/hardware"),
    ("features", "*/modes/*/hardware_overrides"),
    ("strategy_overrides", "*/hardware_overrides"),
    ("strategy_overrides", "*/prefill/hardware_overrides"),
    ("strategy_overrides", "*/decode/hardware_overrides"),
    ("strategy_overrides", "*/tp"),
    ("variants", "*/hardware_overrides"),
    ("variants", "*/tp"),
    ("variants", "*/strategy_overrides/*/hardware_overrides"),
)
_EXACT_MAPS = (
    ("kv_cache_strategy_hardware", "*"),
    ("hardware_notes", ""),
    ("hardware_opt_in_features", ""),
    ("variants", "*/hardware"),
)


def _maps(data: Any, pointer: str, pattern: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Mappings under ``data`` matched by a ``*``-wildcard path, with their pointers."""
    if not pattern:
        if isinstance(data, dict):
            yield data, pointer
        return
    head, _, rest = pattern.partition("/")
    if head == "*":
        for _, value, ptr in items(data, pointer):
            yield from _maps(value, ptr, rest)
    elif isinstance(data, dict) and head in data:
        yield from _maps(data[head], join_pointer(pointer, head), rest)


def _unknown(key: str, known: set[str], what: str) -> str:
    import difflib

    close = difflib.get_close_matches(key, sorted(known), n=3, cutoff=0.6)
    hint = f"did you mean: {', '.join(close)}?" if close else f"use a {what} from taxonomy.yaml"
    return hint


@rule("HW001", Severity.ERROR, "A hardware key or id is not in the taxonomy",
      reads=CONTEXT_FILES)
def hardware_keys_known(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Every hardware key names something in ``taxonomy.yaml`` of the same revision
    (upstream ``validateHardwareKeys``; lookups are exact string matches, so an unknown key
    is silently inert — a ``verified`` badge never renders, an ``unsupported`` opt-out
    never disables anything). Exact profile ids: ``meta.default_hardware``,
    ``kv_cache_strategy_hardware.*``, ``hardware_notes``, ``hardware_opt_in_features``,
    variant ``hardware`` and ``default_hardware``, ``strategy_min_gpus`` GPU keys, variant
    ``supported_hardware`` (or ``arch:<compute_arch>``). Layered keys (profile id,
    generation, lower-cased brand or ``default``): ``strategy_hardware.*``,
    ``hardware_overrides``, variant/feature/mode/strategy ``hardware_overrides``, variant
    and strategy ``tp`` maps, mode ``hardware``. ``precision_hardware.generation``/``brand``
    must be a generation/brand the taxonomy uses. (``meta.hardware`` is ``REF004``.)

    Failing::

        variants:
          default:
            supported_hardware: [h100, b200, mi300]

    Passing::

        variants:
          default:
            supported_hardware: [h100, b200, mi300x]

    How to fix: use the exact profile id (or, for layered keys, a generation, a lower-cased
    brand or ``default``) that ``taxonomy.yaml`` defines; the message names the close ones."""
    if not ctx.hardware_profiles:
        return
    ids = set(ctx.hardware_profiles)
    layered = layered_keys(ctx)
    archs = {p.compute_arch for p in profiles(ctx).values() if p.compute_arch}
    data = doc.data
    default_hw = get(data, "meta", "default_hardware")
    if isinstance(default_hw, str) and default_hw not in ids:
        yield Hit("/meta/default_hardware", f"default_hardware {default_hw!r} is not a hardware "
                  "profile", _unknown(default_hw, ids, "profile id"))
    for top, pattern in _EXACT_MAPS:
        for mapping, ptr in _maps(get(data, top), "/" + top, pattern):
            for key in mapping:
                if key not in ids:
                    yield Hit(join_pointer(ptr, key), f"{ptr[1:].replace('/', '.')} names "
                              f"unknown hardware profile {key!r}", _unknown(key, ids, "profile id"),
                              on_key=True)
    for top, pattern in _LAYERED_MAPS:
        for mapping, ptr in _maps(get(data, top), "/" + top, pattern):
            for key in mapping:
                if key not in layered:
                    yield Hit(join_pointer(ptr, key), f"{ptr[1:].replace('/', '.')} names "
                              f"unknown hardware key {key!r}",
                              _unknown(key, layered, "profile id, generation, brand or 'default'"),
                              on_key=True)
    strategies = set(ctx.strategies) | set(ctx.kv_stores)
    for key, _, ptr in items(get(data, "strategy_min_gpus"), "/strategy_min_gpus"):
        if key not in strategies and key not in ids:
            yield Hit(ptr, f"strategy_min_gpus key {key!r} is neither a strategy nor a hardware "
                      "profile", _unknown(key, ids | strategies, "strategy or profile id"),
                      on_key=True)
    generations = {g for p in profiles(ctx).values() for g in p.generations}
    brands = {p.brand_key for p in profiles(ctx).values() if p.brand}
    for vname, variant, vptr in items(get(data, "variants"), "/variants"):
        vdefault = get(variant, "default_hardware")
        if isinstance(vdefault, str) and vdefault not in ids:
            yield Hit(vptr + "/default_hardware", f"default_hardware {vdefault!r} of variant "
                      f"{vname!r} is not a hardware profile", _unknown(vdefault, ids, "profile id"))
        for _, hw, ptr in elements(get(variant, "supported_hardware"),
                                   vptr + "/supported_hardware"):
            if not isinstance(hw, str):
                continue
            if hw.startswith("arch:"):
                if hw[5:] not in archs:
                    yield Hit(ptr, f"supported_hardware {hw!r} names an unknown compute "
                              "architecture", f"compute_arch values: {', '.join(sorted(archs))}"
                              if archs else "this taxonomy defines no compute_arch")
            elif hw not in ids:
                yield Hit(ptr, f"supported_hardware of variant {vname!r} names unknown "
                          f"hardware profile {hw!r}", _unknown(hw, ids, "profile id"))
        ph = get(variant, "precision_hardware")
        gen = get(ph, "generation")
        if isinstance(gen, str) and gen not in generations:
            yield Hit(vptr + "/precision_hardware/generation", f"precision_hardware generation "
                      f"{gen!r} is not a taxonomy generation",
                      f"generations: {', '.join(sorted(generations))}")
        brand = get(ph, "brand")
        if isinstance(brand, str) and brand.lower() not in brands:
            yield Hit(vptr + "/precision_hardware/brand", f"precision_hardware brand {brand!r} "
                      "is not a taxonomy brand", f"brands: {', '.join(sorted(brands))}")


# ---------------------------------------------------------------------------------------
# precision x hardware


@dataclass(frozen=True)
class Requirement:
    """What hardware a variant's weights need.

    Attributes:
        text: for messages ("NVIDIA Blackwell").
        source: where the requirement comes from (for messages).
        brand: required brand (case-insensitive) or ``None``.
        generation: required generation or ``None`` (``precision_hardware``, upstream
            semantics: one of the profile's generations).
        fp8: the FP8 floor (NVIDIA Ada/Hopper/Blackwell, AMD CDNA 3+).
        blackwell: NVIDIA Blackwell (``nvfp4``/``fp4`` default).
    """

    text: str
    source: str
    brand: str | None = None
    generation: str | None = None
    fp8: bool = False
    blackwell: bool = False

    def allows(self, p: Profile) -> bool | None:
        """True/False, or ``None`` when the profile's backend is not judged (FP8 on TPU,
        CPU, XPU, NPU backends)."""
        if self.brand is not None and p.brand_key != self.brand.lower():
            return False
        if self.generation is not None and self.generation not in p.generations:
            return False
        if self.blackwell:
            return p.nvidia_family == "blackwell"
        if self.fp8:
            if p.brand_key == "nvidia":
                family = p.nvidia_family
                return None if family is None else family in ("ada", "hopper", "blackwell")
            if p.brand_key == "amd":
                cdna = p.cdna
                return None if cdna is None else cdna >= 3
            return None
        return True


def requirement(variant: Any) -> Requirement | None:
    """The hardware requirement of a variant, or ``None`` for none.

    A variant's ``precision_hardware`` ``{brand?, generation?}`` replaces the precision's
    default (upstream ``precisionHardwareConstraint``); otherwise ``nvfp4``/``fp4`` need
    NVIDIA Blackwell (upstream ``PRECISION_HARDWARE_CONSTRAINTS``) and ``fp8`` needs FP8
    tensor cores (NVIDIA Ada/Hopper/Blackwell, AMD CDNA 3+; vLLM's FP8 documentation).
    """
    ph = get(variant, "precision_hardware")
    if isinstance(ph, dict) and (ph.get("brand") or ph.get("generation")):
        brand = ph.get("brand") if isinstance(ph.get("brand"), str) else None
        gen = ph.get("generation") if isinstance(ph.get("generation"), str) else None
        text = " ".join(x for x in (brand, gen) if x)
        return Requirement(text, "its precision_hardware", brand=brand, generation=gen)
    precision = get(variant, "precision")
    if precision in ("nvfp4", "fp4"):
        return Requirement("NVIDIA Blackwell", f"precision {precision}", blackwell=True)
    if precision == "fp8":
        return Requirement("FP8 tensor cores (NVIDIA Ada/Hopper/Blackwell or AMD CDNA 3+)",
                           "precision fp8", fp8=True)
    return None


def _claims(variant: Any, vptr: str) -> Iterator[tuple[str, str, str]]:
    """``(hardware id, pointer, how)`` a variant claims: supported_hardware entries and
    variant-level ``hardware.<id>: verified``."""
    for _, hw, ptr in elements(get(variant, "supported_hardware"), vptr + "/supported_hardware"):
        if isinstance(hw, str):
            yield hw, ptr, "supported_hardware lists"
    for hw, status, ptr in items(get(variant, "hardware"), vptr + "/hardware"):
        if status == "verified":
            yield hw, ptr, "is verified on"


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
        for hw, ptr, how in _claims(variant, vptr):
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
        for hw, ptr, how in _claims(variant, vptr):
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


# ---------------------------------------------------------------------------------------
# VRAM and verified hardware


def variant_vram(variant: Any, hw_id: str | None = None) -> float | None:
    """``vram_minimum_gb`` of a variant (a ``hardware_overrides.<hw_id>.vram_minimum_gb``
    wins for that hardware); ``None`` when absent or not a positive number."""
    per_hw = amount(get(variant, "hardware_overrides", hw_id, "vram_minimum_gb")) \
        if hw_id else None
    value = per_hw if per_hw is not None else amount(get(variant, "vram_minimum_gb"))
    return value if value is not None and value > 0 else None


def fits_single_node(variant: Any, prof: Profile) -> bool:
    """``fitsSingleNode``: missing size information counts as a fit."""
    need = variant_vram(variant, prof.id)
    return need is None or prof.vram_gb is None or prof.vram_gb <= 0 or need <= prof.vram_gb


def _is_omni(doc: LoadedDocument) -> bool:
    return "omni" in as_list(get(doc.data, "meta", "tasks"))


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
    if _is_omni(doc) or fits_single_node(variant, prof):
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
    if _is_omni(doc):
        return
    table = profiles(ctx)
    for vname, variant, vptr in items(get(doc.data, "variants"), "/variants"):
        for hw, ptr, how in _claims(variant, vptr):
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
    if _is_omni(doc):
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
    raw = params_b * per
    if declared < raw:
        return (f"below the raw weight size ({params_b:g}B × {per:g} B/param ({precision}) = "
                f"{raw:g} GB): the weights alone do not fit")
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
                declared, params, precision, low_only=_is_omni(doc)) is None:  # as HW010 judges it
            yield Hit(vptr + "/vram_minimum_gb",
                      f"vram_minimum_gb {declared:g} of variant {vname!r} is "
                      f"{deviation:.0%} off the formula: ceil({params:g}B × "
                      f"{BYTES_PER_PARAM[precision]:g} B/param ({precision}) × 1.2) = "
                      f"{expected} GB", f"use {expected}, or note why this checkpoint "
                      "differs (mixed precision, other parameter count)")
