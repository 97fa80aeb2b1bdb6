"""Where the site cannot render a configuration, or renders something broken.

The renderer never "fixes" a rendering: it renders what the site renders and describes
what is wrong as :class:`RenderProblem` values, each naming the document and JSON Pointer
of the YAML node to blame, for rules to turn into findings.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from validator.render import gates, jsval
from validator.render.documents import Documents, ptr
from validator.render.jsval import get, or_, truthy
from validator.render.omni import is_omni
from validator.render.site import compatible_once
from validator.render.types import RenderProblem as RenderProblem  # re-exported

if TYPE_CHECKING:
    from validator.render.configuration import Configuration, Process, Token

_BROKEN_TEXT = frozenset({"NaN", "undefined", "null", "Infinity", "-Infinity"})


def _find_in_list(data: Any, key: str, value: str) -> str:
    items = get(data, key)
    if isinstance(items, list):
        for index, item in enumerate(items):
            if item == value:
                return ptr(key, index)
    return ""


def configuration_problems(data: Any, tax: Any, strategies: Any, config: Configuration,
                           docs: Documents, memo: dict[Any, Any] | None = None,
                           ) -> Iterator[RenderProblem]:
    """Problems of the configuration itself (names the site does not know)."""
    memo = {} if memo is None else memo
    for part in _PARTS:
        yield from part(data, tax, strategies, config, docs, memo)


def configuration_problems_once(data: Any, tax: Any, strategies: Any, config: Configuration,
                                docs: Documents, memo: dict[Any, Any]
                                ) -> tuple[RenderProblem, ...]:
    """:func:`configuration_problems` of ``config``, each of its parts made once per
    distinct input in ``memo`` (a dict shared by the calls for one recipe, taxonomy and
    strategies): the hardware's, the variant's and strategy's, the not-offered ones of
    (hardware, strategy, choice), the KV offload's and the feature selection's. Ids of
    other types than ``str`` (the schema reports them) are judged afresh: ``1``, ``1.0``
    and ``True`` would share a key."""
    hw, variant, strategy, kv, features = config.hardware, config.variant, config.strategy, \
        config.kv_offload, config.features
    if type(hw) is not str or type(variant) is not str or type(strategy) is not str or \
            (kv is not None and type(kv) is not str) or not _strings(features, memo):
        return tuple(configuration_problems(data, tax, strategies, config, docs, memo))
    whole = ("problems", hw, variant, strategy, kv, features)
    out: tuple[RenderProblem, ...] | None = memo.get(whole)
    if out is not None:  # every part's key is made of these: the parts read no more
        return out
    out = ()
    for part, key in zip(_PARTS, (hw, (variant, strategy), (hw, strategy, kv),
                                  (kv, features)), strict=True):
        found = memo.get((part, key))
        if found is None:
            found = memo[part, key] = tuple(part(data, tax, strategies, config, docs, memo))
        out += found
    memo[whole] = out
    return out


def _strings(features: tuple[Any, ...], memo: dict[Any, Any]) -> bool:
    """Whether every item of ``features`` is a ``str``, found once per tuple in ``memo``
    (a configuration's features are one of a few tuples its variant's plan made: kept
    with the answer, so that the tuple's id cannot be reused meanwhile)."""
    hit = memo.get(("str-features", id(features)))
    if hit is None or hit[0] is not features:
        hit = memo["str-features", id(features)] = (
            features, all(type(f) is str for f in features))
    found: bool = hit[1]
    return found


def _hardware_problems(data: Any, tax: Any, strategies: Any, config: Configuration,
                       docs: Documents, memo: dict[Any, Any]) -> Iterator[RenderProblem]:
    profiles = or_(get(tax, "hardware_profiles"), {})
    if not isinstance(get(profiles, config.hardware), dict):
        where = "/meta/default_hardware" if get(get(data, "meta"), "default_hardware") == \
            config.hardware else ""
        yield RenderProblem(
            "unknown-hardware", "error",
            f"hardware {config.hardware!r} is not a profile of {docs.taxonomy}; the site "
            "renders it as a profile with no brand, generation or GPU count (1 GPU); "
            f"known: {_names(profiles)}", docs.recipe, where)


def _name_problems(data: Any, tax: Any, strategies: Any, config: Configuration,
                   docs: Documents, memo: dict[Any, Any]) -> Iterator[RenderProblem]:
    recipe = docs.recipe
    variants = or_(get(data, "variants"), {})
    if not isinstance(get(variants, config.variant), dict):
        fallback = "variant 'default'" if isinstance(get(variants, "default"), dict) else \
            "no variant at all"
        yield RenderProblem(
            "unknown-variant", "error",
            f"variant {config.variant!r} is not declared under variants; the site renders "
            f"{fallback} instead; declared: {_names(variants)}", recipe, "/variants")
    name = config.strategy
    if not isinstance(get(strategies, name), dict):
        where = _find_in_list(data, "compatible_strategies", name)
        if not where and get(data, "default_strategy") == name:
            where = "/default_strategy"
        yield RenderProblem(
            "unknown-strategy", "error",
            f"strategy {name!r} has no file under strategies/ (by its name field); the "
            "site renders it as a single-node strategy with no arguments; known: "
            f"{_names(strategies)}", recipe, where)


def _offer_problems(data: Any, tax: Any, strategies: Any, config: Configuration,
                    docs: Documents, memo: dict[Any, Any]) -> Iterator[RenderProblem]:
    offer = ("not-offered", config.hardware, config.strategy, config.key)
    if offer not in memo:  # the same for every variant and feature selection
        profiles = or_(get(tax, "hardware_profiles"), {})
        memo[offer] = tuple(_not_offered(data, profiles, strategies, config, docs.recipe,
                                         memo))
    yield from memo[offer]


def _selection_problems(data: Any, tax: Any, strategies: Any, config: Configuration,
                        docs: Documents, memo: dict[Any, Any]) -> Iterator[RenderProblem]:
    recipe = docs.recipe
    kv = config.kv_offload
    if kv is not None and get(get(strategies, kv), "deploy_type") != "kv_store_lb" and \
            not isinstance(get(get(tax, "kv_offload"), kv), dict):
        yield RenderProblem(
            "unknown-kv-offload", "warning",
            f"KV offload {kv!r} is neither a kv_store deployment nor a taxonomy kv_offload "
            "option; the site ignores it", recipe, "")
    features = or_(get(data, "features"), {})
    for name in config.features:
        if not isinstance(get(features, name), dict):
            yield RenderProblem(
                "unknown-feature", "warning",
                f"feature {name!r} is not declared under features; the site skips it; "
                f"declared: {_names(features)}", recipe, "/features")


_PARTS = (_hardware_problems, _name_problems, _offer_problems, _selection_problems)
"""The parts of :func:`configuration_problems`, in its order: each reads only the parts of
the configuration :func:`configuration_problems_once` keys it by."""


def _names(mapping: Any) -> str:
    return ", ".join(jsval.keys(mapping)) or "none"


def _not_offered(data: Any, profiles: Any, strategies: Any, config: Configuration,
                 recipe: str, memo: dict[Any, Any]) -> Iterator[RenderProblem]:
    profile = get(profiles, config.hardware)
    if not isinstance(profile, dict) or not isinstance(get(strategies, config.strategy), dict):
        return
    try:
        offered = compatible_once(data, profile, config.hardware, strategies, memo)
    except jsval.JsTypeError:
        return
    if not jsval.in_list(offered, config.key):
        try:
            why = _strategy_why(data, profile, config.hardware, strategies, config.key)
        except jsval.JsTypeError:
            why = ""
        yield RenderProblem(
            "not-offered", "warning",
            f"the site does not offer {config.key!r} on {config.hardware} for this recipe"
            f"{f': {why}' if why else ''}; offered: "
            f"{', '.join(map(jsval.js_str, offered)) or 'none'}; rendered anyway",
            recipe, "/compatible_strategies")


def _strategy_why(data: Any, profile: Any, hw: str, strategies: Any, key: str) -> str:
    """Which gate of the site's strategy list drops ``key`` on ``hw``."""
    deploy = get(get(strategies, key), "deploy_type")
    scalable = gates.is_hardware_scalable(profile)
    if deploy == "kv_store_lb":
        if not scalable:
            return f"{hw} does not scale out (scalable: false)"
        if not gates.is_kv_store_brand_supported(profile):
            return "Mooncake kv-store deployments run on NVIDIA and AMD hardware only"
        return f"kv_cache_strategy_hardware marks {hw} unsupported"
    gate = gates.hardware_keyed_value(get(get(data, "strategy_hardware"), key), profile, hw)
    if gate == "unsupported":
        return f"strategy_hardware marks it unsupported on {hw}"
    if gate is None and not jsval.includes(or_(get(data, "compatible_strategies"), []), key,
                                           "compatible_strategies"):
        return "it is not in compatible_strategies"
    if not gates.is_strategy_reachable(data, key, deploy, get(profile, "gpu_count"), hw):
        return (f"its strategy_min_gpus floor is more GPUs than {hw} reaches "
                f"(up to {gates.MAX_NODES} nodes)" if deploy in ("multi_node", "pd_cluster")
                else "its strategy_min_gpus floor is more GPUs than one node of "
                f"{hw} has")
    return f"{hw} does not scale out (scalable: false)"


def selection_problems(data: Any, tax: Any, config: Configuration, recipe: str
                       ) -> list[RenderProblem]:
    """Choices the site's page would not let a user make beyond the names of
    :func:`configuration_problems`: a mode (``feature_modes``) of a feature that is not
    declared, has no ``modes``, is off in this configuration (the site applies a mode to an
    enabled feature only), a mode the feature does not declare, or one not available on
    this variant and hardware (the site falls back to another mode there); and an
    ``omni_task`` the recipe has no entry for. Codes ``unknown-mode`` and
    ``unknown-omni-task``."""
    out: list[RenderProblem] = []
    features = or_(get(data, "features"), {})
    modal = ", ".join(k for k in jsval.keys(features)
                      if jsval.is_object(get(get(features, k), "modes"))) or "none"
    for name, mode in config.feature_modes:
        feature = get(features, name)
        modes = get(feature, "modes")
        where = ptr("features", name, "modes")
        if not isinstance(feature, dict):
            message = (f"feature {name!r} is not declared under features; features with "
                       f"modes: {modal}")
            where = "/features"
        elif not jsval.is_object(modes):
            message = (f"feature {name!r} has no modes (it is only on or off); features "
                       f"with modes: {modal}")
            where = ptr("features", name)
        elif not jsval.is_key(modes, mode):
            message = f"feature {name!r} has no mode {mode!r}; its modes: {_names(modes)}"
        elif name not in config.features:
            message = (f"feature {name!r} is off in this configuration, and the site applies "
                       f"a mode only to a feature that is on (on: "
                       f"{', '.join(config.features) or 'none'}); add it to --features")
        else:
            message = _mode_unavailable(data, tax, config, name, mode) or ""
        if message:
            out.append(RenderProblem("unknown-mode", "error", message, recipe, where))
    if config.omni_task is not None:
        tasks = get(get(data, "omni"), "tasks")
        known = [jsval.js_str(t.get("id")) for t in tasks if isinstance(t, dict)] \
            if isinstance(tasks, list) else []
        if not is_omni(data):
            out.append(RenderProblem(
                "unknown-omni-task", "error", "the recipe is not a vLLM-Omni recipe "
                "(meta.tasks has no 'omni'); it has no omni.tasks", recipe, "/meta"))
        elif config.omni_task not in known:
            out.append(RenderProblem(
                "unknown-omni-task", "error", f"no omni.tasks entry has the id "
                f"{config.omni_task!r}; known: {', '.join(known) or 'none'}", recipe,
                "/omni/tasks" if known else ""))
    return out


def _mode_unavailable(data: Any, tax: Any, config: Configuration, name: str,
                      mode: str) -> str | None:
    """Why the page offers no ``mode`` of feature ``name`` on this variant and hardware
    (``None`` when it does)."""
    feature = get(get(data, "features"), name)
    modes = get(feature, "modes")
    variant = or_(get(get(data, "variants"), config.variant), {})
    profile = get(get(tax, "hardware_profiles"), config.hardware)
    spec = get(modes, mode)  # one of its modes (the caller checked): judged alone
    if gates.is_mode_allowed_for_variant(spec, config.variant) and \
            gates.is_mode_supported(spec, profile, config.hardware):
        return None
    if not gates.is_mode_allowed_for_variant(spec, config.variant):
        why = (f"its variants: {', '.join(map(jsval.js_str, get(spec, 'variants')))}")
    else:
        why = f"its hardware map marks {config.hardware} unsupported"
    used = gates.resolve_mode_key(feature, name, variant, config.variant, profile,
                                  config.hardware, mode)
    instead = f"the site renders mode {used!r} instead" if used else \
        "the site renders none of its modes here"
    offered = [k for k in jsval.keys(modes)
               if gates.is_mode_allowed_for_variant(get(modes, k), config.variant)
               and gates.is_mode_supported(get(modes, k), profile, config.hardware)]
    return (f"mode {mode!r} of feature {name!r} is not offered on {config.variant} · "
            f"{config.hardware} ({why}); {instead}; modes offered here: "
            f"{', '.join(offered) or 'none'}")


def not_offered_reasons(data: Any, tax: Any, strategies: Any, config: Configuration,
                        picker: Sequence[str] | None, problems: Sequence[RenderProblem],
                        memo: dict[Any, Any] | None = None) -> list[str]:
    """Why the site's page would not offer this configuration, one sentence per reason
    (empty: it offers it): hardware outside the variant's picker, a variant too large for
    hardware that does not scale out, a strategy not offered on
    that hardware (the ``not-offered`` problems of the rendering), a node count the Nodes
    row does not offer for the strategy. ``picker`` is the picker's hardware list of the
    variant (empty or ``None``: the page cannot show it, no hardware reason); ``memo`` a
    dict shared by the calls for one recipe."""
    reasons = []
    try:
        profile = get(get(tax, "hardware_profiles"), config.hardware)
        if picker and isinstance(profile, dict) and config.hardware not in picker:
            reasons.append(_hardware_reason(data, profile, config, picker))
        reasons += [p.message for p in problems if p.code == "not-offered"]
        if isinstance(profile, dict) and not is_omni(data):  # no variant swap, no nodes
            reasons += _variant_reason(data, profile, config)
            reasons += _nodes_reasons(data, tax, profile, strategies, config,
                                      {} if memo is None else memo)
    except (jsval.JsTypeError, OverflowError):  # the site throws here: problems report it
        pass
    return reasons


def _variant_reason(data: Any, profile: Any, config: Configuration) -> list[str]:
    """A variant too large for hardware that does not scale out: the site shows the largest
    variant that fits instead (or no command at all)."""
    variant = get(get(data, "variants"), config.variant)
    if not isinstance(profile, dict) or not isinstance(variant, dict) or \
            gates.is_hardware_scalable(profile) or gates.fits_single_node(profile, variant):
        return []
    fitting = gates.pick_fitting_variant(data, profile, config.hardware)
    instead = f"shows variant {fitting} instead" if fitting else "renders no variant there"
    return [f"variant {config.variant} needs "
            f"{jsval.js_str(get(variant, 'vram_minimum_gb'))} GB, more than one "
            f"{config.hardware} ({jsval.js_str(get(profile, 'vram_gb'))} GB), which does not "
            f"scale out (scalable: false); the site {instead}"]


def _hardware_reason(data: Any, profile: Any, config: Configuration,
                     picker: Sequence[str]) -> str:
    hw, key = config.hardware, config.variant
    variant = or_(get(get(data, "variants"), key), get(get(data, "variants"), "default"), {})
    why = []
    if not gates.is_hardware_supported(data, hw):
        why.append("the recipe marks it unsupported in meta.hardware")
    if not gates.is_variant_hardware_supported(variant, hw):
        why.append(f"variant {key}'s supported_hardware does not list it")
    if not gates.is_precision_compatible(profile, variant):
        constraint = gates.precision_constraint(variant)
        needs = " ".join(jsval.js_str(get(constraint, k)) for k in ("brand", "generation")
                         if truthy(get(constraint, k)))
        why.append(f"variant {key}'s precision {jsval.js_str(get(variant, 'precision'))} "
                   f"needs {needs} hardware")
    declared = or_(get(get(data, "meta"), "hardware"), {})
    if truthy(get(profile, "restricted")) and not jsval.js_in(hw, declared,
                                                              jsval.js_str(declared)):
        why.append("it is a restricted profile and meta.hardware does not declare it")
    return (f"{hw} is not in the site's hardware picker for variant {key} "
            f"({'; '.join(why) or 'filtered out'}); the picker offers: {', '.join(picker)}")


def _nodes_reasons(data: Any, tax: Any, profile: Any, strategies: Any,
                   config: Configuration, memo: dict[Any, Any]) -> list[str]:
    from validator.render.site import plan_variant

    deploy = get(get(strategies, config.strategy), "deploy_type")
    nodes, name = config.nodes, config.strategy
    key = ("plan", config.variant, config.hardware)
    if key not in memo:
        memo[key] = plan_variant(data, config.variant, config.hardware, strategies, tax)
    plan = memo[key]
    if plan is not None and any(p.key == config.key and jsval.to_number(p.nodes) == nodes
                                for p in plan.configurations):
        return []  # the node count the site's build renders this strategy at
    out = []
    if nodes > gates.MAX_NODES:
        out.append(f"{nodes} nodes: the site's Nodes row stops at {gates.MAX_NODES}")
    if deploy == "multi_node":
        need = max(2, int(jsval.to_number(gates.nodes_for_strategy(
            data, name, get(profile, "gpu_count"), config.hardware))))
        advice = (f"pass --nodes {need}" if need <= gates.RENDER_MAX_NODES else
                  f"more than the {gates.RENDER_MAX_NODES} --nodes accepts")
        if nodes < 2:
            out.append(f"{name} at 1 node: the site offers a multi-node strategy at 2 nodes "
                       f"or more (at 1 node it renders a single-node command); {advice}")
        elif nodes < need:
            out.append(f"{name} at {nodes} nodes: its strategy_min_gpus floor needs {need} "
                       f"nodes of {config.hardware}; {advice}")
    elif deploy == "single_node" and nodes > 1:
        out.append(f"{name} is a single-node strategy: the site renders it at 1 node only "
                   f"(at {nodes} nodes it picks a multi-node strategy)")
    return out


def output_problems(site: dict[str, Any], processes: Sequence[Process], docs: Documents,
                    config: Configuration, env_sources: Mapping[str, Token] | None = None,
                    faults: dict[int, tuple[Sequence[Process], tuple[Fault, ...]]] | None = None,
                    ) -> list[RenderProblem]:
    """Problems visible in what the site renders (broken commands); ``env_sources`` (env key
    -> origin) places env problems on their YAML line. ``faults``: a dict shared by the
    calls for one recipe, where the faults of each processes tuple are found once (the
    configurations that reuse a rendering share its processes)."""
    if not (isinstance(config.hardware, str) and isinstance(config.variant, str)
            and isinstance(config.key, str)):
        # an id of another type (``compatible_strategies: [0]``: the schema reports it)
        # names no configuration: the rendering fails here, as it did when every label was
        # made at once, and the render rules add nothing (render.cache)
        raise TypeError(f"a configuration id is not a string: {config!r}")
    env_sources = env_sources or {}
    out: list[RenderProblem] = []
    label = None
    for kind, proc, token, key in _faults(processes, faults):
        label = label or config.label()
        if kind == "model":
            out.append(RenderProblem(
                "no-model-id", "error",
                f"{label}: neither the variant nor model.model_id gives a model id; the site "
                "renders `vllm serve unknown`", docs.recipe, "/model"))
        elif kind == "token" and token is not None:
            out.append(RenderProblem(
                "broken-value", "error",
                f"{label}: the {proc.role} command contains {token.text!r} (from "
                f"{token.layer}): the value there cannot be rendered", token.document,
                token.pointer))
        else:
            value = proc.env[key]
            text = jsval.js_str(value)
            origin = env_sources.get(key)
            out.append(RenderProblem(
                "broken-value", "error",
                f"{label}: env {key} holds {_kind(value)}, which the site renders as "
                f"`-e {key}={text}`", origin.document if origin else docs.recipe,
                origin.pointer if origin else ""))
    if site.get("deploy_type") == "kv_store_lb" and site.get("vllm_argv") is None:
        # (no vLLM command: its argv is made with its text, which a rendering without
        # texts does not hold)
        label = label or config.label()
        out.append(_kv_store_as_strategy(label, config.strategy, docs))
    if site.get("docker_image") is None:
        out.append(RenderProblem(
            "no-docker-image", "warning",
            f"{label or config.label()}: the site has no Docker image for this hardware (it "
            "renders `undefined`); set model.docker_image", docs.recipe, "/model/docker_image"))
    return _unique(out) if len(out) > 1 else out


Fault = tuple[str, "Process", "Token | None", Any]
"""A broken part of a rendered process: ``("model", process, None, None)`` a model id the
site renders as ``unknown``, ``("token", process, token, None)`` an argument that cannot be
rendered, ``("env", process, None, key)`` an env value that is a mapping, a list or
null."""


def _faults(processes: Sequence[Process],
            memo: dict[int, tuple[Sequence[Process], tuple[Fault, ...]]] | None
            ) -> tuple[Fault, ...]:
    """The :data:`Fault` values of ``processes`` in order, found once per processes tuple
    in ``memo`` (kept with the tuple, so that its id cannot be reused meanwhile)."""
    hit = memo.get(id(processes)) if memo is not None else None
    if hit is not None and hit[0] is processes:
        return hit[1]
    found: list[Fault] = []
    for proc in processes:
        if len(proc.argv) > 2 and proc.argv[2] == "unknown":
            found.append(("model", proc, None, None))
        for token in proc.tokens[3:]:
            # a YAML string that reads "null" is the author's (an item of a list as
            # written); a number the renderer computed (NaN, Infinity) or an object it
            # stringified is broken
            text = token.text
            if "[object Object]" in text or (text in _BROKEN_TEXT and not token.pointer.rsplit(
                    "/", 1)[-1].isdigit()):
                found.append(("token", proc, token, None))
        found += [("env", proc, None, key) for key, value in proc.env.items()
                  if isinstance(value, dict | list) or value is None]
    if memo is not None:
        memo[id(processes)] = (processes, tuple(found))
    return tuple(found)


def _kv_store_as_strategy(label: str, strategy: Any, docs: Documents) -> RenderProblem:
    """The rendering of ``strategy`` found a kv-store deployment under that name: the
    recipe's doing when the deployment's file is named so (it names a kv store as its
    strategy), else the doing of the kv-store file claiming the name (``REF027``), where
    the problem is placed (its ``name``)."""
    name = jsval.js_str(strategy)
    path = docs.strategy(strategy)
    claimed = path.rsplit("/", 1)[-1].rsplit(".", 1)[0] != name
    return RenderProblem(
        "broken-value", "error",
        f"{label}: {strategy!r} is a kv-store deployment, not a serving strategy; the site "
        "renders no vLLM command for it " + (
            f"({path} claims the name {name!r})" if claimed else
            "(name it as the KV offload instead)"),
        path if claimed else docs.recipe, "/name" if claimed else "")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return "a mapping" if isinstance(value, dict) else "a list"


def _unique(problems: list[RenderProblem]) -> list[RenderProblem]:
    seen: set[RenderProblem] = set()
    out = []
    for p in problems:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out
