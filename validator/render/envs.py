"""The environment of one rendered process, in the site's precedence order.

``model.base_env`` < variant ``extra_env`` (and its exact-hardware override) < strategy
``env`` < KV-offload option env < Mooncake env < PD GPU pinning < ``strategy_overrides``
env < hardware-override env (a strategy's generation override replaces the recipe's and
the variant's) < exact-GPU strategy/role env. Under pd_cluster the NVL4-only NCCL/UCX
variables are dropped except on GB200/GB300, and a DEP pool's non-zero rank rebinds
``$<ROLE>_NODE_1`` values to its own node.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from validator.render import jsval
from validator.render.args import Arg
from validator.render.counts import MAX_EXPANDED, bounded
from validator.render.documents import ptr
from validator.render.hardware_reads import in_hardware_ids, profile_pointer, raw_id
from validator.render.jsval import get, or_, truthy
from validator.render.layers import Composer, role_nodes
from validator.sourcemap import join_pointer, split_pointer

NVL4_ONLY_ENV = ("VLLM_USE_NCCL_SYMM_MEM", "NCCL_CUMEM_ENABLE", "NCCL_MNNVL_ENABLE",
                 "NCCL_NVLS_ENABLE", "UCX_NET_DEVICES")
NVL4_HW_IDS = frozenset({"gb200", "gb300"})


@dataclass
class Env:
    """An environment mapping built by ``Object.assign`` steps, with the source of each key."""

    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, Arg] = field(default_factory=dict)

    def assign(self, source: Any, layer: str, document: str, pointer: str) -> None:
        """``Object.assign(env, source)``."""
        jsval.assign(self.values, source)
        for key in jsval.keys(source) if jsval.is_object(source) or isinstance(
                source, str) else []:
            self.sources[key] = Arg(self.values[key], layer, document, join_pointer(pointer, key))

    def set(self, key: str, value: Any, origin: Arg) -> None:
        """``env[key] = value``."""
        self.values[key] = value
        self.sources[key] = origin

    def ordered(self) -> dict[str, Any]:
        """The mapping in JS property order."""
        return jsval.ordered(self.values)


def build_env(c: Composer, role: str | None) -> Env:
    """``buildEnv(role)`` of the site's renderer (a fresh copy of the one built once per
    composer memo: the environment never reads the feature selection)."""
    built: Env = c.remembered(("env", role), lambda: _build_env(c, role))
    return Env(dict(built.values), dict(built.sources))


def _build_env(c: Composer, role: str | None) -> Env:
    env = Env()
    doc = c.docs.recipe
    env.assign(or_(get(get(c.recipe, "model"), "base_env"), {}), "model.base_env", doc,
               "/model/base_env")
    if truthy(get(c.variant, "extra_env")):
        env.assign(get(c.variant, "extra_env"), _layer(f"{c.variant_ptr}/extra_env"), doc,
                   f"{c.variant_ptr}/extra_env")
    vho = get(get(c.variant, "hardware_overrides"), c.hw_id)
    if truthy(get(vho, "extra_env")):
        pointer = ptr(*split_pointer(c.variant_ptr), "hardware_overrides", c.hw_id, "extra_env")
        env.assign(get(vho, "extra_env"), _layer(pointer), doc, pointer)
    sdoc = c.docs.strategy(c.strategy_name)
    slayer = f"strategy:{c.strategy_name}"
    if c.deploy_type != "pd_cluster":
        env.assign(or_(get(c.strategy, "env"), {}), slayer, sdoc, "/env")
    elif role and truthy(get(get(c.strategy, role), "env")):
        env.assign(get(get(c.strategy, role), "env"), f"{slayer}.{role}", sdoc, f"/{role}/env")
    if truthy(get(c.kv_option, "env")):
        env.assign(get(c.kv_option, "env"), f"taxonomy:kv_offload.{c.kv_option_key}",
                   c.docs.taxonomy, ptr("kv_offload", c.kv_option_key, "env"))
    kdoc = c.docs.strategy(c.kv_store_name)
    if c.kv_composing or (c.deploy_type == "pd_cluster" and role
                          and truthy(get(c.kv_store, "pd"))):
        env.assign(or_(get(get(c.kv_store, "vllm"), "env"), {}), f"kv_store:{c.kv_store_name}",
                   kdoc, "/vllm/env")
    if c.deploy_type == "pd_cluster" and role:
        _pin_pd_gpus(c, env, role)
    _override_env(c, env, role)
    if c.deploy_type == "pd_cluster" and not in_hardware_ids(c.hw_id, NVL4_HW_IDS):
        for key in NVL4_ONLY_ENV:
            env.values.pop(key, None)
            env.sources.pop(key, None)
    if c.deploy_type == "pd_cluster" and role:
        _rebind_dep_rank(c, env, role)
    return env


def _layer(pointer: str) -> str:
    return pointer.lstrip("/").replace("/", ".")


def _pin_pd_gpus(c: Composer, env: Env, role: str) -> None:
    spec = role_nodes(c.pd_nodes, role)
    legacy = 1 if jsval.to_number(c.node_count) > 1 else 0
    nodes = spec["nodes"] if jsval.is_number(spec.get("nodes")) else legacy
    gpus = c.gpu_count
    if gpus > MAX_EXPANDED:  # one id per GPU
        bounded(gpus, f"hardware_profiles.{raw_id(c.hw_id)}.gpu_count", c.docs.taxonomy,
                profile_pointer(c.hw_id, "gpu_count"))
    origin = Arg(None, f"strategy:{c.strategy_name}", c.docs.strategy(c.strategy_name),
                 f"/{role}")
    if nodes >= 1:
        env.set("CUDA_VISIBLE_DEVICES", ",".join(str(i) for i in range(_length(gpus))), origin)
        if nodes >= 2:
            env.set("GLOO_SOCKET_IFNAME", "$IFACE_NAME", origin)
            env.set("NCCL_SOCKET_IFNAME", "$IFACE_NAME", origin)
    else:
        half = jsval.floor(gpus / 2)
        if half > 0:
            ids = (range(_length(half)) if role == "prefill"
                   else range(int(half), int(half) + _length(gpus - half)))
            env.set("CUDA_VISIBLE_DEVICES", ",".join(str(i) for i in ids), origin)


def _length(value: float) -> int:
    """``Array.from({length: value})`` length (ToLength: truncated, at least 0)."""
    if value != value or value <= 0:
        return 0
    return int(min(value, 2**32))


def _override_env(c: Composer, env: Env, role: str | None) -> None:
    doc = c.docs.recipe
    so = c.overrides
    base = ptr("strategy_overrides", c.strategy_name)
    if truthy(so):
        if truthy(get(so, "env")):
            env.assign(get(so, "env"), _layer(f"{base}/env"), doc, f"{base}/env")
        if role and truthy(get(get(so, role), "env")):
            env.assign(get(get(so, role), "env"), _layer(f"{base}/{role}/env"), doc,
                       f"{base}/{role}/env")
        if not role and truthy(get(so, "extra_env")):
            env.assign(get(so, "extra_env"), _layer(f"{base}/extra_env"), doc,
                       f"{base}/extra_env")
    strategy_ho, sp = c.gen_block(get(so, "hardware_overrides"), f"{base}/hardware_overrides")
    if truthy(strategy_ho):
        if truthy(get(strategy_ho, "extra_env")):
            env.assign(get(strategy_ho, "extra_env"), _layer(sp), doc, f"{sp}/extra_env")
    else:
        for mapping, pointer in ((get(c.recipe, "hardware_overrides"), "/hardware_overrides"),
                                 (get(c.variant, "hardware_overrides"),
                                  f"{c.variant_ptr}/hardware_overrides")):
            block, bp = c.gen_block(mapping, pointer)
            if truthy(get(block, "extra_env")):
                env.assign(get(block, "extra_env"), _layer(bp), doc, f"{bp}/extra_env")
    exact = get(get(so, "hardware_overrides"), c.hw_id)
    if truthy(get(exact, "extra_env")):
        pointer = ptr("strategy_overrides", c.strategy_name, "hardware_overrides", c.hw_id,
                      "extra_env")
        env.assign(get(exact, "extra_env"), _layer(pointer), doc, pointer)
    if role:
        role_exact = get(get(get(so, role), "hardware_overrides"), c.hw_id)
        if truthy(get(role_exact, "extra_env")):
            pointer = ptr("strategy_overrides", c.strategy_name, role, "hardware_overrides",
                          c.hw_id, "extra_env")
            env.assign(get(role_exact, "extra_env"), _layer(pointer), doc, pointer)


def _rebind_dep_rank(c: Composer, env: Env, role: str) -> None:
    spec = role_nodes(c.pd_nodes, role)
    rank: Any = or_(spec.get("rank"), 0)
    so_role = or_(get(c.overrides, role), {})
    role_cfg = or_(get(c.strategy, role), {})
    parallelism = or_(spec.get("parallelism"), get(so_role, "parallelism"),
                      get(role_cfg, "parallelism"), "tp")
    if not (jsval.to_number(rank) > 0 and parallelism == "dep"):
        return
    upper = role.upper()
    # `rank + 1`: string concatenation when the rank was given as a string
    nxt = jsval.js_str(rank) + "1" if isinstance(rank, str) else jsval.js_str(
        jsval.to_number(rank) + 1)
    old, new = f"${upper}_NODE_1", f"${upper}_NODE_{nxt}"
    for key, value in list(env.values.items()):
        if value == old and isinstance(value, str):
            env.values[key] = new
