"""The values of the rendering API: a :class:`Configuration` (what the site's picker
chooses) and the :class:`Rendered` configuration (commands, argument tokens with the YAML
node each comes from, processes, the site's JSON, problems), with the :class:`Token` and
:class:`Process` parts. :mod:`validator.render.renderer` renders them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, NamedTuple, TypeVar

from validator.load import LoadedDocument
from validator.render import gates, jsval
from validator.render.args import Override
from validator.render.jsval import get, or_, truthy
from validator.render.omni import is_omni
from validator.render.site import Planned, VariantPlan, plan_variant
from validator.render.types import RenderProblem

T = TypeVar("T")


class Token(NamedTuple):
    """One argv token and the YAML node it came from.

    ``layer`` names the source (``model.base_args``, ``variants.fp8.extra_args``,
    ``features.reasoning.args``, ``strategy:multi_node_tp``, ``taxonomy:kv_offload.simple``,
    ``kv_store:<id>``, ``taxonomy:hardware_profiles`` for a TP size taken from the GPU
    count, ``vllm`` for the ``vllm serve`` words); ``pointer`` is the JSON Pointer inside
    ``document`` (the recipe path, or a taxonomy / strategy file; "" when synthesized).
    """

    text: str
    layer: str
    pointer: str
    document: str


@dataclass(frozen=True)
class Process:
    """One process of a deployment: ``serve`` (single node), ``head`` / ``worker N``
    (multi-node), ``prefill`` / ``decode`` (PD), ``vllm`` / ``vllm worker N`` (KV store)."""

    role: str
    command: str | None
    """The ``vllm serve`` command text (``None`` where the rendering made none:
    :func:`~validator.render.renderer.render_all`'s ``command_texts``)."""
    argv: tuple[Any, ...]
    docker_command: str | None
    docker_argv: tuple[Any, ...] | None
    env: Mapping[str, Any]
    tokens: tuple[Token, ...]
    env_sources: Mapping[str, Token] = field(default_factory=dict)
    """Env key -> the YAML node its value comes from (``Rendered.env_sources`` of the
    first process; a pd_cluster role's own)."""


@dataclass(frozen=True)
class Configuration:
    """A configuration as the site's builder selects it.

    ``strategy`` is the serving strategy passed to the site's ``resolveCommand`` (for a
    Mooncake composition ``kv_offload`` names the kv-store deployment); ``pd_nodes`` the
    per-role node counts of pd_cluster (``(("prefill", 2), ("decode", 2))``).
    """

    hardware: str
    variant: str = "default"
    strategy: str = "single_node_tp"
    features: tuple[str, ...] = ()
    nodes: int = 1
    pd_nodes: tuple[tuple[str, Any], ...] | None = None
    feature_modes: tuple[tuple[str, str], ...] = ()
    kv_offload: str | None = None
    kv_instances: int | None = None
    advanced_args: tuple[str, ...] = ()
    omni_task: str | None = None
    """vLLM-Omni recipes: the ``omni.tasks`` entry (by ``id``) whose ``model_id`` /
    ``extra_args`` apply (the site maps tasks with code outside the oracle: this mapping is
    ours and unverified); ``None``: no task."""
    kv_option: str | None = None
    """A taxonomy ``kv_offload`` option composing with the configuration (a pill of the
    site's KV Offload row: :mod:`validator.render.offload`); ``None``: none. The site
    passes it as ``kvOffload``, the argument :attr:`kv_offload` fills for a kv-store."""

    @property
    def key(self) -> str:
        """The site's name of the choice (the kv-store id for a composition; a KV offload
        option leaves the strategy the choice)."""
        return self.kv_offload or self.strategy

    @property
    def site_kv_offload(self) -> str | None:
        """What the site's ``resolveCommand`` gets as ``kvOffload``: the kv-store id, else
        the KV offload option."""
        return self.kv_offload if self.kv_offload is not None else self.kv_option

    def label(self) -> str:
        """``h200 · fp8 · multi_node_tp ×2`` (``… + KV offload simple`` with an option;
        for messages)."""
        parts = [self.hardware, self.variant, self.key]
        if self.nodes != 1:
            parts[-1] += f" ×{self.nodes}"
        if self.kv_option is not None:
            parts[-1] += f" + KV offload {self.kv_option}"
        return " · ".join(parts)

    def as_json(self) -> dict[str, Any]:
        """The configuration as a JSON object (``kv_option`` only when it has one, so a
        configuration without reads as it always did)."""
        out = asdict(self)
        if self.kv_option is None:
            del out["kv_option"]
        return out

    @classmethod
    def defaults(cls, recipe: LoadedDocument, taxonomy: LoadedDocument | None,
                 strategies: Mapping[str, LoadedDocument], *, hardware: str | None = None,
                 variant: str | None = None, strategy: str | None = None,
                 features: Sequence[str] | None = None, nodes: int | None = None,
                 ) -> Configuration:
        """The site's defaults for every part not given: variant ``default``, the landing
        hardware, the recommended strategy and node count of the build, the default
        feature set (``opt_in_features`` off). A given ``strategy`` takes the build's node
        count and PD sizing for that alternative; a kv-store id composes with the serving
        strategy the build picks."""
        data = recipe.data if recipe.ok else {}
        tax = document_data(taxonomy)
        if is_omni(data):
            return cls(_omni_default_hardware(data, tax, hardware, variant),
                       variant or "default", strategy or "omni")
        strat = {k: document_data(v) for k, v in strategies.items()}
        variant_key = variant or "default"
        v = or_(get(get(data, "variants"), variant_key), get(get(data, "variants"), "default"),
                {})
        hw = hardware or gates.pick_default_hardware(
            or_(get(tax, "hardware_profiles"), {}), v, data)
        try:
            plan = plan_variant(data, variant_key, hw, strat, tax)
        except jsval.JsTypeError:
            plan = None
        chosen = None
        if plan is not None:
            if variant is None:
                variant_key = plan.variant
            chosen = _planned_choice(plan, data, tax, hw, strategy, nodes)
        try:
            default_feats = tuple(site_features(data, hw, variant_key))
        except jsval.JsTypeError:
            default_feats = ()
        if chosen is None:
            serving = strategy or (plan.configurations[0].strategy if plan else
                                   _recommend(data))
            kv = None
            if get(get(strat, serving), "deploy_type") == "kv_store_lb":
                kv, serving = serving, _recommend(data)
            return cls(hw, variant_key, serving, tuple(features) if features is not None
                       else default_feats, nodes or 1, None, (), kv)
        pd = tuple(chosen.pd_nodes.items()) if chosen.pd_nodes else None
        return cls(hw, variant_key, chosen.strategy,
                   tuple(features) if features is not None else chosen.features,
                   nodes or int(jsval.to_number(chosen.nodes)), pd, (), chosen.kv_offload)


def _omni_default_hardware(data: Any, tax: Any, hardware: str | None,
                           variant: str | None) -> str:
    """``hardware``, else the landing hardware of an omni recipe's variant (``h200``
    where the site's pick throws)."""
    v = or_(get(get(data, "variants"), variant or "default"), {})
    try:
        return hardware or gates.pick_default_hardware(
            or_(get(tax, "hardware_profiles"), {}), v, data)
    except jsval.JsTypeError:
        return hardware or "h200"


def _planned_choice(plan: VariantPlan, data: Any, tax: Any, hw: str, strategy: str | None,
                    nodes: int | None) -> Planned | None:
    """The configuration of ``plan`` for ``strategy`` (default: the recommended one, or the
    site's recommendation for ``nodes`` when that is not the recommended count)."""
    wanted = strategy or plan.configurations[0].key
    if strategy is None and nodes is not None and nodes != plan.configurations[0].nodes:
        # picking a node count re-runs the site's recommendation for it
        profile = get(get(tax, "hardware_profiles"), hw)
        try:
            again = gates.recommend_strategy(data, profile, nodes)
        except jsval.JsTypeError:
            again = None
        if jsval.in_list(plan.compatible, again):
            wanted = again
    return next((p for p in plan.configurations if p.key == wanted), None)


def _recommend(data: Any) -> str:
    try:
        return jsval.js_str(gates.recommend_strategy(data, None, 1))
    except jsval.JsTypeError:
        return "single_node_tp"


def site_features(data: Any, hw: str, variant: str) -> list[str]:
    """The default feature set (see :func:`validator.render.site.default_features_for`)."""
    from validator.render.site import default_features_for

    return default_features_for(data, hw, variant)


@dataclass(frozen=True)
class Rendered:
    """One configuration as the site renders it.

    ``command``/``argv``/``docker_*``/``tokens`` are those of the first process (the
    single-node command, the multi-node head, the PD prefill, the KV-store instance);
    ``processes`` holds every process. ``site`` is the JSON the site's build writes for this
    configuration (``None`` when the site cannot render it: see ``problems``).
    ``install`` is the JSON API's install block, ``compatible_hardware`` the picker's list
    for the variant (``restricted`` profiles only where the recipe declares them).
    """

    config: Configuration
    recipe_path: str
    ok: bool
    node_count: Any = None
    deploy_type: str | None = None
    env: Mapping[str, Any] = field(default_factory=dict)
    docker_image: Any = None
    command: str | None = None
    argv: tuple[Any, ...] = ()
    docker_command: str | None = None
    docker_argv: tuple[Any, ...] = ()
    tokens: tuple[Token, ...] = ()
    processes: tuple[Process, ...] = ()
    env_sources: Mapping[str, Token] = field(default_factory=dict)
    install: Mapping[str, Any] | None = None
    compatible_hardware: tuple[str, ...] = ()
    default_hardware: str | None = None
    site: Mapping[str, Any] | None = None
    problems: tuple[RenderProblem, ...] = ()
    overrides: tuple[Override, ...] = ()
    """Every flag the site's last-wins de-duplication drops from a process's arguments,
    with the later unit that wins (the renderer's own order, not a guess)."""

    @property
    def hardware(self) -> str:
        """The hardware profile id."""
        return self.config.hardware

    @property
    def variant(self) -> str:
        """The variant key."""
        return self.config.variant

    @property
    def strategy(self) -> str:
        """The site's name of the choice (strategy id, or the kv-store id)."""
        return self.config.key


def whole_maker(cls: type[T]) -> Callable[..., T]:
    """A constructor of the frozen dataclass ``cls`` from a value for each of its fields,
    in order: the object its ``__init__`` makes (no ``__post_init__``), its fields set at
    once instead of one ``object.__setattr__`` each (the renderer makes one
    :class:`Rendered` per configuration and one :class:`Process` per process)."""
    names = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]
    new, size = object.__new__, len(names)

    def make(*values: Any) -> T:
        if len(values) != size:  # (so the zip below pairs every value: no strict check)
            raise TypeError(f"{cls.__name__} needs {size} values, not {len(values)}")
        made = new(cls)
        made.__dict__.update(zip(names, values))  # noqa: B905
        return made

    return make


new_rendered = whole_maker(Rendered)
""":class:`Rendered` from a value for each field, in order (see :func:`whole_maker`)."""
new_process = whole_maker(Process)
""":class:`Process` from a value for each field, in order (see :func:`whole_maker`)."""
new_configuration = whole_maker(Configuration)
""":class:`Configuration` from a value for each field, in order (see :func:`whole_maker`):
``render_all`` makes one per configuration it renders."""


def document_data(doc: LoadedDocument | None) -> Any:
    """The loaded data of a context document as the renderer reads it: ``{}`` for an
    absent or unloadable one."""
    return doc.data if doc is not None and doc.ok else {}


def variant_configurations(data: Any, variant_key: str, profiles: Any, strat: Any, tax: Any,
                           feature_sets: bool, memo: dict[Any, Any] | None = None,
                           ) -> list[Configuration]:
    """The configurations :func:`~validator.render.renderer.render_all` renders for one
    variant: per picker hardware (its default first), each planned configuration and --
    with ``feature_sets`` -- the same with every feature on, each modal feature in each
    of its modes. ``memo``: the renderer's memo of the recipe (see
    :func:`~validator.render.renderer.render`), which keeps the picker of the variant
    (``("hardware", variant_key)``) and the strategies offered on each hardware."""
    variant = get(get(data, "variants"), variant_key)
    default = gates.pick_default_hardware(profiles, variant, data)
    picker = gates.picker_hardware(profiles, variant, data)
    if memo is not None and truthy(variant):  # the variant the renderer's picker reads
        memo["hardware", variant_key] = (tuple(picker), default, None)
    hw_ids = [default, *(h for h in picker if h != default)]
    configs: list[Configuration] = []
    all_features = tuple(jsval.keys(or_(get(data, "features"), {})))
    modal: list[tuple[tuple[str, str], ...]] = []
    for hw in hw_ids:
        plan = plan_variant(data, variant_key, hw, strat, tax, memo)
        if plan is None or plan.variant != variant_key:
            continue
        for p in plan.configurations:
            base = new_configuration(hw, variant_key, p.strategy, p.features,
                                     int(jsval.to_number(p.nodes)),
                                     tuple(p.pd_nodes.items()) if p.pd_nodes else None, (),
                                     p.kv_offload, None, (), None, None)
            configs.append(base)
            if feature_sets and all_features:
                configs += _feature_variants(data, base, all_features, modal)
    return configs


def _feature_variants(data: Any, base: Configuration, all_features: tuple[str, ...],
                      modal: list[tuple[tuple[str, str], ...]]) -> list[Configuration]:
    """``base`` with every feature on, then each modal feature in each of its modes;
    ``modal``: the mode choices per modal feature, filled at the first call (a variant
    with no configuration reads no mode)."""
    if not modal:
        modal.append(())  # the list is filled: empty for a recipe without modal features
        for name in all_features:
            modes = get(get(get(data, "features"), name), "modes")
            if jsval.is_object(modes) and truthy(modes):
                modal.extend(((name, m),) for m in jsval.keys(modes))
    hw, variant, strategy, nodes, pd, kv = (base.hardware, base.variant, base.strategy,
                                            base.nodes, base.pd_nodes, base.kv_offload)
    return [new_configuration(hw, variant, strategy, all_features, nodes, pd, modes, kv, None,
                              (), None, None) for modes in modal]
