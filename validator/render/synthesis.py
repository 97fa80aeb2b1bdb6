"""``resolve_command``: a recipe plus a configuration -> the commands the site renders.

Python port of the behaviour of the recipes site's ``resolveCommand`` (snake_case name,
same arguments, same result keys). :func:`resolve_command_traced` returns the same
mapping with every argv as a list of :class:`~validator.render.args.Arg` (value +
provenance); :func:`resolve_command` returns plain values, exactly as the JS does.

The result shapes (``deployType`` decides): ``single_node``: ``command``, ``argv``,
``env`` (+ ``companions``); ``multi_node`` (more than one node): ``headCommand``/
``headArgv``, ``workerCommand``/``workerArgv`` (rank 1), ``workerCommands``/
``workerArgvs`` (every follower), ``env``; ``pd_cluster``: ``prefill``/``decode``
(``command``, ``argv``, ``env`` + pool facts), ``router``, ``routerConfig`` (+
``mooncake``); ``kv_store_lb`` (a Mooncake KV-store composing with the serving strategy):
``vllm``, ``master``, ``store``, ``router``, ``mooncakeConfig`` ...

Raises :class:`~validator.render.jsval.JsTypeError` where the site's function throws.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from validator.render import gates, jsval, offload_gates
from validator.render.args import (
    LEAD,
    Arg,
    Override,
    command_of,
    final_args_traced,
    final_plan,
    planned,
)
from validator.render.counts import bounded
from validator.render.docker import (
    DockerMeta,
    build_docker_argv,
    build_docker_run,
    compute_docker_meta,
)
from validator.render.documents import Documents, ptr
from validator.render.envs import build_env
from validator.render.gates import (
    MAX_NODES,
    effective_compatible_strategies,
    fits_single_node,
    follower_ranks,
    is_hardware_scalable,
    is_kv_store_brand_supported,
    is_strategy_reachable,
    is_strategy_supported_on_hardware,
    list_compatible_hardware,
    min_gpus_for_strategy,
    nodes_for_strategy,
    pd_fits_single_node,
    pd_pool_modes,
    pick_default_hardware,
    pick_fitting_variant,
    recommend_strategy,
    resolve_single_node_tp,
)
from validator.render.hardware_reads import hardware_profile, raw_id, touch, traced_call
from validator.render.jsval import JsTypeError, get, or_, truthy
from validator.render.layers import Composer, role_nodes

ENV_SOURCES = "__envSources__"
OVERRIDES = "__overrides__"
MODE_READS = "__modeReads__"
"""Key of a traced result holding the ``(feature name, mode key)`` of each modal feature
whose mode the rendering resolved (:attr:`~validator.render.layers.Composer.mode_reads`)."""
"""Key of the traced result holding every :class:`Override` the de-duplication resolved
(over all processes, in finalization order)."""
"""Key of a traced result (and of each role of a pd_cluster one) holding the env key ->
:class:`Arg` origin of its (first) process."""

__all__ = [  # the JS module's exports, snake_case, in one place
    "MAX_NODES", "DockerMeta", "JsTypeError", "build_docker_argv", "build_docker_run",
    "compute_docker_meta", "effective_compatible_strategies", "fits_single_node",
    "follower_ranks", "is_hardware_scalable", "is_kv_store_brand_supported",
    "is_strategy_reachable", "is_strategy_supported_on_hardware", "list_compatible_hardware",
    "min_gpus_for_strategy", "nodes_for_strategy", "pd_fits_single_node", "pd_pool_modes",
    "pick_default_hardware", "pick_fitting_variant", "plain", "recommend_strategy",
    "resolve_command", "resolve_command_traced", "resolve_single_node_tp",
]


def resolve_command(recipe: Any, variant_key: str, strategy_name: str, hw_id: str,
                    enabled_features: Sequence[Any], strategies: Any, taxonomy: Any,
                    advanced_args: Sequence[Any] = (), node_count: Any = 1,
                    pd_nodes: Any = None, feature_modes: Any = None, kv_offload: Any = None,
                    kv_instances: Any = None) -> dict[str, Any]:
    """The site's ``resolveCommand`` result with plain values."""
    traced = resolve_command_traced(recipe, variant_key, strategy_name, hw_id, enabled_features,
                                    strategies, taxonomy, advanced_args, node_count, pd_nodes,
                                    feature_modes, kv_offload, kv_instances)
    result: dict[str, Any] = plain(traced)
    return result


def plain(value: Any) -> Any:
    """A traced result with every :class:`Arg` replaced by its value (and without the
    ``ENV_SOURCES`` entry)."""
    kind = type(value)
    if kind is Arg:
        return value.value
    # (a string, the most frequent leaf, is its own plain value: not recursed into)
    if kind is list:
        return [v.value if type(v) is Arg else v if type(v) is str else plain(v)
                for v in value]
    if kind is dict:
        return {k: v if type(v) is str else plain(v) for k, v in value.items()
                if k not in _TRACE_KEYS}
    if isinstance(value, Arg):
        return value.value
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if k not in _TRACE_KEYS}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


_TRACE_KEYS = frozenset({ENV_SOURCES, OVERRIDES, MODE_READS})


def _composer(recipe: Any, variant_key: str, strategy_name: str, hw_id: str,
              features: Sequence[Any], strategies: Any, taxonomy: Any, advanced: Sequence[Any],
              node_count: Any, pd_nodes: Any, feature_modes: Any, kv_offload: Any,
              kv_instances: Any, docs: Documents) -> Composer:
    """The composer of one call: made once per distinct choice of everything but the
    feature selection (kept in ``docs.cache`` with the data it was made from), then copied
    with this call's features. Keys equal only for equal values of equal types (``1``,
    ``1.0`` and ``True`` render differently: :func:`_composer_key`)."""
    key = _composer_key(variant_key, strategy_name, raw_id(hw_id), advanced, node_count,
                        pd_nodes, kv_offload, kv_instances)
    hit = docs.cache.get(key)
    if hit is None or hit[0] is not recipe or hit[1] is not strategies \
            or hit[2] is not taxonomy:
        base, trace = traced_call(hw_id, lambda: _new_composer(
            recipe, variant_key, strategy_name, hw_id, strategies, taxonomy, advanced,
            node_count, pd_nodes, kv_offload, kv_instances, docs))
        hit = docs.cache[key] = (recipe, strategies, taxonomy, base, trace)
    else:
        touch(hw_id, hit[4])
    composer: Composer = hit[3]
    return composer.with_features(list(features or []), feature_modes or {})


def _composer_key(variant_key: Any, strategy_name: Any, hw: Any, advanced: Any, node_count: Any,
                  pd_nodes: Any, kv_offload: Any, kv_instances: Any) -> Any:
    """:func:`_composer`'s memo key: the values for string ids, ``int`` counts (not
    ``bool``) and no advanced arguments or PD nodes, else a ``repr`` of them all."""
    if type(variant_key) is str and type(strategy_name) is str and type(hw) is str and \
            not advanced and type(node_count) is int and pd_nodes is None and \
            (kv_offload is None or type(kv_offload) is str) and \
            (kv_instances is None or type(kv_instances) is int):
        return ("composer", variant_key, strategy_name, hw, node_count, kv_offload, kv_instances)
    return ("composer", repr((variant_key, strategy_name, hw, list(advanced or []),
                              node_count, pd_nodes, kv_offload, kv_instances)))


def _new_composer(recipe: Any, variant_key: str, strategy_name: str, hw_id: str,
                  strategies: Any, taxonomy: Any, advanced: Sequence[Any], node_count: Any,
                  pd_nodes: Any, kv_offload: Any, kv_instances: Any,
                  docs: Documents) -> Composer:
    variants = get(recipe, "variants")
    variant = get(variants, variant_key)
    variant_ptr = ptr("variants", variant_key)
    if not truthy(variant):
        variant = get(variants, "default")
        variant_ptr = "/variants/default"
        if not truthy(variant):
            variant, variant_ptr = {}, ""
    strategy = or_(get(strategies, strategy_name), {})
    profile = hardware_profile(taxonomy, hw_id)
    kv_spec = get(strategies, kv_offload) if truthy(kv_offload) else None
    kv_store = kv_spec if get(kv_spec, "deploy_type") == "kv_store_lb" else None
    composing = kv_store is not None and get(strategy, "deploy_type") != "pd_cluster"
    option = get(get(taxonomy, "kv_offload"), kv_offload)
    key = jsval.js_str(kv_offload)
    if not (truthy(option) and offload_gates.kv_offload_allowed(option, strategy_name, strategy)
            and offload_gates.kv_offload_supported_for_recipe(option, key, recipe)
            and offload_gates.kv_offload_brand_supported(option, profile)):
        option = None
    instances = _kv_instance_count(kv_instances, kv_store, composing,
                                   docs.strategy(kv_offload))
    inst = kv_instances if isinstance(kv_instances, dict) else {"count": kv_instances}
    current = jsval.to_number(jsval.nullish(get(inst, "current"), 0))
    current_i = int(jsval.js_max(0, jsval.js_min(instances - 1, current)))
    composer = Composer(
        recipe=recipe, variant=variant, variant_key=variant_key, variant_ptr=variant_ptr,
        strategy=strategy, strategy_name=strategy_name, hw_id=hw_id, profile=profile,
        features=[], feature_modes={}, advanced=list(advanced or []), node_count=node_count,
        pd_nodes=pd_nodes, kv_store=kv_store, kv_store_name=key, kv_composing=composing,
        kv_option=option, kv_option_key=key, kv_instances=instances, kv_current=current_i,
        docs=docs)
    # computed once here (none can throw), so that every copy inherits them
    # (not the GPU count: a rendering that makes no flag of it must not read it)
    _ = (composer.gen, composer.is_nvidia, composer.deploy_type, composer.overrides)
    return composer


def _kv_instance_count(kv_instances: Any, kv_store: Any, composing: bool,
                       document: str) -> int:
    """The instances a kv-store composition renders: the configuration's count (a number
    of at least 1), else the deployment's ``default_instances`` (falsy: 2), bounded
    where the rendering expands them (``composing``: one ``--backend-url`` each), else 0
    when not a number (:func:`~validator.render.counts.bounded`)."""
    inst = kv_instances if isinstance(kv_instances, dict) else {"count": kv_instances}
    count = get(inst, "count")
    if jsval.is_number(count) and count >= 1:
        value, pointer = jsval.floor(count), ""
    else:
        value, pointer = or_(get(kv_store, "default_instances"), 2), "/default_instances"
    if composing:
        return bounded(value, "default_instances" if pointer else "the instance count",
                       document if pointer else "", pointer)
    number = jsval.to_number(value)
    return int(number) if number == number and abs(number) != math.inf else 0


def resolve_command_traced(recipe: Any, variant_key: str, strategy_name: str, hw_id: str,
                           enabled_features: Sequence[Any], strategies: Any, taxonomy: Any,
                           advanced_args: Sequence[Any] = (), node_count: Any = 1,
                           pd_nodes: Any = None, feature_modes: Any = None,
                           kv_offload: Any = None, kv_instances: Any = None,
                           docs: Documents | None = None, *, texts: bool = True,
                           ) -> dict[str, Any]:
    """:func:`resolve_command` with every argv token an :class:`Arg` (with provenance);
    ``texts=False``: each ``vllm serve`` command text ``None`` (where the site's
    formatting throws, it still throws)."""
    docs = docs or Documents()
    c = _composer(recipe, variant_key, strategy_name, hw_id, enabled_features, strategies,
                  taxonomy, advanced_args, node_count, pd_nodes, feature_modes, kv_offload,
                  kv_instances, docs)
    model_id, model_ptr = _model_id(c)
    model = Arg(model_id, model_ptr.lstrip("/").replace("/", ".") or "unknown", docs.recipe,
                model_ptr)
    writer = _CommandWriter(model, model_id, docs.cache, texts)
    deploy = or_(c.deploy_type, "single_node")
    nodes = jsval.to_number(node_count)
    if deploy == "pd_cluster":
        result = _pd_cluster(c, writer.command, writer.argv)
    elif c.kv_composing:
        result = _kv_store(c, writer.command, writer.argv)
    elif deploy == "multi_node" and nodes > 1:
        result = _multi_node(c, writer, node_count)
    else:
        result = _single_node(c, writer, deploy)
    result[OVERRIDES] = writer.overrides
    result[MODE_READS] = tuple(c.mode_reads)
    return result


class _CommandWriter:
    """Finalizes a rendering's argument lists into commands and argvs, with the
    overrides finalizing dropped.

    Each argument list is finalized once for its command and its argv (the list is kept
    alive in ``finals``, so its id cannot be reused meanwhile). Finalizing reads only the
    arguments' values, and a command only the values it keeps: lists of string values
    share, through ``shared`` (the recipe's :attr:`Documents.cache`), one
    :func:`~validator.render.args.final_plan` and one command per distinct tuple of
    values, whatever their provenance (the same arguments from another hardware's
    profile, layer or pointer). ``texts=False``: no command text (``None``)."""

    def __init__(self, model: Arg, model_id: Any, shared: dict[Any, Any], texts: bool = True,
                 ) -> None:
        self.model = model
        self.model_id = model_id
        self.shared = shared
        self.texts = texts
        self.finals: dict[int, tuple[list[Arg], list[Arg], Any]] = {}
        self.overrides: list[Override] = []

    def finalize(self, args: list[Arg]) -> tuple[list[Arg], Any]:
        """``args`` finalized, and the key its command is shared under (``None``: not
        shared)."""
        finals = self.finals
        found = finals.get(id(args))
        if found is None:
            values = tuple([a.value for a in args])
            # only all-string lists: 1 == 1.0 == True would make unequal lists one key
            if all(type(v) is str for v in values):
                key: Any = ("plan", values)
                plan = self.shared.get(key)
                if plan is None:
                    plan = self.shared[key] = final_plan(values)
                kept, dropped = planned(args, plan)
            else:
                key = None
                kept, dropped = final_args_traced(args)
            found = finals[id(args)] = (args, kept, key)
            self.overrides.extend(dropped)
        return found[1], found[2]

    def command(self, args: list[Arg]) -> str | None:
        """The shell command of ``args`` (``None`` without :attr:`texts`)."""
        filtered, key = self.finalize(args)
        model_id = self.model_id
        if key is None or type(model_id) is not str:
            made = command_of(filtered, model_id)  # (may throw, as the site's does)
            return made if self.texts else None
        if not self.texts:  # string values and model id: command_of cannot throw
            return None
        ckey = ("command", key, model_id)
        text = self.shared.get(ckey)
        if text is None:
            text = self.shared[ckey] = command_of(filtered, model_id)
        return text

    def argv(self, args: list[Arg]) -> list[Arg]:
        """The argv of ``args``: ``vllm serve``, the model, the finalized arguments."""
        return [*LEAD, self.model, *self.finalize(args)[0]]


def _multi_node(c: Composer, writer: _CommandWriter, node_count: Any) -> dict[str, Any]:
    """The head's and each worker's command and argv."""
    command, argv = writer.command, writer.argv
    head = c.build_args(None, "head")
    workers = _workers(c)
    env = build_env(c, None)
    return {
        "deployType": "multi_node", "nodeCount": node_count,
        "headCommand": command(head),
        "workerCommand": command(workers[0]),
        "workerCommands": [command(w) for w in workers],
        "headArgv": argv(head),
        "workerArgv": argv(workers[0]),
        "workerArgvs": [argv(w) for w in workers],
        "env": env.ordered(), ENV_SOURCES: env.sources,
    }


def _single_node(c: Composer, writer: _CommandWriter, deploy: Any) -> dict[str, Any]:
    """One command and argv, with the companions the deployment runs beside it."""
    single = c.build_args(None, None)
    env = build_env(c, None)
    out: dict[str, Any] = {"deployType": deploy, "command": writer.command(single),
                           "argv": writer.argv(single), "env": env.ordered(),
                           ENV_SOURCES: env.sources}
    companions = _companions(c)
    if companions:
        out["companions"] = companions
    return out


def _workers(c: Composer) -> list[list[Arg]]:
    """One argument list per follower rank; the site throws when there is none (a
    fractional node count just above 1)."""
    workers = [c.build_args(None, "worker", r) for r in gates.follower_ranks(c.node_count)]
    if not workers:
        raise jsval.JsTypeError("no follower rank for a multi-node command")
    return workers


def _model_id(c: Composer) -> tuple[Any, str]:
    if truthy(get(c.variant, "model_id")):
        return get(c.variant, "model_id"), f"{c.variant_ptr}/model_id"
    base = get(get(c.recipe, "model"), "model_id")
    if truthy(base):
        return base, "/model/model_id"
    return "unknown", ""


def _companions(c: Composer) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for name in c.features:
        feat = get(get(c.recipe, "features"), name)
        companion = get(feat, "companion")
        if not truthy(get(companion, "command")):
            continue
        if not gates.is_feature_allowed_for_strategy(feat, c.strategy_name):
            continue
        out.append({"feature": name, "label": or_(get(companion, "label"), name),
                    "description": or_(get(companion, "description"), ""),
                    "command": jsval.js_str(get(companion, "command")).rstrip()})
    companion = get(c.kv_option, "companion")
    if truthy(get(companion, "command")):
        install = get(c.kv_option, "install")
        parts = [or_(get(companion, "description"), ""),
                 f"Requires: {jsval.js_str(install)}" if truthy(install) else ""]
        out.append({"feature": f"kv_offload:{c.kv_option_key}",
                    "label": or_(get(companion, "label"), c.kv_option_key),
                    "description": " ".join(jsval.js_str(p) for p in parts if truthy(p)),
                    "command": jsval.js_str(get(companion, "command")).rstrip()})
    return out


def _role_meta(c: Composer, role: str) -> dict[str, Any]:
    so_role = or_(get(c.overrides, role), {})
    role_cfg = or_(get(c.strategy, role), {})
    legacy = 1 if jsval.to_number(c.node_count) > 1 else 0
    spec = role_nodes(c.pd_nodes, role)
    nodes = spec["nodes"] if jsval.is_number(spec.get("nodes")) else legacy
    parallelism = or_(spec.get("parallelism"), get(so_role, "parallelism"),
                      get(role_cfg, "parallelism"), "tp")
    gpus = c.gpu_count
    pool = jsval.floor(gpus / 2) if nodes == 0 else nodes * gpus
    dep = parallelism == "dep"
    tp = or_(get(so_role, "tp"), get(role_cfg, "tp"), 1) if dep else pool
    dp_local = jsval.js_max(1, jsval.floor(jsval.div(gpus, jsval.to_number(tp)))) if dep else 0
    dp_size = jsval.js_max(1, nodes) * dp_local if dep else 1
    in_pool = jsval.js_max(1, nodes)
    current = jsval.js_max(0, jsval.js_min(in_pool - 1, jsval.to_number(
        jsval.nullish(spec.get("rank"), 0))))
    return {"nodes": nodes, "parallelism": parallelism, "tp": tp, "dpLocal": dp_local,
            "dpSize": dp_size, "poolGpus": pool, "currentNode": current,
            "startRank": current * dp_local}


def _pd_cluster(c: Composer, command: Any, argv: Any) -> dict[str, Any]:
    router = get(c.strategy, "router")
    policy = jsval.js_str(or_(get(router, "policy"), "round_robin"))
    p_meta, d_meta = _role_meta(c, "prefill"), _role_meta(c, "decode")

    def endpoints(meta: dict[str, Any]) -> int:
        if meta["parallelism"] != "dep":
            return 1
        return int(jsval.js_max(1, jsval.to_number(or_(meta["nodes"], 1))))

    so_router = get(get(c.overrides, "router"), "intra_node_data_parallel_size")
    intra = so_router if so_router is not None else jsval.js_max(
        jsval.to_number(or_(p_meta["dpLocal"], 0)), jsval.to_number(or_(d_meta["dpLocal"], 0)), 1)
    lines = [f"vllm-router --policy {policy} \\", "    --vllm-pd-disaggregation \\"]
    lines += [f"    --prefill http://$PREFILL_NODE_{i + 1}:8001 \\"
              for i in range(endpoints(p_meta))]
    lines += [f"    --decode http://$DECODE_NODE_{i + 1}:8002 \\"
              for i in range(endpoints(d_meta))]
    lines += ["    --host $ROUTER_HOST \\", "    --port $ROUTER_PORT \\",
              f"    --intra-node-data-parallel-size {jsval.js_str(intra)}"]
    prefill_args, decode_args = c.build_args("prefill", None), c.build_args("decode", None)
    out: dict[str, Any] = {"deployType": "pd_cluster", "nodeCount": c.node_count}
    kv = c.kv_store
    if truthy(get(kv, "pd")):
        out["mooncake"] = {"master": _master(kv), "store": _store(kv),
                           "config": or_(get(get(kv, "mooncake_vllm_config"), "template"), {}),
                           "configNote": or_(get(get(kv, "mooncake_vllm_config"), "note"), ""),
                           "install": _brand_install(c, get(get(kv, "vllm"), "install"))}
    prefill_env, decode_env = build_env(c, "prefill"), build_env(c, "decode")
    out["prefill"] = {"command": command(prefill_args), "argv": argv(prefill_args),
                      "env": prefill_env.ordered(), **p_meta, ENV_SOURCES: prefill_env.sources}
    out["decode"] = {"command": command(decode_args), "argv": argv(decode_args),
                     "env": decode_env.ordered(), **d_meta, ENV_SOURCES: decode_env.sources}
    out["router"] = {"command": "\n".join(lines), "install": "uv pip install vllm-router"}
    out["routerConfig"] = or_(router, {"policy": "round_robin"})
    out[ENV_SOURCES] = prefill_env.sources
    return out


def _master(kv: Any) -> dict[str, Any]:
    master = get(kv, "mooncake_master")
    return {"command": or_(get(master, "command"), "mooncake_master"),
            "description": or_(get(master, "description"), "")}


def _store(kv: Any) -> dict[str, Any] | None:
    store = get(kv, "mooncake_store_config")
    if not truthy(store):
        return None
    out = {"command": get(store, "command"), "description": or_(get(store, "description"), ""),
           "config": or_(get(store, "config"), None), "note": or_(get(store, "note"), "")}
    if out["command"] is None:  # JS `undefined`: absent from the JSON
        del out["command"]
    return out


def _brand_install(c: Composer, raw: Any) -> Any:
    if jsval.is_object(raw):
        brand = get(c.profile, "brand")
        key = "amd" if brand == "AMD" else "nvidia" if brand == "NVIDIA" else None
        return or_(get(raw, key), None) if key else None
    return or_(raw, None)


def _kv_store(c: Composer, command: Any, argv: Any) -> dict[str, Any]:
    kv = c.kv_store
    multi = c.deploy_type == "multi_node" and jsval.to_number(c.node_count) > 1
    head = c.build_args(None, "head" if multi else None)
    workers = _workers(c) if multi else None
    kv_router = get(kv, "router")
    port = or_(get(get(kv, "vllm"), "port"), 8000)
    policy = jsval.js_str(or_(get(kv_router, "policy"), "cache_aware"))
    lines = [f"vllm-router --policy {policy} \\"]
    lines += [f"    --backend-url http://$VLLM_INSTANCE_{i + 1}:{jsval.js_str(port)} \\"
              for i in range(c.kv_instances)]
    lines += ["    --host $ROUTER_HOST \\", "    --port $ROUTER_PORT \\",
              "    --cache-threshold 0.5 \\", "    --balance-abs-threshold 4 \\",
              "    --balance-rel-threshold 1.1"]
    vllm: dict[str, Any] = {"command": command(head), "argv": argv(head)}
    if workers:
        vllm.update({"workerCommand": command(workers[0]), "workerArgv": argv(workers[0]),
                     "workerCommands": [command(w) for w in workers],
                     "workerArgvs": [argv(w) for w in workers]})
    env = build_env(c, None)
    vllm["env"] = env.ordered()
    vllm["install"] = _brand_install(c, get(get(kv, "vllm"), "install"))
    config = get(kv, "mooncake_vllm_config")
    return {
        "deployType": "kv_store_lb", "servingStrategy": c.strategy_name,
        "nodeCount": c.node_count, "instances": c.kv_instances,
        "currentInstance": c.kv_current, "master": _master(kv), "store": _store(kv),
        "vllm": vllm,
        "router": {"command": "\n".join(lines),
                   "install": or_(get(kv_router, "install"), "uv pip install vllm-router"),
                   "port": or_(get(kv_router, "port"), 30080)} if c.kv_instances > 1 else None,
        "mooncakeConfig": or_(get(config, "template"), {}),
        "mooncakeConfigNote": or_(get(config, "note"), ""), ENV_SOURCES: env.sources,
    }
