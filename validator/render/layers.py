"""The argument layers of one rendered command, in the site's order (its environment,
with the :class:`~validator.render.envs.Env` mapping, is :mod:`validator.render.envs`'s).

Order of the arguments (later wins the last-wins de-duplication): ``model.base_args``,
the variant's ``extra_args`` (and its exact-hardware override), the strategy's
``vllm_args`` with the parallelism flags it implies, ``strategy_overrides``, hardware
overrides (a strategy's generation override replaces the recipe's and the variant's;
exact-GPU strategy/role overrides add on top), advanced args, enabled features (a
feature's generation override replaces its args; modal features emit their one mode),
then the composing KV-offload option and the Mooncake KV-store connector.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from validator.render import gates, jsval
from validator.render.args import Arg, push_layer
from validator.render.documents import Documents, dotted, ptr
from validator.render.hardware_reads import profile_pointer, raw_id, touch, traced_call
from validator.render.jsval import get, or_, truthy
from validator.render.types import once
from validator.sourcemap import join_pointer, split_pointer


def role_nodes(pd_nodes: Any, role: str) -> dict[str, Any]:
    """A PD role's node spec: a bare count or ``{nodes, rank, parallelism}``."""
    raw = get(pd_nodes, role) if truthy(pd_nodes) else None
    if jsval.is_number(raw):
        return {"nodes": raw}
    if isinstance(raw, dict):
        return raw
    return {}


@dataclass
class Composer:
    """Everything ``buildArgs``/``buildEnv`` share for one ``resolve_command`` call."""

    recipe: Any
    variant: Any
    variant_key: str
    variant_ptr: str
    strategy: Any
    strategy_name: str
    hw_id: str
    profile: Any
    features: list[Any]
    feature_modes: Any
    advanced: list[Any]
    node_count: Any
    pd_nodes: Any
    kv_store: Any
    kv_store_name: str
    kv_composing: bool
    kv_option: Any
    kv_option_key: str
    kv_instances: int
    kv_current: int
    docs: Documents
    shared: dict[Any, Any] = field(default_factory=dict)
    """What this composer built that does not depend on its feature selection (argument
    layers before and after the features, environments), shared with every composer
    :meth:`with_features` makes from it."""
    mode_reads: list[tuple[Any, Any]] = field(default_factory=list)
    """``(feature name, mode key)`` of each modal feature whose mode the feature layers
    resolved (where they read :attr:`feature_modes`): a selection that resolves to the
    same keys gives the same layers."""

    def with_features(self, features: list[Any], feature_modes: Any) -> Composer:
        """A copy with another feature selection sharing this one's :attr:`shared` memo
        (and the properties already computed)."""
        clone = object.__new__(Composer)
        clone.__dict__.update(self.__dict__)
        clone.features = features
        clone.feature_modes = feature_modes
        clone.mode_reads = []
        return clone

    @once
    def gpu_count(self) -> float:
        """``gpu_count`` of the profile (1 when not a number)."""
        return jsval.number_or(get(self.profile, "gpu_count"), 1)

    @once
    def gen(self) -> Any:
        """The profile's (first) generation."""
        return gates.profile_generation(self.profile)

    @once
    def is_nvidia(self) -> bool:
        """NVIDIA profiles also read ``nvidia:`` overrides."""
        return bool(get(self.profile, "brand") == "NVIDIA")

    @once
    def deploy_type(self) -> Any:
        """The strategy's ``deploy_type``."""
        return get(self.strategy, "deploy_type")

    @once
    def overrides(self) -> Any:
        """``strategy_overrides.<strategy>`` of the recipe."""
        return get(get(self.recipe, "strategy_overrides"), self.strategy_name)

    def gen_block(self, mapping: Any, pointer: str) -> tuple[Any, str]:
        """``m?.[gen] || (isNvidia ? m?.nvidia : null)`` and the pointer of the winner."""
        value = get(mapping, self.gen)
        if truthy(value):
            return value, join_pointer(pointer, jsval.js_str(self.gen))
        if self.is_nvidia:
            nv = get(mapping, "nvidia")
            return nv, join_pointer(pointer, "nvidia")
        return None, pointer

    # ---- arguments -------------------------------------------------------------------

    def recipe_layer(self, out: list[Arg], value: Any, pointer: str) -> None:
        if value is None:
            return
        cache = self.docs.cache
        hit = cache.get(pointer)
        if hit is not None and hit[0] is value:
            out.extend(hit[1])
            return
        start = len(out)
        push_layer(out, value, dotted(pointer), self.docs.recipe, pointer)
        cache[pointer] = (value, tuple(out[start:]))

    def exact_layer(self, out: list[Arg], value: Any, parent: str, *more: str) -> None:
        """:meth:`recipe_layer` of an exact-hardware override's ``extra_args`` under the
        pointer ``parent`` (and its tokens ``more``): its pointer names the hardware id, so
        it is made only where the override has arguments (the rendering then depends on
        the id itself)."""
        if value is not None:
            self.recipe_layer(out, value, ptr(*split_pointer(parent), *more,
                                              "hardware_overrides", self.hw_id, "extra_args"))

    def synth(self, out: list[Arg], pairs: list[tuple[Any, Any]], pointer: str,
              document: str | None = None, layer: str | None = None) -> None:
        """Append arguments the renderer derives itself (parallelism flags)."""
        doc = self.docs.strategy(self.strategy_name) if document is None else document
        name = layer or f"strategy:{self.strategy_name}"
        for flag, value in pairs:
            out.append(Arg(flag, name, doc, pointer))
            if value is not None:
                out.append(Arg(value, name, doc, pointer))

    def build_args(self, role: str | None, node_role: str | None, node_rank: Any = 1) -> list[Arg]:
        """The argument layers of one process (``role`` = PD prefill/decode, ``node_role``
        = multi-node head/worker, ``node_rank`` = which follower).

        The layers before the features (they read the composer's fields but never its
        feature selection) and those after them (``role`` only) are built once per
        :attr:`shared` memo; the feature layers once per feature selection (see
        :meth:`feature_args`). Built in the site's order, so the first layer that throws
        is the one the site's throws at."""
        out = list(self.remembered(("head", role, node_role, repr(node_rank)),
                                   lambda: self._shared_head(role, node_role, node_rank)))
        out += self.feature_args()
        out += self.remembered(("tail", role), lambda: self._tail_args(role))
        return out

    def remembered(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()``, made once per :attr:`shared` memo; a later call counts the
        hardware reads it made as its own (:func:`~validator.render.hardware_reads.touch`)."""
        hit = self.shared.get(key)
        if hit is None:
            hit = self.shared[key] = traced_call(self.hw_id, compute)
        else:
            touch(self.hw_id, hit[1])
        return hit[0]

    def _shared_head(self, role: str | None, node_role: str | None, node_rank: Any,
                     ) -> tuple[Arg, ...]:
        """:meth:`_head_args`, shared in ``docs.cache`` by the composers that differ only in
        what it does not read: the KV-offload choice enters only through the
        ``--data-parallel-address`` / ``--master-addr`` value (:meth:`_address`)."""
        counts: Any = (self.node_count, node_rank)
        if type(self.node_count) is not int or self.pd_nodes is not None or self.advanced \
                or type(node_rank) is not int:  # else the values are the key (no repr)
            counts = repr((self.node_count, self.pd_nodes, self.advanced, node_rank))
        key = ("head", self.variant_ptr, self.strategy_name, raw_id(self.hw_id), counts, role,
               node_role, self._address())
        hit = self.docs.cache.get(key)
        if hit is not None and hit[0] is self.recipe and hit[1] is self.strategy \
                and hit[2] is self.profile and hit[3] is self.variant:
            touch(self.hw_id, hit[5])
            found: tuple[Arg, ...] = hit[4]
            return found
        head, trace = traced_call(self.hw_id,
                                  lambda: self._head_args(role, node_role, node_rank))
        self.docs.cache[key] = (self.recipe, self.strategy, self.profile, self.variant, head,
                                trace)
        return head

    def _address(self) -> str:
        """The address multi-node parallelism flags point the followers at."""
        return (f"$VLLM_INSTANCE_{self.kv_current + 1}"
                if self.kv_composing and self.kv_instances > 1 else "$HEAD_IP")

    def _head_args(self, role: str | None, node_role: str | None, node_rank: Any,
                   ) -> tuple[Arg, ...]:
        """Steps 1-6: base, variant, strategy, parallelism, override and advanced args."""
        out: list[Arg] = []
        mp_rank = jsval.js_max(1, jsval.to_number(node_rank)) if node_role == "worker" else 0
        self.recipe_layer(out, get(get(self.recipe, "model"), "base_args"), "/model/base_args")
        vptr = self.variant_ptr
        self.recipe_layer(out, get(self.variant, "extra_args"), f"{vptr}/extra_args")
        vho = get(get(self.variant, "hardware_overrides"), self.hw_id)
        self.exact_layer(out, get(vho, "extra_args"), vptr)
        sdoc = self.docs.strategy(self.strategy_name)
        slayer = f"strategy:{self.strategy_name}"
        if self.deploy_type != "pd_cluster":
            push_layer(out, get(self.strategy, "vllm_args"), slayer, sdoc, "/vllm_args")
        elif role and truthy(get(get(self.strategy, role), "vllm_args")):
            push_layer(out, get(get(self.strategy, role), "vllm_args"), f"{slayer}.{role}", sdoc,
                       f"/{role}/vllm_args")
        self.parallelism(out, role, node_role, mp_rank)
        self.override_layers(out, role)
        if self.advanced:
            out.extend(Arg(v, "advanced", "", "") for v in self.advanced)
        return tuple(out)

    def feature_args(self) -> tuple[Arg, ...]:
        """Step 7 for this composer's feature selection, built once per selection and
        (variant, hardware, which selected features the strategy allows, KV composition)
        -- everything :meth:`feature_layers` reads besides the recipe (the strategy only
        through its gate) -- in ``docs.cache``: the strategies of one variant on one
        hardware share it. The modes it resolved count as this composer's reads
        (:attr:`mode_reads`)."""
        selection = repr(self.features)
        key = ("features", self.variant_ptr, self.variant_key, raw_id(self.hw_id),
               self._allowed(selection), self.kv_composing, selection,
               repr(self.feature_modes))
        hit = self.docs.cache.get(key)
        if hit is not None and hit[0] is self.recipe and hit[1] is self.profile \
                and hit[2] is self.variant:
            touch(self.hw_id, hit[4])
            self.mode_reads += hit[5]
            found: tuple[Arg, ...] = hit[3]
            return found
        out: list[Arg] = []
        resolved: list[tuple[Any, Any]] = []
        _, trace = traced_call(self.hw_id, lambda: self.feature_layers(out, resolved))
        self.docs.cache[key] = (self.recipe, self.profile, self.variant, tuple(out), trace,
                                tuple(resolved))
        self.mode_reads += resolved
        return tuple(out)

    def _allowed(self, selection: str) -> tuple[bool, ...]:
        """Which of the selected features (``selection``: ``repr`` of them) the strategy's
        gate allows, in ``docs.cache`` per (strategy, selection) with the recipe's
        ``features`` it read: the configurations of every hardware share it."""
        features = get(self.recipe, "features")
        key = ("allowed", repr(self.strategy_name), selection)  # repr: 1, 1.0, True apart
        hit = self.docs.cache.get(key)
        if hit is not None and hit[0] is features:
            found: tuple[bool, ...] = hit[1]
            return found
        allowed = tuple(gates.is_feature_allowed_for_strategy(get(features, name),
                                                              self.strategy_name)
                        for name in self.features)
        self.docs.cache[key] = (features, allowed)
        return allowed

    def _tail_args(self, role: str | None) -> tuple[Arg, ...]:
        """Step 8: the composing KV-offload option and the Mooncake KV-store connector."""
        out: list[Arg] = []
        if truthy(self.kv_option):
            push_layer(out, or_(get(self.kv_option, "args"), []),
                       f"taxonomy:kv_offload.{self.kv_option_key}", self.docs.taxonomy,
                       ptr("kv_offload", self.kv_option_key, "args"))
        kdoc = self.docs.strategy(self.kv_store_name)
        if self.kv_composing:
            push_layer(out, or_(get(get(self.kv_store, "vllm"), "vllm_args"), []),
                       f"kv_store:{self.kv_store_name}", kdoc, "/vllm/vllm_args")
        pd_args = get(get(get(self.kv_store, "pd"), role), "args") if role else None
        if self.deploy_type == "pd_cluster" and role and truthy(pd_args):
            push_layer(out, pd_args, f"kv_store:{self.kv_store_name}.pd.{role}", kdoc,
                       ptr("pd", role, "args"))
        return tuple(out)

    def parallelism(self, out: list[Arg], role: str | None, node_role: str | None,
                    mp_rank: float) -> None:
        """Step 3b: the parallel-size flags the strategy implies."""
        s = self.strategy
        flag = or_(get(s, "parallel_flag"), "--tensor-parallel-size")
        nodes = jsval.to_number(self.node_count)
        is_multi = self.deploy_type == "multi_node" and nodes > 1
        # the GPU count is read where a flag is made of it (a single-node size is
        # resolved from it only where the recipe declares none)
        gpus = self.gpu_count if is_multi else 0
        total = gpus * jsval.js_max(1, nodes)
        addr = self._address()
        num = jsval.js_str
        parallelism = get(s, "parallelism")
        if is_multi and flag == "--data-parallel-size":
            so = self.overrides
            so_gen, _ = _first_truthy_block(get(so, "hardware_overrides"), self.gen,
                                            self.is_nvidia)
            so_exact = get(get(so, "hardware_overrides"), self.hw_id)
            dep_ov: list[Any] = []
            for part in (get(so, "vllm_args"), get(so, "extra_args"), get(so_gen, "extra_args"),
                         get(so_exact, "extra_args")):
                dep_ov += jsval.spread(or_(part, []), "strategy_overrides args",
                                       ptr("strategy_overrides", self.strategy_name))
            idx = _last_index(dep_ov, "--data-parallel-size-local")
            dp_local = (jsval.to_number(dep_ov[idx + 1]) if idx + 1 < len(dep_ov) else
                        float("nan")) if idx >= 0 else gpus
            pairs: list[tuple[Any, Any]] = [
                ("--data-parallel-size", num(total)), ("--data-parallel-size-local", num(gpus)),
                ("--data-parallel-address", addr)]
            if node_role == "worker":
                pairs.append(("--data-parallel-start-rank", num(mp_rank * dp_local)))
            self.synth(out, pairs, "/parallel_flag")
        elif is_multi and parallelism == "tp_pp":
            pairs = [("--tensor-parallel-size", num(gpus)),
                     ("--pipeline-parallel-size", num(nodes)),
                     ("--nnodes", num(nodes)), ("--node-rank", num(mp_rank)),
                     ("--master-addr", addr)]
            if mp_rank > 0:
                pairs.append(("--headless", None))
            self.synth(out, pairs, "/parallelism")
        elif is_multi and parallelism == "tp_dp":
            pairs = [("--tensor-parallel-size", num(gpus)), ("--data-parallel-size", num(nodes)),
                     ("--data-parallel-size-local", "1"), ("--data-parallel-address", addr)]
            if node_role == "worker":
                pairs.append(("--data-parallel-start-rank", num(mp_rank)))
            self.synth(out, pairs, "/parallelism")
        elif is_multi:
            pairs = [("--tensor-parallel-size", num(total)), ("--nnodes", num(nodes)),
                     ("--node-rank", num(mp_rank)), ("--master-addr", addr)]
            if mp_rank > 0:
                pairs.append(("--headless", None))
            self.synth(out, pairs, "")
        elif self.deploy_type == "pd_cluster":
            self.pd_parallelism(out, role, nodes > 1)
        else:
            self.single_node_tp(out, flag)

    def single_node_tp(self, out: list[Arg], flag: Any) -> None:
        """Single-node TP/TEP/DEP: always emit the parallel flag with its size."""
        tp = gates.resolve_single_node_tp(self.recipe, self.variant, self.profile,
                                          self.strategy_name, self.hw_id)
        sdoc = self.docs.strategy(self.strategy_name)
        out.append(Arg(flag, f"strategy:{self.strategy_name}", sdoc,
                       "/parallel_flag" if truthy(get(self.strategy, "parallel_flag")) else ""))
        out.append(self.tp_origin(jsval.js_str(tp)))

    def tp_origin(self, text: str) -> Arg:
        """Where the single-node TP size came from."""
        if self.strategy_name == "single_node_tp":
            for raw, pointer in ((get(self.variant, "tp"), f"{self.variant_ptr}/tp"),
                                 (get(self.overrides, "tp"),
                                  ptr("strategy_overrides", self.strategy_name, "tp"))):
                key, value = ("", raw) if jsval.is_number(raw) else gates.hardware_keyed_entry(
                    raw, self.profile, self.hw_id)
                if jsval.is_number(value) and value > 0:
                    full = join_pointer(pointer, key) if key else pointer
                    return Arg(text, dotted(pointer), self.docs.recipe, full)
            if text == "1":
                pointer = f"{self.variant_ptr}/vram_minimum_gb"
                return Arg(text, dotted(pointer), self.docs.recipe, pointer)
        return Arg(text, "taxonomy:hardware_profiles", self.docs.taxonomy,
                   profile_pointer(self.hw_id, "gpu_count"))

    def pd_parallelism(self, out: list[Arg], role: str | None, pd_multi: bool) -> None:
        """Prefill/decode pool parallelism (TP/TEP over the pool's nodes, or DEP)."""
        role_key = jsval.js_str(role)
        role_cfg = or_(get(self.strategy, role), {})
        so_role = or_(get(self.overrides, role), {})
        pd_role = role_nodes(self.pd_nodes, role_key)
        pool_nodes = pd_role["nodes"] if jsval.is_number(pd_role.get("nodes")) else (
            1 if pd_multi else 0)
        gpus = self.gpu_count
        pool_gpus = jsval.floor(gpus / 2) if pool_nodes == 0 else pool_nodes * gpus
        parallelism = or_(pd_role.get("parallelism"), get(so_role, "parallelism"),
                          get(role_cfg, "parallelism"), "tp")
        allowed = gates.pd_pool_modes(self.recipe)
        if not jsval.in_list(allowed, parallelism):
            parallelism = allowed[0]
        upper = role_key.upper()
        num = jsval.js_str
        rank = jsval.to_number(jsval.nullish(pd_role.get("rank"), 0))
        pairs: list[tuple[Any, Any]] = []
        if parallelism == "dep":
            in_pool = jsval.js_max(1, pool_nodes)
            so_tp = get(so_role, "tp")
            explicit = so_tp is not None or jsval.has_key(role_cfg, "tp")
            tp_raw = so_tp if so_tp is not None else get(role_cfg, "tp")
            role_tp = jsval.nullish(tp_raw, 1)
            dp_local = jsval.js_max(1, jsval.floor(jsval.div(gpus, jsval.to_number(role_tp))))
            node_idx = jsval.js_max(0, jsval.js_min(in_pool - 1, rank))
            if explicit:
                pairs.append(("--tensor-parallel-size", num(role_tp)))
            pairs += [("--data-parallel-size", num(in_pool * dp_local)),
                      ("--data-parallel-size-local", num(dp_local)),
                      ("--data-parallel-start-rank", num(node_idx * dp_local)),
                      ("--data-parallel-address", f"${upper}_NODE_1"),
                      ("--data-parallel-rpc-port", f"${upper}_DP_RPC_PORT")]
            if in_pool > 1:
                pairs.append(("--data-parallel-hybrid-lb", None))
            pairs.append(("--enable-expert-parallel", None))
        else:
            flag = or_(get(so_role, "parallel_flag"), get(role_cfg, "parallel_flag"),
                       get(self.strategy, "parallel_flag"), "--tensor-parallel-size")
            pairs.append((flag, num(jsval.js_max(1, pool_gpus))))
            if parallelism == "tep":
                pairs.append(("--enable-expert-parallel", None))
            if pool_nodes > 1:
                node_idx = jsval.js_max(0, jsval.js_min(pool_nodes - 1, rank))
                pairs += [("--nnodes", num(pool_nodes)), ("--node-rank", num(node_idx)),
                          ("--master-addr", f"${upper}_NODE_1")]
                if node_idx > 0:
                    pairs.append(("--headless", None))
        self.synth(out, pairs, f"/{role_key}")

    def override_layers(self, out: list[Arg], role: str | None) -> None:
        """Steps 4-5: strategy overrides, then hardware overrides."""
        so = self.overrides
        base = ptr("strategy_overrides", self.strategy_name)
        if truthy(so):
            if role:
                self.recipe_layer(out, get(get(so, role), "extra_args"),
                                  ptr(*split_pointer(base), role, "extra_args"))
                self.recipe_layer(out, get(get(so, role), "vllm_args"),
                                  ptr(*split_pointer(base), role, "vllm_args"))
            else:
                self.recipe_layer(out, get(so, "extra_args"), f"{base}/extra_args")
                self.recipe_layer(out, get(so, "vllm_args"), f"{base}/vllm_args")
        strategy_ho, sp = self.gen_block(get(so, "hardware_overrides"),
                                         f"{base}/hardware_overrides")
        if truthy(strategy_ho):
            self.recipe_layer(out, get(strategy_ho, "extra_args"), f"{sp}/extra_args")
        else:
            recipe_ho, rp = self.gen_block(get(self.recipe, "hardware_overrides"),
                                           "/hardware_overrides")
            self.recipe_layer(out, get(recipe_ho, "extra_args"), f"{rp}/extra_args")
            variant_ho, vp = self.gen_block(get(self.variant, "hardware_overrides"),
                                            f"{self.variant_ptr}/hardware_overrides")
            self.recipe_layer(out, get(variant_ho, "extra_args"), f"{vp}/extra_args")
        exact = get(get(so, "hardware_overrides"), self.hw_id)
        self.exact_layer(out, get(exact, "extra_args"), base)
        if role:
            role_exact = get(get(get(so, role), "hardware_overrides"), self.hw_id)
            self.exact_layer(out, get(role_exact, "extra_args"), base, role)

    def feature_layers(self, out: list[Arg], resolved: list[tuple[Any, Any]] | None = None,
                       ) -> None:
        """Step 7: enabled features (modal ones emit their effective mode; ``resolved``
        gets the ``(name, mode key)`` of each)."""
        for name in self.features:
            feat = get(get(self.recipe, "features"), name)
            if not truthy(feat) or not gates.is_feature_allowed_for_strategy(
                    feat, self.strategy_name):
                continue
            if self.kv_composing and truthy(get(get(feat, "companion"), "command")):
                continue
            fptr = ptr("features", name)
            modes = get(feat, "modes")
            if truthy(modes) and jsval.is_object(modes):
                key = gates.resolve_mode_key(feat, name, self.variant, self.variant_key,
                                             self.profile, self.hw_id,
                                             get(self.feature_modes, name))
                if resolved is not None:
                    resolved.append((name, key))
                mode = get(modes, key) if key else None
                if truthy(mode):
                    mptr = ptr(*split_pointer(fptr), "modes", key)
                    ho_key, ho = gates.hardware_keyed_entry(get(mode, "hardware_overrides"),
                                                            self.profile, self.hw_id)
                    ho_args = get(ho, "args")
                    if ho_args is not None:
                        self.recipe_layer(out, ho_args, ptr(
                            *split_pointer(mptr), "hardware_overrides", ho_key, "args"))
                    else:
                        self.recipe_layer(out, get(mode, "args"), f"{mptr}/args")
                continue
            ho, hp = self.gen_block(get(feat, "hardware_overrides"), f"{fptr}/hardware_overrides")
            ho_args = get(ho, "args")
            if ho_args is not None:
                self.recipe_layer(out, ho_args, f"{hp}/args")
            else:
                self.recipe_layer(out, get(feat, "args"), f"{fptr}/args")


def _first_truthy_block(mapping: Any, gen: Any, is_nvidia: bool) -> tuple[Any, str]:
    value = get(mapping, gen)
    if truthy(value):
        return value, jsval.js_str(gen)
    return (get(mapping, "nvidia"), "nvidia") if is_nvidia else (None, "")


def _last_index(items: list[Any], needle: str) -> int:
    for index in range(len(items) - 1, -1, -1):
        if jsval.same_value_zero(items[index], needle):
            return index
    return -1
