"""``FLAG`` rules that combine argument lists: what one list alone cannot show.

``FLAG010`` (auto tool choice and its parser in one command), ``FLAG012`` (a later layer
overrides an earlier one), ``FLAG015`` (``--max-model-len`` against ``context_length``)
and ``FLAG016`` (``VLLM_*`` variables). Each reads the shared model of
:mod:`validator.checks.flag_model` and keeps its own logic next to its documentation;
running one of them computes nothing the others need alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from validator.checks._data import as_dict, as_list, get
from validator.checks.arg_layers import (
    ASCEND,
    ArgLayer,
    ascend_variants,
    env_maps,
    npu_hardware,
    platform_plugin,
)
from validator.checks.cli_plan import VLLM, plan_for
from validator.checks.flag_engine import env_issue, parse_int, recipe_minimum
from validator.checks.flag_model import FLAG_READS, gate, layer_model, line_of, reported
from validator.checks.registry import Hit, rule
from validator.findings import Related, Severity
from validator.sourcemap import join_pointer, split_pointer
from validator.vllm_cli.argv import ParsedArgs

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


# --------------------------------------------------------------------------- FLAG010


@rule("FLAG010", Severity.ERROR, "--enable-auto-tool-choice without --tool-call-parser",
      reads=FLAG_READS)
def auto_tool_choice_without_parser(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """vLLM refuses to start when ``--enable-auto-tool-choice`` is set without
    ``--tool-call-parser`` (``validate_parsed_serve_args``). Checked over the arguments
    rendered together: base args, the feature's own args, default-on features and the
    variant's args.

    Failing::

        features:
          tool_calling:
            args: ["--enable-auto-tool-choice"]

    Passing::

        features:
          tool_calling:
            args: ["--enable-auto-tool-choice", "--tool-call-parser", "hermes"]

    How to fix: add ``--tool-call-parser <name>`` to a list rendered with the flag."""
    model = layer_model(doc, ctx)
    out: list[Hit] = []
    _auto_tool_choice(doc, model.layers, model.parsed, model.where, out)
    return reported("FLAG010", doc, ctx, out)


def _default_features(data: Any) -> set[str]:
    opt_in = {f for f in as_list(get(data, "opt_in_features")) if isinstance(f, str)}
    return {f for f in as_dict(get(data, "features")) if f not in opt_in}


def _auto_tool_choice(doc: LoadedDocument, layers: list[ArgLayer],
                      parsed: dict[str, ParsedArgs], where: dict[str, tuple[int, ...]],
                      out: list[Hit]) -> None:
    data = doc.data
    base = parsed.get("/model/base_args")
    defaults = _default_features(data)
    for layer in layers:
        result = parsed.get(layer.pointer)
        if result is None:
            continue
        for opt in result.find("enable_auto_tool_choice"):
            if (opt.option or "").startswith("--no-"):
                continue
            pool = [result, base]
            pool += [parsed.get(x.pointer) for x in layers
                     if x.feature is not None and (x.feature in defaults
                                                   or x.feature == layer.feature)
                     and x.hardware is None]
            if layer.variant is not None:
                pool += [parsed.get(x.pointer) for x in layers
                         if x.variant == layer.variant and x.hardware is None]
            if any(p is not None and p.has("tool_call_parser") for p in pool):
                continue
            out.append(Hit(layer.site(doc, where[layer.pointer][opt.index])[0],
                                   "--enable-auto-tool-choice without --tool-call-parser in "
                                   "the same command: vLLM refuses to start",
                                   "add --tool-call-parser <name> next to it"))


# --------------------------------------------------------------------------- FLAG012


@rule("FLAG012", Severity.INFO, "A later layer overrides an earlier flag",
      reads=FLAG_READS)
def later_layer_overrides(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A flag set in one layer (e.g. ``model.base_args``) is set again by a layer rendered
    after it in the same command (variant, strategy or hardware override, feature), which
    wins (site ``dedupeArgs`` last-wins, and argparse last-wins). Both lines are named so
    the override can be confirmed as intended. Reported only where it changes what a user
    sees: not when both set the same value, and with ``--rendered`` only when the
    overriding token reaches a command the site renders.

    Failing::

        model:
          base_args: ["--max-model-len", "32768"]
        variants:
          default:
            extra_args: ["--max-model-len", "16384"]

    Passing::

        model:
          base_args: ["--max-model-len", "32768"]
        variants:
          default:
            extra_args: ["--max-model-len", "32768"]

    How to fix: nothing when the override is intended; otherwise remove the flag from one of
    the two layers."""
    model = layer_model(doc, ctx)
    out: list[Hit] = []
    _shadowing(doc, ctx, model.layers, model.parsed, model.where, out)
    return reported("FLAG012", doc, ctx, out)


def _order(layer: ArgLayer, profiles: dict[str, Any]) -> int:
    """Render position; a variant override keyed by an exact profile id is emitted right
    after the variant's own args (site ``buildArgs`` step 2), a generation key later."""
    if layer.order == 51 and layer.hardware in profiles:
        return 21
    return layer.order


def _co_render(a: ArgLayer, b: ArgLayer, groups: dict[str, set[str]],
               profiles: dict[str, Any]) -> bool:
    """Whether layers ``a`` and ``b`` can end up in one rendered command."""
    for x, y in ((a.variant, b.variant), (a.strategy, b.strategy), (a.role, b.role)):
        if x is not None and y is not None and x != y:
            return False
    if a.role is not None and b.strategy is not None and b.role is None and b.order == 40:
        return False
    if b.role is not None and a.strategy is not None and a.role is None and a.order == 40:
        return False
    if a.feature is not None and a.feature == b.feature and a.group != b.group:
        return False
    if a.hardware is not None and b.hardware is not None and a.hardware != b.hardware:
        # keys are profile ids, generations or brands: they meet on a common profile
        ga = groups.get(a.hardware.lower(), {a.hardware})
        gb = groups.get(b.hardware.lower(), {b.hardware})
        if not ga & gb:
            return False
    # a strategy hardware override replaces the recipe's and the variant's for its key
    orders = {_order(a, profiles), _order(b, profiles)}
    return orders not in ({50, 52}, {51, 52})


def _shadowing(doc: LoadedDocument, ctx: Context, layers: list[ArgLayer],
               parsed: dict[str, ParsedArgs], where: dict[str, tuple[int, ...]],
               out: list[Hit]) -> None:
    groups = ctx.hardware_groups
    profiles = ctx.hardware_profiles
    ordered = sorted(layers, key=lambda x: _order(x, profiles))
    for j, later in enumerate(ordered):
        lp = parsed.get(later.pointer)
        if lp is None:
            continue
        for earlier in ordered[:j]:
            ep = parsed.get(earlier.pointer)
            if ep is None or (_order(earlier, profiles) == _order(later, profiles)
                              and earlier.order != 70):
                continue
            if not _co_render(earlier, later, groups, profiles):
                continue
            first = {o.ident: o for o in ep.options if o.spec is not None}
            for opt in lp.options:
                prev = first.get(opt.ident)
                if prev is None or opt.spec is None:
                    continue
                if later.origin is not None:
                    continue
                eptr, erel = earlier.site(doc, where[earlier.pointer][prev.index])
                eline = erel[0].line if erel else line_of(doc, eptr)
                # the line goes in ``related``, not the message: messages stay stable
                # when lines move (history diffs and fingerprints compare messages)
                where_txt = f" ({erel[0].path})" if erel else ""
                if prev.values == opt.values:
                    continue  # the same value: the rendered command does not change
                lptr, _ = later.site(doc, where[later.pointer][opt.index])
                out.append(Hit(lptr, f"`{opt.display}` in {later.label} overrides "
                                       f"`{' '.join((prev.display, *prev.values))}` of "
                                       f"{earlier.label}{where_txt}", None,
                                       related=erel or (Related(eline, earlier.label),)))


# --------------------------------------------------------------------------- FLAG015


@rule("FLAG015", Severity.ERROR, "--max-model-len above the model's context_length",
      reads=FLAG_READS)
def max_model_len_above_context(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """``--max-model-len`` is larger than ``model.context_length``: vLLM refuses to start
    (``_get_and_verify_max_len``) unless the context is extended (rope scaling through
    ``--hf-overrides``/``--rope-scaling`` in the same list) or an environment map of the
    recipe sets ``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1``; both exempt the list.

    Failing::

        model:
          context_length: 131072
          base_args: ["--max-model-len", "262144"]

    Passing::

        model:
          context_length: 131072
          base_args: ["--max-model-len", "262144"]
          base_env: {VLLM_ALLOW_LONG_MAX_MODEL_LEN: "1"}

    How to fix: lower ``--max-model-len``, correct ``context_length``, or extend the
    context deliberately (rope scaling or the environment variable)."""
    model = layer_model(doc, ctx)
    out: list[Hit] = []
    for layer in model.layers:
        parsed = model.parsed.get(layer.pointer)
        if parsed is not None:
            _max_model_len(doc, layer, parsed, model.where[layer.pointer], out)
    return reported("FLAG015", doc, ctx, out)


def _max_model_len(doc: LoadedDocument, layer: ArgLayer, parsed: ParsedArgs,
                   where: Sequence[int], out: list[Hit]) -> None:
    ctx_len = get(doc.data, "model", "context_length")
    if not isinstance(ctx_len, int) or isinstance(ctx_len, bool) or ctx_len <= 0:
        return
    if parsed.has("hf_overrides") or parsed.has("rope_scaling") or _allows_long(doc):
        return
    for opt in parsed.find("max_model_len"):
        n = parse_int(opt.value)
        if n is not None and n > ctx_len:
            out.append(Hit(layer.site(doc, where[opt.index])[0],
                                   f"--max-model-len {opt.value} is above the model's "
                                   f"context_length {ctx_len}: vLLM refuses to start",
                                   f"use at most {ctx_len}, correct model.context_length, or "
                                   "extend the context (rope scaling in --hf-overrides, or "
                                   "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 in base_env)",
                                   related=(Related(line_of(doc, "/model/context_length"),
                                                    "model.context_length"),)))


def _allows_long(doc: LoadedDocument) -> bool:
    """Whether an environment map of the recipe sets ``VLLM_ALLOW_LONG_MAX_MODEL_LEN``."""
    for pointer, *_ in env_maps(doc.data):
        env = as_dict(get(doc.data, *split_pointer(pointer)))
        if str(env.get("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "")).strip() not in ("", "0"):
            return True
    return False


# --------------------------------------------------------------------------- FLAG016


@rule("FLAG016", Severity.WARNING, "VLLM_* environment variable not read",
      reads=FLAG_READS)
def env_var_not_read(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A ``VLLM_*`` variable in ``base_env``, ``extra_env`` or a strategy ``env`` is not read
    by the recipe's minimum vLLM (it is newer, older, or unknown), or is no longer read by
    the newest release. Names come from ``vllm/envs.py`` of each release.

    Failing::

        model:
          base_env: {VLLM_NOT_A_REAL_VARIABLE: "1"}

    Passing::

        model:
          base_env: {VLLM_LOGGING_LEVEL: "INFO"}

    How to fix: drop the variable, or use the name the release reads."""
    out: list[Hit] = []
    if not gate(doc, ctx).stop:
        is_npu = npu_hardware(ctx)
        _env_vars(doc, ctx, ascend_variants(doc.data, is_npu), is_npu, out)
    return reported("FLAG016", doc, ctx, out)


def _env_vars(doc: LoadedDocument, ctx: Context, ascend: set[str],
              is_npu: Callable[[str], bool], out: list[Hit]) -> None:
    data = doc.data
    served_by = platform_plugin(data)
    for pointer, label, variant, hardware in env_maps(data):
        npu = is_npu(hardware) if hardware else variant in ascend
        family = served_by or (ASCEND if npu else VLLM)
        plan = plan_for(recipe_minimum(doc, ctx, variant), family)
        for name in as_dict(get(data, *split_pointer(pointer))):
            why = env_issue(name, plan) if isinstance(name, str) else None
            if why is not None:
                out.append(Hit(join_pointer(pointer, name), f"{label}: {why[0]}",
                                       why[1], on_key=True))
    # the environment of each compatible strategy (strategies/<name>.yaml), reported on the
    # recipe line that selects the strategy
    for i, name in enumerate(as_list(get(data, "compatible_strategies"))):
        sdoc = ctx.strategies.get(name) if isinstance(name, str) else None
        if sdoc is None or not sdoc.ok:
            continue
        plan = plan_for(recipe_minimum(doc, ctx, None, name), served_by or VLLM)
        for sptr in ("/env", "/prefill/env", "/decode/env"):
            for var in as_dict(get(sdoc.data, *split_pointer(sptr))):
                why = env_issue(var, plan) if isinstance(var, str) else None
                if why is not None:
                    line = sdoc.source_map.key_position(join_pointer(sptr, var))[0]
                    out.append(Hit(f"/compatible_strategies/{i}",
                                           f"{sdoc.path} {sptr[1:].replace('/', '.')}: {why[0]}",
                                           why[1], related=(Related(line, var, sdoc.path),)))
