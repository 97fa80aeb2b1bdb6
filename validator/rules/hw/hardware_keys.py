"""``HW001``: every hardware key and id of a recipe names something in the taxonomy
(upstream ``validateHardwareKeys``); the keyspaces are described in
:mod:`validator.rules.hw.facts`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from validator.analysis.recipe_data import elements, get, items
from validator.context import Context
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import CONTEXT_FILES, Hit, rule
from validator.rules.hw.facts import layered_keys, profiles
from validator.sourcemap import join_pointer

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

    A profile id as a key of the recipe's top-level ``hardware_overrides`` (``h100:``) is
    reported too: the site reads only a profile's generation and ``nvidia`` there
    (``recipe.hardware_overrides?.[gen] || nvidia``), so the block reaches no command;
    exact ids are read under ``variants.<v>.hardware_overrides`` and
    ``strategy_overrides.<s>.hardware_overrides``.

    How to fix: use the exact profile id (or, for layered keys, a generation, a lower-cased
    brand or ``default``) that ``taxonomy.yaml`` defines; the message names the close ones."""
    if not ctx.hardware_profiles:
        return
    ids = set(ctx.hardware_profiles)
    data = doc.data
    yield from _default_hardware(data, ids)
    yield from _mapping_keys(data, _EXACT_MAPS, ids, "hardware profile", "profile id")
    yield from _mapping_keys(data, _LAYERED_MAPS, layered_keys(ctx), "hardware key",
                             "profile id, generation, brand or 'default'")
    yield from _strategy_min_gpus_keys(data, ids, {*ctx.strategy_names(), *ctx.kv_store_names()})
    yield from _unread_top_level_ids(data, ctx)
    known = profiles(ctx).values()
    archs = {p.compute_arch for p in known if p.compute_arch}
    generations = {g for p in known for g in p.generations}
    brands = {p.brand_key for p in known if p.brand}
    for vname, variant, vptr in items(get(data, "variants"), "/variants"):
        vdefault = get(variant, "default_hardware")
        if isinstance(vdefault, str) and vdefault not in ids:
            yield Hit(vptr + "/default_hardware", f"default_hardware {vdefault!r} of variant "
                      f"{vname!r} is not a hardware profile", _unknown(vdefault, ids, "profile id"))
        yield from _supported_hardware(vname, variant, vptr, ids, archs)
        yield from _precision_hardware(variant, vptr, generations, brands)


def _default_hardware(data: Any, ids: set[str]) -> Iterator[Hit]:
    """``meta.default_hardware`` is a profile id."""
    default_hw = get(data, "meta", "default_hardware")
    if isinstance(default_hw, str) and default_hw not in ids:
        yield Hit("/meta/default_hardware", f"default_hardware {default_hw!r} is not a hardware "
                  "profile", _unknown(default_hw, ids, "profile id"))


def _mapping_keys(data: Any, maps: tuple[tuple[str, str], ...], known: set[str], noun: str,
                  what: str) -> Iterator[Hit]:
    """The keys of the mappings ``maps`` names (top-level key, ``*``-wildcard path) are in
    ``known``; ``noun`` says what an unknown key is not, ``what`` what would be right."""
    for top, pattern in maps:
        for mapping, ptr in _maps(get(data, top), "/" + top, pattern):
            for key in mapping:
                if key not in known:
                    yield Hit(join_pointer(ptr, key), f"{ptr[1:].replace('/', '.')} names "
                              f"unknown {noun} {key!r}", _unknown(key, known, what),
                              on_key=True)


def _unread_top_level_ids(data: Any, ctx: Context) -> Iterator[Hit]:
    """A profile id keying the recipe's top-level ``hardware_overrides``, which the site
    reads only by generation (a profile's first) and ``nvidia``."""
    known = profiles(ctx)
    read = {"nvidia"} | {p.generations[0] for p in known.values() if p.generations}
    for key, _, ptr in items(get(data, "hardware_overrides"), "/hardware_overrides"):
        if key not in known or key in read:
            continue
        gens = known[key].generations
        yield Hit(ptr, f"hardware_overrides names hardware profile {key!r}, but at the "
                  "recipe's top level the site reads only generation keys and 'nvidia': "
                  "this block reaches no command",
                  f"move it to variants.<variant>.hardware_overrides.{key} or "
                  f"strategy_overrides.<strategy>.hardware_overrides.{key} (exact hardware "
                  "ids are read there)"
                  + (f", or key it {gens[0]!r} for every {gens[0]} profile" if gens else ""),
                  on_key=True)


def _strategy_min_gpus_keys(data: Any, ids: set[str], strategies: set[str]) -> Iterator[Hit]:
    """``strategy_min_gpus`` keys are strategies (or kv stores) or profile ids."""
    for key, _, ptr in items(get(data, "strategy_min_gpus"), "/strategy_min_gpus"):
        if key not in strategies and key not in ids:
            yield Hit(ptr, f"strategy_min_gpus key {key!r} is neither a strategy nor a hardware "
                      "profile", _unknown(key, ids | strategies, "strategy or profile id"),
                      on_key=True)


def _supported_hardware(vname: str, variant: Any, vptr: str, ids: set[str],
                        archs: set[str]) -> Iterator[Hit]:
    """A variant's ``supported_hardware`` items are profile ids or ``arch:<compute_arch>``."""
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


def _precision_hardware(variant: Any, vptr: str, generations: set[str],
                        brands: set[str]) -> Iterator[Hit]:
    """A variant's ``precision_hardware`` generation and brand are the taxonomy's."""
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
