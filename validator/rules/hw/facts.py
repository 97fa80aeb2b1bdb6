"""``HW`` shared model: normalised taxonomy profiles, the hardware a variant's precision
needs, what a variant claims, and its VRAM need. The ``HW`` rules are in
:mod:`validator.rules.hw.hardware_keys` (HW001), :mod:`~validator.rules.hw.precision`
(HW002-HW004), :mod:`~validator.rules.hw.fit` (HW005-HW008),
:mod:`~validator.rules.hw.vram_formula` (HW009), :mod:`~validator.rules.hw.claims`
(HW010, HW011) and :mod:`~validator.rules.hw.multi_node_text` (HW020).

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

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from validator.analysis.recipe_data import as_list, elements, get, items
from validator.context import Context
from validator.load import LoadedDocument

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


def claims(variant: Any, vptr: str) -> Iterator[tuple[str, str, str]]:
    """``(hardware id, pointer, how)`` a variant claims: supported_hardware entries and
    variant-level ``hardware.<id>: verified``."""
    for _, hw, ptr in elements(get(variant, "supported_hardware"), vptr + "/supported_hardware"):
        if isinstance(hw, str):
            yield hw, ptr, "supported_hardware lists"
    for hw, status, ptr in items(get(variant, "hardware"), vptr + "/hardware"):
        if status == "verified":
            yield hw, ptr, "is verified on"


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

def hardware_named(ctx: Context, names_profile: Callable[[str], bool],
                   names_group: Callable[[str], bool]) -> set[str]:
    """Profile ids a text names: each profile whose id or display name ``names_profile``
    finds; when it finds none, the members of each brand or generation key
    (:attr:`~validator.context.Context.hardware_groups`: ``AMD``, ``Hopper``) that
    ``names_group`` finds (a profile named is narrower than its brand or generation).
    Empty: the text names no hardware."""
    out = {hw_id for hw_id, profile in ctx.hardware_profiles.items()
           if any(names_profile(n) for n in {hw_id, str(profile.get("display_name") or hw_id)}
                  if n)}
    if out:
        return out
    for key, members in ctx.hardware_groups.items():
        if names_group(key):
            out |= members
    return out


def is_omni(doc: LoadedDocument) -> bool:
    """Whether the recipe is a vLLM-Omni pipeline (``omni`` in ``meta.tasks``)."""
    return "omni" in as_list(get(doc.data, "meta", "tasks"))
