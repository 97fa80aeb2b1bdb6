"""Where a recipe declares ``vllm serve`` arguments and environment variables, and which
CLI serves each list (vLLM, vLLM-Omni or vLLM-Ascend).

:func:`collect_layers` lists every argument list of a recipe as an :class:`ArgLayer`
(in the order the recipe's schema lists them; which lists meet in one command and in
what order is the renderer's business, :mod:`validator.render`); :func:`external_layers`
adds the strategy files' lists;
:func:`env_maps` lists the environment maps. :func:`platform_plugin` /
:func:`layer_plugin` say which plugin serves a recipe or a layer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from validator.analysis.recipe_data import as_dict, as_list, get, items
from validator.findings import Related
from validator.sourcemap import join_pointer
from validator.vllm_cli import argv
from validator.vllm_cli.plugins import ASCEND as _ASCEND_PLUGIN
from validator.vllm_cli.plugins import OMNI as _OMNI_PLUGIN

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument

#: Plugin families (PyPI names) of the CLI registries in :mod:`validator.analysis.cli_plan`.
OMNI, ASCEND = _OMNI_PLUGIN.name, _ASCEND_PLUGIN.name


# --------------------------------------------------------------------------- layers


@dataclass(frozen=True)
class ArgLayer:
    """One argument list of a recipe, with what selects it (``variant``, ``strategy``,
    ``hardware`` key, ``feature``, the variants of a feature mode) and which CLI checks
    it. It carries no render position: which lists meet in one command, and what
    overrides what there, is the renderer's (``Rendered.overrides``)."""

    pointer: str
    tokens: tuple[str, ...]
    label: str
    variant: str | None = None
    strategy: str | None = None
    hardware: str | None = None
    feature: str | None = None
    mode_variants: tuple[str, ...] = ()
    anchor: str | None = None
    origin: LoadedDocument | None = None
    scalar: bool = False
    """A single value the site renders as the item ``[value, size]`` (a ``parallel_flag``):
    its items are reported at ``pointer`` itself."""
    unlisted: bool = False
    """A list the recipe does not name (a KV offload option the site offers it without a
    ``kv_offload_support`` entry): its defects are reported as warnings at most -- true
    of the commands the site shows, but not a line of the recipe, and an option the
    taxonomy adds for every recipe must not fail the recipes it reaches."""

    def site(self, doc: LoadedDocument, index: int) -> tuple[str, tuple[Related, ...]]:
        """(pointer in the recipe, related locations) for item ``index`` of this layer;
        items of another file (a strategy, the taxonomy) are reported at ``anchor`` with
        a :class:`Related` pointing into that file."""
        if self.origin is None or self.anchor is None:
            return (self.pointer if self.scalar else join_pointer(self.pointer, index)), ()
        pointer = join_pointer(self.pointer, index)
        line = self.origin.source_map.position(pointer)[0]
        return self.anchor, (Related(line, f"{self.label} item {index}", self.origin.path,
                                     pointer),)


STRATEGY_ARG_LISTS = ("/vllm_args", "/prefill/vllm_args", "/decode/vllm_args")
"""Where a strategy keeps the arguments the site adds to ``vllm serve``."""
PARALLEL_FLAGS = ("/parallel_flag", "/prefill/parallel_flag", "/decode/parallel_flag")
"""Where a strategy names the flag the site prints before the parallel size (unquoted,
as every flag item)."""
PARALLEL_SIZE = "1"
"""The parallel size a :func:`parallel_flag_layers` layer gives its flag: the site prints
the size it computes there; only the flag is the strategy's (issues of this item are not)."""


def parallel_flag_layers(data: Any, **kw: Any) -> Iterator[ArgLayer]:
    """Each ``parallel_flag`` a strategy names (a non-empty string: another shape is the
    schema's), as the list ``[flag, size]`` the site renders it into at ``/parallel_flag``
    (:data:`PARALLEL_FLAGS`): judged by the FLAG engine like an item of ``vllm_args``
    (``kw``: the rest of the :class:`ArgLayer`, for a recipe's view of the strategy)."""
    for pointer in PARALLEL_FLAGS:
        flag = get(data, *pointer.strip("/").split("/"))
        if isinstance(flag, str) and flag:
            yield ArgLayer(pointer, (flag, PARALLEL_SIZE), pointer[1:].replace("/", "."), **kw)


def parallel_flag_value(layer: ArgLayer) -> tuple[str, str] | None:
    """(message, hint) when the flag of a :func:`parallel_flag_layers` layer carries its own
    value (``--tensor-parallel-size=2``): the site prints the size after it, a stray
    argument vLLM refuses; ``None`` otherwise."""
    flag = layer.tokens[0]
    key, value = argv.split_inline(flag)
    if value is None:
        return None
    return (f"{layer.label} `{flag}` already carries a value; the site prints the parallel "
            f"size after it (`{flag} N`), a stray argument",
            f"name the flag alone: {key}")


def recipe_parallel_flag_layers(data: Any) -> Iterator[ArgLayer]:
    """Each ``strategy_overrides.<strategy>.<prefill|decode>.parallel_flag`` of a recipe
    (the site reads it before the strategy file's, for that role of a PD strategy), as
    the :func:`parallel_flag_layers` item ``[flag, size]`` reported at its own line."""
    for sname, so, sptr in items(get(data, "strategy_overrides"), "/strategy_overrides"):
        for role in ("prefill", "decode"):
            flag = get(get(so, role), "parallel_flag")
            if isinstance(flag, str) and flag:
                yield ArgLayer(f"{sptr}/{role}/parallel_flag", (flag, PARALLEL_SIZE),
                               f"strategy_overrides.{sname}.{role}.parallel_flag",
                               strategy=sname, scalar=True)


def external_layers(doc: LoadedDocument, ctx: Context,
                    offered: Collection[str] = ()) -> list[ArgLayer]:
    """Argument lists the recipe pulls in from other files of its revision: the
    ``vllm_args`` of each compatible strategy (``prefill``/``decode`` for PD) and the
    ``args`` of each kv-offload option (``taxonomy.kv_offload``) the recipe lists as
    supported or the site offers it (``offered``: the keys of the options its KV Offload
    row shows beside some configuration of the recipe, listed or not). They are reported
    on the recipe line that selects them (an option the recipe does not list: on the
    recipe as a whole)."""
    out: list[ArgLayer] = []
    data = doc.data
    for i, name in enumerate(as_list(get(data, "compatible_strategies"))):
        sdoc = ctx.strategy_document(name) if isinstance(name, str) else None
        if sdoc is None or not sdoc.ok:
            continue
        anchor = f"/compatible_strategies/{i}"
        for ptr in STRATEGY_ARG_LISTS:
            toks = list_tokens(get(sdoc.data, *ptr.strip("/").split("/")))
            if toks is not None:
                out.append(ArgLayer(ptr, toks, f"{sdoc.path} {ptr[1:].replace('/', '.')}",
                                    strategy=name, anchor=anchor, origin=sdoc))
        out += [replace(layer, label=f"{sdoc.path} {layer.label}") for layer in
                parallel_flag_layers(sdoc.data, strategy=name, anchor=anchor, origin=sdoc)]
    tax = ctx.taxonomy
    options = as_dict(get(tax.data if tax is not None else None, "kv_offload"))
    listed = {key: (status, ptr) for key, status, ptr in
              items(get(data, "kv_offload_support"), "/kv_offload_support")}
    for key in [*listed, *(k for k in options if k in offered and k not in listed)]:
        status, ptr = listed.get(key, (None, ""))
        if status == "unsupported" or key not in options or tax is None:
            continue
        toks = list_tokens(get(options[key], "args"))
        if toks is not None:
            out.append(ArgLayer(f"/kv_offload/{key}/args", toks,
                                f"taxonomy.yaml kv_offload.{key}.args",
                                anchor=ptr, origin=tax, unlisted=key not in listed))
    return out


def list_tokens(value: Any) -> tuple[str, ...] | None:
    """The items of an argument list as strings, or ``None`` for an empty list or one
    holding anything but strings and numbers."""
    lst = as_list(value)
    if not lst or not all(isinstance(x, str | int | float) and not isinstance(x, bool)
                          for x in lst):
        return None
    return tuple(str(x) for x in lst)


def collect_layers(data: Any) -> list[ArgLayer]:
    """Every structured ``vllm serve`` argument list of a recipe (base args, variants,
    strategy overrides, hardware overrides, features)."""
    out: list[ArgLayer] = []

    def add(pointer: str, value: Any, label: str, **kw: Any) -> None:
        toks = list_tokens(value)
        if toks is not None:
            out.append(ArgLayer(pointer, toks, label, **kw))

    add("/model/base_args", get(data, "model", "base_args"), "model.base_args")
    for vname, variant, vptr in items(get(data, "variants"), "/variants"):
        add(vptr + "/extra_args", get(variant, "extra_args"), f"variants.{vname}.extra_args",
            variant=vname)
        for hw, ho, hptr in items(get(variant, "hardware_overrides"), vptr + "/hardware_overrides"):
            add(hptr + "/extra_args", get(ho, "extra_args"),
                f"variants.{vname}.hardware_overrides.{hw}.extra_args", variant=vname,
                hardware=hw)
    for sname, so, sptr in items(get(data, "strategy_overrides"), "/strategy_overrides"):
        for key in ("extra_args", "vllm_args"):
            add(f"{sptr}/{key}", get(so, key), f"strategy_overrides.{sname}.{key}",
                strategy=sname)
        for hw, ho, hptr in items(get(so, "hardware_overrides"), sptr + "/hardware_overrides"):
            add(hptr + "/extra_args", get(ho, "extra_args"),
                f"strategy_overrides.{sname}.hardware_overrides.{hw}.extra_args",
                strategy=sname, hardware=hw)
        for role in ("prefill", "decode"):
            rcfg = get(so, role)
            for key in ("extra_args", "vllm_args"):
                add(f"{sptr}/{role}/{key}", get(rcfg, key),
                    f"strategy_overrides.{sname}.{role}.{key}", strategy=sname)
            for hw, ho, hptr in items(get(rcfg, "hardware_overrides"),
                                      f"{sptr}/{role}/hardware_overrides"):
                add(hptr + "/extra_args", get(ho, "extra_args"),
                    f"strategy_overrides.{sname}.{role}.hardware_overrides.{hw}.extra_args",
                    strategy=sname, hardware=hw)
    for hw, ho, hptr in items(get(data, "hardware_overrides"), "/hardware_overrides"):
        add(hptr + "/extra_args", get(ho, "extra_args"), f"hardware_overrides.{hw}.extra_args",
            hardware=hw)
    for fname, feat, fptr in items(get(data, "features"), "/features"):
        add(fptr + "/args", get(feat, "args"), f"features.{fname}.args", feature=fname)
        for hw, ho, hptr in items(get(feat, "hardware_overrides"), fptr + "/hardware_overrides"):
            add(hptr + "/args", get(ho, "args"), f"features.{fname}.hardware_overrides.{hw}.args",
                feature=fname, hardware=hw)
        for mname, mode, mptr in items(get(feat, "modes"), fptr + "/modes"):
            mv = tuple(v for v in as_list(get(mode, "variants")) if isinstance(v, str))
            add(mptr + "/args", get(mode, "args"), f"features.{fname}.modes.{mname}.args",
                feature=fname, mode_variants=mv)
            for hw, ho, hptr in items(get(mode, "hardware_overrides"),
                                      mptr + "/hardware_overrides"):
                add(hptr + "/args", get(ho, "args"),
                    f"features.{fname}.modes.{mname}.hardware_overrides.{hw}.args",
                    feature=fname, hardware=hw, mode_variants=mv)
    return out


# --------------------------------------------------------------------------- plugins

#: Hardware ids served through vLLM-Ascend (Huawei Atlas / Ascend NPUs).
ASCEND_HW = re.compile(r"ascend|atlas|npu|huawei", re.IGNORECASE)


def npu_hardware(ctx: Context) -> Callable[[str], bool]:
    """A predicate: is this hardware key (a profile id, or a brand/generation key as
    ``hardware_overrides`` use them) served through vLLM-Ascend? From the taxonomy: the
    profiles with ``brand: Huawei`` or ``generation: npu`` and the keys that cover only
    those; a key the taxonomy does not know falls back to its name (:data:`ASCEND_HW`).
    Built once per context."""
    return ctx.memoised("arg_layers.npu_hardware", lambda: _npu_predicate(ctx))


def _npu_predicate(ctx: Context) -> Callable[[str], bool]:
    profiles = ctx.hardware_profiles
    groups = ctx.hardware_groups
    npu = {pid.lower() for pid, p in profiles.items()
           if str(p.get("brand", "")).lower() == "huawei"
           or "npu" in [str(g).lower() for g in as_list(p.get("generation"))]}
    npu |= {key for key, ids in groups.items() if ids and {i.lower() for i in ids} <= npu}
    known = {pid.lower() for pid in profiles} | set(groups)

    def is_npu(key: str) -> bool:
        k = key.lower()
        return k in npu or (k not in known and bool(ASCEND_HW.search(k)))

    return is_npu


def platform_plugin(data: Any) -> str | None:
    """``"vllm-omni"`` (the plugin family, see :mod:`validator.vllm_cli.plugins`) when the
    recipe is served by vLLM-Omni (``meta.tasks`` has ``omni``), else ``None``."""
    tasks = get(data, "meta", "tasks")
    # a string or mapping is a SCHEMA001 error; its intent still decides which CLI applies
    named = [tasks] if isinstance(tasks, str) else list(tasks) if isinstance(
        tasks, dict) else as_list(tasks)
    return OMNI if "omni" in named else None


def is_ascend_tokens(tokens: Sequence[str]) -> bool:
    """Whether an argument list selects vLLM-Ascend by itself: ``--quantization ascend``
    (also ``=ascend``, any spelling vLLM normalises to it) or ``--additional-config``
    (the object vLLM hands to the platform plugin)."""
    for i, tok in enumerate(tokens):
        key, inline = argv.split_inline(tok)
        norm = argv.normalise(key)
        if norm == "--additional-config":
            return True
        if norm == "--quantization":
            value = inline if inline is not None else (tokens[i + 1] if i + 1 < len(tokens)
                                                       else "")
            if value == "ascend":
                return True
    return False


def ascend_variants(data: Any, is_npu: Callable[[str], bool]) -> set[str]:
    """Variants served by the vLLM-Ascend plugin: their ``extra_args`` select
    ``--quantization ascend`` or pass ``--additional-config``, or they are supported only
    on NPU hardware (``is_npu``, see :func:`npu_hardware`)."""
    out: set[str] = set()
    for vname, variant, _ in items(get(data, "variants"), "/variants"):
        toks = list_tokens(get(variant, "extra_args")) or ()
        hw = [h for h in as_list(get(variant, "supported_hardware")) if isinstance(h, str)]
        if is_ascend_tokens(toks) or (hw and all(is_npu(h) for h in hw)):
            out.add(vname)
    return out


def layer_plugin(layer: ArgLayer, ascend: set[str],
                 is_npu: Callable[[str], bool]) -> str | None:
    """The platform plugin family that serves ``layer`` (``"vllm-ascend"``) or ``None``.

    A hardware override applies to its hardware only: an NPU key makes it vLLM-Ascend's,
    any other key keeps it vLLM's even when its arguments look like Ascend's."""
    if layer.hardware:
        return ASCEND if is_npu(layer.hardware) else None
    if layer.variant in ascend:
        return ASCEND
    if layer.mode_variants and all(v in ascend for v in layer.mode_variants):
        return ASCEND
    if is_ascend_tokens(layer.tokens):
        return ASCEND
    return None


def env_maps(data: Any) -> Iterator[tuple[str, str, str | None, str | None]]:
    """``(pointer, label, variant, hardware key)`` of every environment map of a recipe."""
    yield "/model/base_env", "model.base_env", None, None
    for hw, _, hptr in items(get(data, "hardware_overrides"), "/hardware_overrides"):
        yield hptr + "/extra_env", f"hardware_overrides.{hw}.extra_env", None, hw
    for vname, variant, vptr in items(get(data, "variants"), "/variants"):
        yield vptr + "/extra_env", f"variants.{vname}.extra_env", vname, None
        for hw, _, hptr in items(get(variant, "hardware_overrides"), vptr + "/hardware_overrides"):
            yield (hptr + "/extra_env", f"variants.{vname}.hardware_overrides.{hw}.extra_env",
                   vname, hw)
    for sname, so, sptr in items(get(data, "strategy_overrides"), "/strategy_overrides"):
        for key in ("env", "extra_env"):
            yield f"{sptr}/{key}", f"strategy_overrides.{sname}.{key}", None, None
            for role in ("prefill", "decode"):
                if isinstance(get(so, role), dict):
                    yield (f"{sptr}/{role}/{key}", f"strategy_overrides.{sname}.{role}.{key}",
                           None, None)
        for hw, _, hptr in items(get(so, "hardware_overrides"), sptr + "/hardware_overrides"):
            yield (hptr + "/extra_env", f"strategy_overrides.{sname}.hardware_overrides.{hw}",
                   None, hw)


