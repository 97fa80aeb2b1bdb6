"""What the site offers for a recipe: compatible hardware, strategies, modes, node floors.

Behaviour of the selection helpers of the recipes site's command synthesis (hardware
pickers, strategy gates, TP sizing, ``strategy_min_gpus`` floors, feature modes), on plain
data: ``recipe``, hardware ``profile`` and strategy mappings as js-yaml reads them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from validator.render import jsval
from validator.render.hardware_reads import decided, decided_by_hardware
from validator.render.jsval import get, or_, truthy

MAX_NODES = 16
"""Most nodes the site's builder offers for one deployment (and per PD pool)."""

RENDER_MAX_NODES = 256
"""Most nodes ``render --nodes`` renders (16 times the site's Nodes row): a count past the
row is rendered with a note, but every follower node prints its own command, so an
unbounded count would print without end."""

_PRECISION_CONSTRAINTS: dict[str, dict[str, str]] = {
    "nvfp4": {"brand": "NVIDIA", "generation": "blackwell"},
    "fp4": {"brand": "NVIDIA", "generation": "blackwell"},
}


def normalize_generation(gen: Any) -> Any:
    """A profile's generation as one value (the first of a list)."""
    if isinstance(gen, list):
        return gen[0] if gen else None
    return gen


def profile_generation(profile: Any) -> Any:
    """``normalizeGeneration(p.generation || p.gpu_generation)``."""
    return normalize_generation(or_(get(profile, "generation"), get(profile, "gpu_generation")))


def hardware_keyed_entry(mapping: Any, profile: Any, hw_id: str | None) -> tuple[str, Any]:
    """Key and value of a hardware-keyed map: exact id > generation > brand (lower case) >
    ``default`` (the first key whose value is not null); ``("", None)`` when none."""
    if not jsval.is_object(mapping):
        return "", None
    gen = profile_generation(profile)
    brand = get(profile, "brand")
    brand = brand.lower() if isinstance(brand, str) else None
    for key, usable in ((hw_id, hw_id is not None), (gen, truthy(gen)),
                        (brand, truthy(brand)), ("default", True)):
        if usable:
            value = get(mapping, key)
            if value is not None:
                return jsval.js_str(key), value
    return "", None


def hardware_keyed_value(mapping: Any, profile: Any, hw_id: str | None) -> Any:
    """Value of a hardware-keyed map: exact id > generation > brand (lower case) > default."""
    return hardware_keyed_entry(mapping, profile, hw_id)[1]


def _declared_tp(raw: Any, profile: Any, hw_id: str | None) -> Any:
    return raw if jsval.is_number(raw) else hardware_keyed_value(raw, profile, hw_id)


def is_strategy_supported_on_hardware(recipe: Any, name: str, profile: Any,
                                      hw_id: str | None) -> bool:
    """``strategy_hardware`` gate over ``compatible_strategies`` membership."""
    gate = hardware_keyed_value(get(get(recipe, "strategy_hardware"), name), profile, hw_id)
    if gate is not None:
        return bool(gate != "unsupported")
    return jsval.includes(or_(get(recipe, "compatible_strategies"), []), name,
                          "compatible_strategies")


def effective_compatible_strategies(recipe: Any) -> Any:
    """``compatible_strategies`` plus strategies granted ``supported`` in
    ``strategy_hardware`` (a list; whatever ``compatible_strategies`` holds when there is
    no grant, as the site returns it -- callers go through :mod:`jsval`)."""
    listed = or_(get(recipe, "compatible_strategies"), [])
    opt_ins = [
        s for s, mapping in jsval.entries(or_(get(recipe, "strategy_hardware"), {}))
        if not jsval.includes(listed, s, "compatible_strategies")
        and jsval.is_object(mapping) and jsval.in_list(jsval.values(mapping), "supported")
    ]
    if opt_ins:
        return [*jsval.spread(listed, "compatible_strategies", "/compatible_strategies"), *opt_ins]
    return listed


def compatible_list(recipe: Any, what: str) -> list[Any]:
    """:func:`effective_compatible_strategies` where the site iterates or spreads it."""
    return jsval.spread(effective_compatible_strategies(recipe), what,
                        "/compatible_strategies")


def find_compatible(recipe: Any, predicate: Any) -> Any:
    """``effectiveCompatibleStrategies(recipe).find(predicate)`` (only arrays have find)."""
    listed = effective_compatible_strategies(recipe)
    if not isinstance(listed, list):
        raise jsval.JsTypeError("effectiveCompatibleStrategies(...).find is not a function")
    return next((s for s in listed if predicate(s)), None)


def resolve_single_node_tp(recipe: Any, variant: Any, profile: Any,
                           strategy: str = "single_node_tp", hw_id: str | None = None) -> float:
    """Single-node TP size: variant ``tp`` > ``strategy_overrides.single_node_tp.tp`` >
    auto-fit (1 when the weights fit one GPU, else the whole node)."""
    if strategy != "single_node_tp":
        return jsval.number_or(get(profile, "gpu_count"), 1)
    for raw in (get(variant, "tp"),
                get(get(get(recipe, "strategy_overrides"), strategy), "tp")):
        tp = _declared_tp(raw, profile, hw_id)
        if jsval.is_number(tp) and tp > 0:
            capped: float = float(tp) if get(profile, "generation") == "cpu" else decided(
                profile, _capped_tp, tp)
            return capped
    fitted: float = decided(profile, _auto_fit_tp, get(variant, "vram_minimum_gb"))
    return fitted


def _capped_tp(profile: Any, tp: float) -> float:
    """A declared TP size, at most the node's GPU count (a hardware profile's decision:
    see :func:`~validator.render.hardware_reads.decided`)."""
    return jsval.js_min(tp, jsval.number_or(get(profile, "gpu_count"), 1))


def _auto_fit_tp(profile: Any, vram_minimum: Any) -> float:
    """1 when the weights fit one GPU, else the whole node (a hardware profile's
    decision: see :func:`~validator.render.hardware_reads.decided`)."""
    gpu_count = jsval.number_or(get(profile, "gpu_count"), 1)
    vram = get(profile, "vram_gb")
    per_gpu = jsval.div(jsval.to_number(vram), gpu_count) if truthy(vram) and truthy(
        gpu_count) else 0
    vram_min = or_(vram_minimum, 0)  # truthiness of the raw value ...
    if not truthy(vram_min) or not truthy(per_gpu) or per_gpu <= 0:
        return gpu_count
    return 1 if jsval.to_number(vram_min) <= per_gpu else gpu_count  # ... compared as a number


def recommend_strategy(recipe: Any, profile: Any = None, node_count: float = 1) -> Any:
    """The site's default strategy: ``default_strategy`` (its multi-node sibling above one
    node), else multi-node tp > dep > tep above one node, else ``single_node_tp``."""
    compatible = effective_compatible_strategies(recipe)
    explicit = get(recipe, "default_strategy")
    if truthy(explicit) and jsval.includes(compatible, explicit, "compatible"):
        if node_count > 1 and jsval.starts_with(explicit, "single_node_", "default_strategy"):
            sibling = re.sub(r"^single_node_", "multi_node_", explicit)
            if jsval.includes(compatible, sibling, "compatible"):
                return sibling
        else:
            return explicit
    if node_count > 1:
        for name in ("multi_node_tp", "multi_node_dep", "multi_node_tep"):
            if jsval.includes(compatible, name, "compatible"):
                return name
    if jsval.includes(compatible, "single_node_tp", "compatible"):
        return "single_node_tp"
    return or_(get(compatible, 0), "single_node_tp")


def follower_ranks(nodes: Any) -> list[int]:
    """Ranks of the follower nodes of an ``nodes``-node deployment: ``[1 .. nodes-1]``."""
    count = int(jsval.to_number(or_(nodes, 1))) - 1
    return list(range(1, max(0, count) + 1))


def _min_gpus_from_block(block: Any, key: str) -> Any:
    if block is None:
        return 0
    if jsval.is_number(block):
        return block
    return jsval.nullish(get(block, key), get(block, f"multi_node_{key}"),
                         get(block, f"single_node_{key}"), 0)


def min_gpus_for_strategy(recipe: Any, key: str, gpu_id: str | None) -> float:
    """The ``strategy_min_gpus`` floor of a strategy id or PD pool mode (0 when absent)."""
    cfg = get(recipe, "strategy_min_gpus")
    if cfg is None:
        return 0
    if jsval.is_number(cfg):
        return cfg  # type: ignore[no-any-return]
    exact = _min_gpus_from_block(get(cfg, gpu_id), key) if truthy(gpu_id) else 0
    return jsval.js_max(jsval.to_number(_min_gpus_from_block(cfg, key)), jsval.to_number(exact))


def nodes_for_strategy(recipe: Any, key: str, gpus_per_node: Any, gpu_id: str | None) -> float:
    """Nodes needed to clear that floor (at least 1)."""
    need = jsval.ceil(jsval.div(min_gpus_for_strategy(recipe, key, gpu_id),
                                jsval.to_number(or_(gpus_per_node, 8))))
    return need if truthy(need) else 1


def is_strategy_reachable(recipe: Any, key: str, deploy_type: Any, gpus_per_node: Any,
                          gpu_id: str | None) -> bool:
    """Whether the floor can be cleared within ``MAX_NODES`` (multi-node, PD) or one node."""
    scales = deploy_type in ("multi_node", "pd_cluster")
    capacity = (MAX_NODES if scales else 1) * jsval.to_number(or_(gpus_per_node, 8))
    return bool(capacity >= min_gpus_for_strategy(recipe, key, gpu_id))


def pd_pool_modes(recipe: Any) -> list[str]:
    """PD pool parallelism modes (subset of tp/tep/dep, never empty)."""
    modes: set[str] = set()
    for s in compatible_list(recipe, "compatible_strategies"):
        if s == "pd_cluster":
            continue
        text = jsval.js_str(s)
        if re.search(r"(?:^|_)dep\Z", text):
            modes.add("dep")
        elif re.search(r"(?:^|_)tep\Z", text):
            modes.add("tep")
        elif re.search(r"(?:^|_)tp(?:_pp|_dp)?\Z", text):
            modes.add("tp")
    if not modes:
        modes.add("tp")
    ordered: list[str] = [m for m in ("tp", "tep", "dep") if m in modes]
    restrict = get(get(get(recipe, "strategy_overrides"), "pd_cluster"), "pool_modes")
    if isinstance(restrict, list) and restrict:
        narrowed = [m for m in ordered if jsval.in_list(restrict, m)]
        if narrowed:
            ordered = narrowed
    return ordered


def precision_constraint(variant: Any) -> Any:
    """``precision_hardware`` or the built-in constraint of the variant's precision."""
    precision = get(variant, "precision")
    builtin = _PRECISION_CONSTRAINTS.get(precision) if isinstance(precision, str) else None
    return or_(get(variant, "precision_hardware"), builtin)


def matches_constraint(profile: Any, constraint: Any) -> bool:
    """Whether a hardware profile satisfies a brand/generation constraint."""
    if not truthy(constraint):
        return True
    brand = get(constraint, "brand")
    if truthy(brand) and get(profile, "brand") != brand:
        return False
    generation = get(constraint, "generation")
    if truthy(generation):
        gen = or_(get(profile, "generation"), get(profile, "gpu_generation"))
        gens = gen if isinstance(gen, list) else [gen]
        if not jsval.in_list(gens, generation):
            return False
    return True


def is_precision_compatible(profile: Any, variant: Any) -> bool:
    """Precision gate (NVFP4 needs Blackwell unless the variant says otherwise)."""
    return matches_constraint(profile, precision_constraint(variant))


def is_hardware_supported(recipe: Any, hw_id: str) -> bool:
    """False when ``meta.hardware.<id>`` is ``unsupported``."""
    return bool(get(get(get(recipe, "meta"), "hardware"), hw_id) != "unsupported")


def is_variant_hardware_supported(variant: Any, hw_id: str) -> bool:
    """The variant's ``supported_hardware`` allow-list (absent/empty: every profile)."""
    supported = get(variant, "supported_hardware")
    return not isinstance(supported, list) or not supported or jsval.in_list(supported, hw_id)


def list_compatible_hardware(profiles: Any, variant: Any, recipe: Any) -> list[str]:
    """Profiles a variant can render on (precision, recipe opt-out, variant allow-list)."""
    return [hw for hw, p in jsval.entries(profiles)
            if is_precision_compatible(p, variant) and is_hardware_supported(recipe, hw)
            and is_variant_hardware_supported(variant, hw)]


def picker_hardware(profiles: Any, variant: Any, recipe: Any) -> list[str]:
    """The hardware the site's picker shows: compatible profiles, ``restricted`` ones only
    where the recipe declares them in ``meta.hardware``."""
    declared = or_(get(get(recipe, "meta"), "hardware"), {})
    return [hw for hw in list_compatible_hardware(profiles, variant, recipe)
            if not truthy(get(get(profiles, hw), "restricted"))
            or jsval.js_in(hw, declared, jsval.js_str(declared))]


def picker_hardware_if_shown(profiles: Any, variant: Any, recipe: Any) -> list[str] | None:
    """:func:`picker_hardware`, or ``None`` where the site's code throws on this data (the
    page cannot render; REF014 reports it), for rules that read the picker alone."""
    try:
        return picker_hardware(profiles, variant, recipe)
    except (jsval.JsTypeError, OverflowError):
        return None


def pick_default_hardware(profiles: Any, variant: Any, recipe: Any) -> str:
    """The landing hardware: ``meta.default_hardware`` if it survives the filters, else
    b200/gb200 for Blackwell-only variants, else h200, else NVIDIA-first alphabetical."""
    constraint = precision_constraint(variant)
    declared = or_(get(get(recipe, "meta"), "hardware"), {})
    compatible = [
        (hw, p) for hw, p in jsval.entries(profiles)
        if matches_constraint(p, constraint) and is_hardware_supported(recipe, hw)
        and is_variant_hardware_supported(variant, hw)
        and (not truthy(get(p, "restricted")) or jsval.js_in(hw, declared, jsval.js_str(declared)))
    ]
    ids = [hw for hw, _ in compatible]
    authored = get(get(recipe, "meta"), "default_hardware")
    if truthy(authored) and authored in ids:
        return authored  # type: ignore[no-any-return]
    if get(constraint, "generation") == "blackwell":
        for hw in ("b200", "gb200"):
            if hw in ids:
                return hw
    if "h200" in ids:
        return "h200"
    order = {"NVIDIA": 0, "AMD": 1}

    def brand_rank(p: Any) -> int:
        brand = get(p, "brand")
        return order.get(brand, 9) if isinstance(brand, str) else 9

    compatible.sort(key=lambda item: (brand_rank(item[1]), _locale_key(item[0])))
    return compatible[0][0] if compatible else "h200"


def _locale_key(text: str) -> tuple[list[tuple[int, str]], str]:
    # String.prototype.localeCompare (ICU root collation) for the ASCII ids of the
    # taxonomy: punctuation < digits < letters, case-insensitive first, lower case before
    # upper case on ties.
    def weight(ch: str) -> tuple[int, str]:
        if ch.isdigit():
            return (1, ch)
        if ch.isalpha():
            return (2, ch.lower())
        return (0, ch)

    return ([weight(ch) for ch in text], text.swapcase())


def fits_single_node(profile: Any, variant: Any) -> bool:
    """Whether ``vram_minimum_gb`` fits one node's ``vram_gb`` (unknown sizes fit)."""
    node = jsval.number_or(get(profile, "vram_gb"), 0)
    model = jsval.to_number(or_(get(variant, "vram_minimum_gb"), 0))
    if model <= 0 or node <= 0:
        return True
    return bool(model <= node)


def is_hardware_scalable(profile: Any) -> bool:
    """False only for profiles declaring ``scalable: false``."""
    return get(profile, "scalable") is not False


def is_kv_store_brand_supported(profile: Any) -> bool:
    """Mooncake KV-store deployments exist for NVIDIA and AMD only."""
    return get(profile, "brand") in ("NVIDIA", "AMD")


def variant_runs_on_hardware(profile: Any, variant: Any, hw_id: str | None = None) -> bool:
    """Precision-compatible, allowed, and scalable or fitting one node."""
    if not is_precision_compatible(profile, variant):
        return False
    if hw_id and not is_variant_hardware_supported(variant, hw_id):
        return False
    return is_hardware_scalable(profile) or fits_single_node(profile, variant)


def pick_fitting_variant(recipe: Any, profile: Any, hw_id: str | None = None) -> str | None:
    """Largest-footprint variant that runs on (non-scalable) hardware, or ``None``."""
    fitting = [(k, v) for k, v in jsval.entries(or_(get(recipe, "variants"), {}))
               if variant_runs_on_hardware(profile, v, hw_id)]
    if not fitting:
        return None
    fitting.sort(key=lambda kv: -jsval.to_number(or_(get(kv[1], "vram_minimum_gb"), 0)))
    return fitting[0][0]


def pd_fits_single_node(profile: Any, variant: Any) -> bool:
    """Co-located PD needs 2 GPUs and twice the model's VRAM on one node."""
    if not truthy(profile) or not truthy(variant):
        return False
    if jsval.number_or(get(profile, "gpu_count"), 0) < 2:
        return False
    node = jsval.number_or(get(profile, "vram_gb"), 0)
    return bool(node >= 2 * jsval.to_number(or_(get(variant, "vram_minimum_gb"), 0)))


def is_mode_supported(mode: Any, profile: Any, hw_id: str | None) -> bool:
    """A feature mode's ``hardware`` gate (generation or id ``unsupported``)."""
    hw = get(mode, "hardware")
    if not jsval.is_object(hw):
        return True
    gen = profile_generation(profile)
    if truthy(gen) and get(hw, gen) == "unsupported":
        return False
    return not (truthy(hw_id) and get(hw, hw_id) == "unsupported")


def is_mode_allowed_for_variant(mode: Any, variant_key: str) -> bool:
    """A feature mode's ``variants`` allow-list."""
    allow = get(mode, "variants")
    return not isinstance(allow, list) or not allow or jsval.in_list(allow, variant_key)


def is_feature_allowed_for_strategy(feature: Any, strategy: str) -> bool:
    """A feature's ``strategies`` allow-list."""
    allow = get(feature, "strategies")
    return not isinstance(allow, list) or not allow or jsval.in_list(allow, strategy)


def resolve_mode_key(feature: Any, feature_key: str, variant: Any, variant_key: str,
                     profile: Any, hw_id: str | None, selected: Any) -> str | None:
    """The effective mode of a modal feature: the user's pick, the variant's
    ``default_modes``, the feature's ``default_mode``, else the first allowed mode."""
    modes = get(feature, "modes")
    if not jsval.is_object(modes):
        return None

    def allowed(key: str) -> bool:
        return _mode_allowed(modes, key, variant_key, profile, hw_id)

    # the site filters every mode, then looks the choices up in that list; judging only
    # the choices, and finding the first allowed mode once per modes object and gate,
    # gives the same key without judging every mode for every rendering (3,000 modes:
    # 3,000 renderings x 3,000)
    first: str | None = decided_by_hardware(profile, hw_id, _first_allowed_mode, modes,
                                            variant_key)
    if first is None:
        return None
    for choice in (selected, get(get(variant, "default_modes"), feature_key),
                   get(feature, "default_mode")):
        if truthy(choice) and isinstance(choice, str) and jsval.is_key(modes, choice) \
                and allowed(choice):
            return choice
    return first


_FIRST_ALLOWED: dict[tuple[int, Any], tuple[Any, int, str | None]] = {}
"""(id of a ``modes`` object, gate) -> (that object, its size, its first allowed key)."""


def _mode_allowed(modes: Any, key: str, variant_key: str, profile: Any,
                  hw_id: str | None) -> bool:
    mode = get(modes, key)
    return is_mode_allowed_for_variant(mode, variant_key) and \
        is_mode_supported(mode, profile, hw_id)


def _first_allowed_mode(profile: Any, hw_id: str | None, modes: Any,
                        variant_key: str) -> str | None:
    """The first mode of ``modes`` allowed for the variant on the hardware (a decision of
    the hardware: see :func:`~validator.render.hardware_reads.decided_by_hardware`)."""
    return _first_allowed(modes, (variant_key, profile_generation(profile), hw_id),
                          lambda key: _mode_allowed(modes, key, variant_key, profile, hw_id))


def _first_allowed(modes: Any, gate: tuple[Any, ...],
                   allowed: Callable[[str], bool]) -> str | None:
    """The first key of ``modes`` (JS order) that ``allowed`` admits, remembered per
    object (held, so its id is not reused) and gate: every configuration of a recipe
    asks of the same few."""
    try:
        key = (id(modes), gate)
        hash(key)
    except TypeError:  # an unhashable gate value: judge without remembering
        return next((k for k in jsval.keys(modes) if allowed(k)), None)
    held = _FIRST_ALLOWED.get(key)
    if held is not None and held[0] is modes and held[1] == len(modes):
        return held[2]
    first = next((k for k in jsval.keys(modes) if allowed(k)), None)
    if len(_FIRST_ALLOWED) >= 256:
        _FIRST_ALLOWED.clear()
    _FIRST_ALLOWED[key] = (modes, len(modes), first)
    return first
