"""The site build's choices for one (recipe, variant, hardware): which configurations it
renders and the JSON it writes for each.

Behaviour of the per-configuration half of the site's ``build-recipes-api.mjs``: default
features, PD node sizing, the recommended strategy and the alternatives per hardware
(:func:`plan_variant`), and the snake_case JSON of one rendering with its ``docker run``
forms (:func:`site_rendering`). The file layout of the static API is
:mod:`validator.render.api`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from validator.render import gates, jsval
from validator.render.docker import (
    BASE_CUDA,
    EnvFlags,
    build_docker_argv,
    build_docker_run,
    compute_docker_meta,
    env_flags,
)
from validator.render.documents import Documents
from validator.render.hardware_reads import hardware_profile, raw_id, touch, traced_call
from validator.render.jsval import get, or_, truthy
from validator.render.synthesis import plain, resolve_command_traced
from validator.sourcemap import join_pointer


@dataclass(frozen=True)
class Planned:
    """One configuration the site's build renders for a (variant, hardware).

    ``key`` is the alternative's name (the strategy id, or the kv-store id for a Mooncake
    composition); ``strategy`` the serving strategy passed to ``resolveCommand``.
    """

    key: str
    strategy: str
    nodes: Any
    features: tuple[str, ...]
    pd_nodes: dict[str, Any] | None = None
    kv_offload: str | None = None
    recommended: bool = False


@dataclass(frozen=True)
class VariantPlan:
    """What the build renders for one variant on one hardware profile.

    ``variant`` may differ from the variant asked for: on non-scalable hardware the build
    substitutes the largest variant that fits.
    """

    variant: str
    hardware: str
    compatible: tuple[str, ...]
    configurations: tuple[Planned, ...] = field(default_factory=tuple)


def default_features_for(recipe: Any, hw_id: str, variant_key: str = "default") -> list[str]:
    """Every feature minus ``opt_in_features`` and ``hardware_opt_in_features[hw]``, except
    features the variant forces on through ``default_modes``."""
    opt_in = {jsval.js_str(f) for f in jsval.spread(or_(get(recipe, "opt_in_features"), []),
                                                    "opt_in_features", "/opt_in_features")}
    hw_opt = or_(get(get(recipe, "hardware_opt_in_features"), hw_id), [])
    opt_in |= {jsval.js_str(f) for f in jsval.spread(
        hw_opt, "hardware_opt_in_features", join_pointer("/hardware_opt_in_features", hw_id))}
    forced = set(jsval.keys(or_(get(get(get(recipe, "variants"), variant_key),
                                    "default_modes"), {})))
    return [f for f in jsval.keys(or_(get(recipe, "features"), {}))
            if f in forced or f not in opt_in]


def pick_pd_nodes(profile: Any, variant: Any, recipe: Any, strategies: Any,
                  hw_id: str) -> dict[str, Any] | str | None:
    """Per-role PD node counts: ``None`` (co-located), ``{prefill, decode}``, or
    ``"skip"`` (more than 4 nodes per role)."""
    if gates.pd_fits_single_node(profile, variant):
        return None
    node_vram = jsval.number_or(get(profile, "vram_gb"), 0)
    model_vram = jsval.to_number(or_(get(variant, "vram_minimum_gb"), 0))
    if node_vram <= 0 or model_vram <= 0:
        return None
    per_role = jsval.ceil(model_vram / node_vram)
    if per_role > 4:
        return "skip"

    def floored(role: str) -> Any:
        par = or_(get(get(get(get(recipe, "strategy_overrides"), "pd_cluster"), role),
                      "parallelism"),
                  get(get(get(strategies, "pd_cluster"), role), "parallelism"), "tp")
        need = gates.nodes_for_strategy(recipe, jsval.js_str(par), get(profile, "gpu_count"),
                                        hw_id)
        return _int(jsval.js_max(per_role, need))

    return {"prefill": floored("prefill"), "decode": floored("decode")}


def _int(x: float) -> Any:
    return int(x) if isinstance(x, float) and x.is_integer() else x


def kv_store_ids(strategies: Any) -> list[str]:
    """Ids of the kv-store deployments (``deploy_type: kv_store_lb``), in load order."""
    return [s for s in jsval.keys(strategies)
            if get(get(strategies, s), "deploy_type") == "kv_store_lb"]


def compatible_strategies(recipe: Any, profile: Any, hw_id: str, strategies: Any) -> list[str]:
    """Strategies (and kv-store deployments) the build offers on this hardware."""
    scalable = gates.is_hardware_scalable(profile)
    gpus = get(profile, "gpu_count")
    names: list[Any] = []
    for s in [*gates.compatible_list(recipe, "compatible_strategies"),
              *kv_store_ids(strategies)]:
        if not jsval.in_list(names, s):
            names.append(s)
    out: list[str] = []
    for s in names:
        spec = get(strategies, s)
        if get(spec, "deploy_type") == "kv_store_lb":
            if (scalable and gates.is_kv_store_brand_supported(profile) and get(get(get(
                    recipe, "kv_cache_strategy_hardware"), s), hw_id) != "unsupported"):
                out.append(s)
            continue
        if not gates.is_strategy_supported_on_hardware(recipe, s, profile, hw_id):
            continue
        if not gates.is_strategy_reachable(recipe, jsval.js_str(s), get(spec, "deploy_type"),
                                           gpus, hw_id):
            continue
        text = jsval.js_str(s)
        if scalable or (not text.startswith("multi_node_") and text != "pd_cluster"):
            out.append(s)
    return out


def compatible_once(recipe: Any, profile: Any, hw_id: str, strategies: Any,
                    memo: dict[Any, Any] | None) -> list[str]:
    """:func:`compatible_strategies`, found once per hardware id in ``memo`` (a dict shared
    by the calls for one recipe, taxonomy and strategies; ``None``: none) and raising as
    it does. Ids of other types than ``str`` are not kept (``1`` and ``True`` would share
    a key)."""
    if memo is None or type(hw_id) is not str:
        return compatible_strategies(recipe, profile, hw_id, strategies)
    found: tuple[list[str], jsval.JsTypeError | None] | None = memo.get(("compatible", hw_id))
    if found is None:
        try:
            found = (compatible_strategies(recipe, profile, hw_id, strategies), None)
        except jsval.JsTypeError as exc:
            found = ([], exc)
        memo["compatible", hw_id] = found
    if found[1] is not None:
        raise found[1]
    return list(found[0])


def plan_variant(recipe: Any, variant_key: str, hw_id: str, strategies: Any,
                 taxonomy: Any, memo: dict[Any, Any] | None = None) -> VariantPlan | None:
    """The configurations ``buildVariantRendering`` renders (recommended first), or
    ``None`` where the build renders nothing (omni recipe, unknown variant, nothing fits,
    a PD recommendation that would need more than 4 nodes per role). ``memo``: a dict
    shared by the calls for one recipe, taxonomy and strategies, where the strategies
    offered on each hardware are found once (:func:`compatible_once`)."""
    chosen = _variant_on_hardware(recipe, variant_key, hw_id, taxonomy)
    if chosen is None:
        return None
    variant_key, variant, profile = chosen
    scalable = gates.is_hardware_scalable(profile)
    gpus = get(profile, "gpu_count")
    compatible = compatible_once(recipe, profile, hw_id, strategies, memo)
    multi = scalable and any(jsval.js_str(s).startswith("multi_node_") for s in compatible)
    base_nodes = 2 if not gates.fits_single_node(profile, variant) and multi else 1
    recommended = _recommended_strategy(recipe, profile, base_nodes, compatible, strategies)
    features = tuple(default_features_for(recipe, hw_id, variant_key))
    rec_nodes = _int(jsval.js_max(base_nodes, jsval.to_number(
        _nodes_for(recipe, strategies, recommended, gpus, hw_id))))
    rec_pd = (pick_pd_nodes(profile, variant, recipe, strategies, hw_id)
              if recommended == "pd_cluster" else None)
    if rec_pd == "skip":
        return None
    planned = [Planned(recommended, recommended, rec_nodes, features,
                       rec_pd if isinstance(rec_pd, dict) else None, None, True)]
    for s in compatible:
        if s != recommended:
            other = _plan_alternative(recipe, variant, profile, hw_id, strategies, s)
            if other is not None:
                serving_strategy, nc, pd, kv = other
                planned.append(Planned(s, serving_strategy, nc, features, pd, kv))
    return VariantPlan(variant_key, hw_id, tuple(compatible), tuple(planned))


def _variant_on_hardware(recipe: Any, variant_key: str, hw_id: str, taxonomy: Any
                         ) -> tuple[str, Any, Any] | None:
    """(variant key, variant, hardware profile) the build renders for ``variant_key`` on
    ``hw_id`` (a fitting variant when it does not fit one node), or ``None``."""
    variant = get(get(recipe, "variants"), variant_key)
    if not truthy(variant):
        return None
    if jsval.in_list(or_(get(get(recipe, "meta"), "tasks"), []), "omni"):
        return None
    profile = or_(get(get(taxonomy, "hardware_profiles"), hw_id), {})
    if not gates.is_hardware_scalable(profile) and not gates.fits_single_node(profile, variant):
        fitting = gates.pick_fitting_variant(recipe, profile, hw_id)
        if fitting is None:
            return None
        variant_key, variant = fitting, get(get(recipe, "variants"), fitting)
    return variant_key, variant, profile


def _recommended_strategy(recipe: Any, profile: Any, base_nodes: int, compatible: list[str],
                          strategies: Any) -> Any:
    """The recipe's recommendation, or the first compatible serving strategy (PD last)
    when the recommendation is not compatible."""
    recommended = gates.recommend_strategy(recipe, profile, base_nodes)
    if not jsval.in_list(compatible, recommended):
        def serving(s: str) -> bool:
            return bool(get(get(strategies, s), "deploy_type") != "kv_store_lb")

        recommended = (next((s for s in compatible if serving(s) and s != "pd_cluster"), None)
                       or next((s for s in compatible if serving(s)), None) or recommended)
    return recommended


def _nodes_for(recipe: Any, strategies: Any, s: str, gpus: Any, hw_id: str) -> Any:
    """Nodes strategy ``s`` needs (at least 2 for a multi-node deployment)."""
    base = 2 if get(get(strategies, s), "deploy_type") == "multi_node" else 1
    return _int(jsval.js_max(base, gates.nodes_for_strategy(recipe, s, gpus, hw_id)))


def _kv_serving_for(recipe: Any, profile: Any, strategies: Any, nc: int) -> Any:
    """The serving strategy a kv-store deployment on ``nc`` nodes runs (falsy: none)."""
    def ok(name: Any) -> bool:
        spec = get(strategies, name)
        d = get(spec, "deploy_type")
        if not truthy(spec) or d in ("pd_cluster", "kv_store_lb"):
            return False
        return bool(d == "multi_node" if nc > 1 else d != "multi_node")

    rec = gates.recommend_strategy(recipe, profile, nc)
    if ok(rec):
        return rec
    return gates.find_compatible(recipe, ok)


def _plan_alternative(recipe: Any, variant: Any, profile: Any, hw_id: str, strategies: Any,
                      s: str) -> tuple[Any, Any, Any, str | None] | None:
    """(serving strategy, node count, PD nodes, kv-store deployment) of the non-recommended
    strategy ``s``, or ``None`` when the build skips it."""
    gpus = get(profile, "gpu_count")
    pd: Any = None
    serving_strategy: Any = s
    kv: str | None = None
    if s == "pd_cluster":
        pd = pick_pd_nodes(profile, variant, recipe, strategies, hw_id)
        if pd == "skip":
            return None
        nc: Any = 1
    elif get(get(strategies, s), "deploy_type") == "kv_store_lb":
        nc = 1 if gates.fits_single_node(profile, variant) else 2
        serving_strategy = _kv_serving_for(recipe, profile, strategies, nc)
        if not serving_strategy and nc == 2:
            nc = 1
            serving_strategy = _kv_serving_for(recipe, profile, strategies, 1)
        if not serving_strategy:
            return None
        if get(get(strategies, serving_strategy), "deploy_type") == "multi_node":
            nc = _int(jsval.js_max(nc, gates.nodes_for_strategy(recipe, serving_strategy,
                                                                gpus, hw_id)))
        kv = s
    else:
        nc = _nodes_for(recipe, strategies, s, gpus, hw_id)
    return serving_strategy, nc, pd, kv


def site_rendering_traced(recipe: Any, variant_key: str, strategy: str, hw_id: str,
                          node_count: Any, features: Sequence[Any], strategies: Any,
                          taxonomy: Any, pd_nodes: Any = None, kv_offload: Any = None,
                          docs: Documents | None = None, feature_modes: Any = None,
                          advanced: Sequence[Any] = (), kv_instances: Any = None,
                          docker_forms: bool = True, cuda: str = BASE_CUDA,
                          command_texts: bool = True,
                          ) -> tuple[dict[str, Any], dict[str, Any]]:
    """``renderCommand`` of the build: the JSON of one rendering, plus the traced
    ``resolveCommand`` result it was made from (argv tokens with provenance).
    ``docker_forms=False``: every ``docker run`` command and argv is ``None`` (formatted
    from the command, argv, environment and image, which are all made);
    ``command_texts=False`` too: every ``vllm serve`` command text is ``None``.

    Raises:
        jsval.JsTypeError: where the site's synthesis throws (its build then skips the
            configuration with a warning).
    """
    traced = resolve_command_traced(recipe, variant_key, strategy, hw_id, features, strategies,
                                    taxonomy, advanced, node_count, pd_nodes, feature_modes,
                                    kv_offload, kv_instances, docs,
                                    texts=command_texts or docker_forms)
    result = plain(traced)
    variant = get(get(recipe, "variants"), variant_key)
    if not truthy(variant):  # ``variants[key] || variants.default || {}``: the default is
        # read only here (the renderings' key holds it only then: recipe_reads)
        variant = or_(get(get(recipe, "variants"), "default"), {})
    meta = _docker_meta(recipe, variant_key, variant, hw_id, taxonomy, docs, cuda)
    env = or_(result.get("env"), {})

    flags_of: dict[int, tuple[Any, EnvFlags]] = {}  # env id -> (env, its flags)
    shared = docs.cache if docs is not None else {}

    def dockerize(command: Any, argv: Any, env: Any, port: int = 8000) -> dict[str, Any]:
        if not docker_forms:
            return {"docker_command": None, "docker_argv": None}
        known = flags_of.get(id(env))
        if known is None or known[0] is not env:
            known = flags_of[id(env)] = (env, env_flags(env))
        flags = known[1]
        return {"docker_command": docker_run_once(command, env, meta, port, flags, shared),
                "docker_argv": build_docker_argv(argv, env, meta, port, flags)}

    deploy = result["deployType"]
    base: dict[str, Any] = {"hardware": raw_id(hw_id), "strategy": strategy, "variant": variant_key,
                            "node_count": node_count, "deploy_type": deploy, "env": env,
                            "docker_image": meta.image}
    if deploy == "multi_node" and "headCommand" in result:
        out = _multi_node_rendering(result, base, env, dockerize)
    elif deploy == "pd_cluster":
        out = _pd_rendering(result, base, dockerize)
    elif deploy == "kv_store_lb":
        out = _kv_rendering(result, base, strategy, kv_offload, strategies, dockerize)
    else:
        out = {**base, "command": result["command"], "argv": result["argv"],
               **dockerize(result["command"], result["argv"], env)}
        if "companions" in result:
            out["companions"] = result["companions"]
    return out, traced


def docker_run_once(command: Any, env: Any, meta: Any, port: int, flags: EnvFlags,
                    shared: dict[Any, Any]) -> str:
    """:func:`build_docker_run` of ``command`` (``flags``: those of ``env``), made once per
    distinct string command, flags, image, GPU flags and port in ``shared`` (the recipe's
    :attr:`Documents.cache`): renderings on other hardware of one brand, or differing
    only where the command does not, wrap the same command the same way."""
    image, gpu_flags = meta.image, meta.gpu_flags
    if type(command) is not str or not (image is None or type(image) is str) \
            or type(gpu_flags) is not str:
        return build_docker_run(command, env, image, gpu_flags, port, flags)
    key = ("docker-run", command, flags, image, gpu_flags, port)
    found: str | None = shared.get(key)
    if found is None:
        found = shared[key] = build_docker_run(command, env, image, gpu_flags, port, flags)
    return found


def _docker_meta(recipe: Any, variant_key: str, variant: Any, hw_id: str, taxonomy: Any,
                 docs: Documents | None, cuda: str) -> Any:
    """The docker image and GPU flags of ``variant`` on ``hw_id``, computed once per
    recipe rendering (kept in the recipe's :attr:`Documents.cache`)."""
    profile = hardware_profile(taxonomy, hw_id)
    shared = docs.cache if docs is not None else {}
    hit = shared.get(("docker", variant_key, raw_id(hw_id), cuda))
    if hit is not None and hit[0] is variant and hit[1] is profile:
        touch(hw_id, hit[3])
        return hit[2]
    meta, trace = traced_call(hw_id, lambda: compute_docker_meta(recipe, variant, profile,
                                                                 hw_id, cuda))
    shared["docker", variant_key, raw_id(hw_id), cuda] = (variant, profile, meta, trace)
    return meta


def _multi_node_rendering(result: dict[str, Any], base: dict[str, Any], env: Any,
                          dockerize: Any) -> dict[str, Any]:
    """The head's and each worker's commands and argvs, plain and in docker."""
    head = dockerize(result["headCommand"], result["headArgv"], env)
    workers = [dockerize(c, a, env) for c, a in zip(result["workerCommands"],
                                                     result["workerArgvs"], strict=True)]
    return {**base, "head_command": result["headCommand"],
            "worker_command": result["workerCommand"],
            "worker_commands": result["workerCommands"], "head_argv": result["headArgv"],
            "worker_argv": result["workerArgv"], "worker_argvs": result["workerArgvs"],
            "head_docker_command": head["docker_command"],
            "worker_docker_command": workers[0]["docker_command"],
            "worker_docker_commands": [w["docker_command"] for w in workers],
            "head_docker_argv": head["docker_argv"],
            "worker_docker_argv": workers[0]["docker_argv"],
            "worker_docker_argvs": [w["docker_argv"] for w in workers]}


def _pd_rendering(result: dict[str, Any], base: dict[str, Any], dockerize: Any
                  ) -> dict[str, Any]:
    """The prefill and decode roles (each with its docker command) and the router."""
    roles = {}
    for role, port in (("prefill", 8001), ("decode", 8002)):
        part = dict(result[role])
        part.update(dockerize(part["command"], part["argv"], part["env"], port))
        roles[role] = part
    return {**base, **roles, "router": result["router"],
            "router_config": result["routerConfig"]}


def _kv_rendering(result: dict[str, Any], base: dict[str, Any], strategy: str, kv_offload: Any,
                  strategies: Any, dockerize: Any) -> dict[str, Any]:
    vllm = result.get("vllm") or {}
    venv = or_(vllm.get("env"), {})
    head = dockerize(vllm["command"], vllm["argv"], venv) if truthy(
        vllm.get("command")) and truthy(vllm.get("argv")) else {}
    worker = dockerize(vllm["workerCommand"], vllm["workerArgv"], venv) if truthy(
        vllm.get("workerCommand")) and truthy(vllm.get("workerArgv")) else {}
    commands = vllm.get("workerCommands")
    argvs = vllm.get("workerArgvs")
    dockers = [dockerize(c, get(argvs, i), venv) for i, c in enumerate(commands or [])] if truthy(
        commands) else None
    kv_min = get(get(strategies, kv_offload), "min_vllm_version") if truthy(kv_offload) else None
    return {
        **base, "strategy": or_(kv_offload, base["strategy"]),
        "serving_strategy": or_(result.get("servingStrategy"), strategy),
        "kv_min_vllm_version": or_(kv_min, None), "env": venv,
        "node_count": result.get("nodeCount"), "instances": result.get("instances"),
        "vllm_command": vllm.get("command"), "vllm_argv": vllm.get("argv"),
        "vllm_worker_command": or_(vllm.get("workerCommand"), None),
        "vllm_worker_commands": or_(commands, None),
        "vllm_worker_argv": or_(vllm.get("workerArgv"), None),
        "vllm_worker_argvs": or_(argvs, None),
        "vllm_worker_docker_command": worker.get("docker_command"),
        "vllm_worker_docker_argv": worker.get("docker_argv"),
        "vllm_worker_docker_commands": [d.get("docker_command") for d in dockers]
        if dockers is not None else None,
        "vllm_worker_docker_argvs": [d.get("docker_argv") for d in dockers]
        if dockers is not None else None,
        "vllm_install": or_(vllm.get("install"), None),
        "vllm_docker_command": head.get("docker_command"),
        "vllm_docker_argv": head.get("docker_argv"),
        "master": result.get("master"), "store": or_(result.get("store"), None),
        "router": result.get("router"), "mooncake_config": result.get("mooncakeConfig"),
        "mooncake_config_note": or_(result.get("mooncakeConfigNote"), ""),
    }


def site_rendering(*args: Any, **kwargs: Any) -> dict[str, Any] | None:
    """:func:`site_rendering_traced`'s JSON, or ``None`` where the site's synthesis throws
    (as ``renderCommand`` returns ``null``)."""
    try:
        return site_rendering_traced(*args, **kwargs)[0]
    except jsval.JsTypeError:
        return None
