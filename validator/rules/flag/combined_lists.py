"""``FLAG`` rules that combine argument lists: what one list alone cannot show.

``FLAG010`` (auto tool choice and its parser in one command), ``FLAG028`` (the expert
load balancer without expert parallelism), ``FLAG012`` (a later layer
of the recipe overrides an earlier one), ``FLAG025`` (the site replaces a flag of the
recipe with its own value) and ``FLAG015`` (``--max-model-len`` against
``context_length``). ``FLAG012`` and ``FLAG025`` read the renderer's
trace of its last-wins de-duplication (``Rendered.overrides``); the others read the
shared model of :mod:`validator.rules.flag.facts`. Each keeps its own logic next to its
documentation; running one of them computes nothing the others need alone.
``FLAG029`` (:mod:`validator.rules.flag.feature_parallel_size`) reads the same trace
through :func:`changed_overrides` and words its message with the helpers below.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from validator.analysis.arg_layers import ArgLayer, env_maps
from validator.analysis.context_length import (
    ALLOW_LONG,
    above_context,
    allows_long,
    context_length,
    too_long,
)
from validator.analysis.recipe_data import as_dict, as_list, get
from validator.analysis.rendered_commands import affected
from validator.findings import Related, Severity
from validator.render import jsval
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import (
    FLAG_READS,
    layer_model,
    line_of,
    rendered_facts,
    reported,
    string_arg_lists,
)
from validator.sourcemap import split_pointer
from validator.vllm_cli.parsed_args import ParsedArgs

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument
    from validator.render.args import Arg, Override


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


# --------------------------------------------------------------------------- FLAG028


@rule("FLAG028", Severity.ERROR, "--enable-eplb without --enable-expert-parallel",
      reads=FLAG_READS)
def eplb_without_expert_parallel(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A rendered ``vllm serve`` turns on the expert-parallel load balancer
    (``--enable-eplb``) without expert parallelism: vLLM refuses to start
    ("enable_expert_parallel must be True to use EPLB", ``ParallelConfig``). The
    expert-parallel strategies add ``--enable-expert-parallel``; a feature with
    ``--enable-eplb`` offered on a tensor-parallel strategy too renders it alone.
    Reported at the ``--enable-eplb`` item, with the configurations that render it so.

    Failing::

        compatible_strategies: [single_node_tp]
        features:
          eplb:
            description: "Expert load balancing"
            args: ["--enable-eplb"]

    Passing::

        compatible_strategies: [single_node_tp]
        features:
          eplb:
            description: "Expert load balancing"
            args: ["--enable-expert-parallel", "--enable-eplb"]

    How to fix: list the expert-parallel strategies in the feature's ``strategies:``, or
    add ``--enable-expert-parallel`` next to the flag."""
    return reported("FLAG028", doc, ctx, [])


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
    """A flag set in one layer of the recipe (e.g. ``model.base_args``) is set again with
    another value by a layer the site renders after it in the same command (variant,
    strategy or hardware override, feature), which wins: the site's last-wins
    de-duplication drops the earlier one. Both lines are named so the override can be
    confirmed as intended, with the configurations where it happens. What overrides what
    is the renderer's own trace of every configuration it renders, in ``check`` and ``pr``
    alike (``--as-written`` too: it changes how the argument lists are checked, not
    which overrides exist); the same value twice is no finding.

    A hardware or strategy override spelled apart from the flag it overrides
    (``--block-size=1`` after ``--block-size 64``; the recipe's ``--compilation-config``
    for a strategy after the strategy's ``-cc.pass_config.x``) is not de-duplicated: the
    rendered command keeps both and vLLM takes the last, which is what the override
    means. The rendered commands report it here too (not as ``FLAG011``'s error).

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
    grouped: dict[tuple[str, str, tuple[Related, ...]], list[str]] = {}
    strings = string_arg_lists(doc)  # FLAG026's: their characters are no flags
    for ov, label in _recipe_overrides(doc, ctx):
        if ov.winner.document != doc.path or ov.dropped.layer == ov.winner.layer:
            continue  # another file's value wins (FLAG025), or a repeat in one list (FLAG011)
        if ov.winner.pointer in strings or ov.dropped.pointer in strings:
            continue
        line = line_of(doc, ov.dropped.pointer)
        key = (ov.winner.pointer, f"`{jsval.js_str(ov.winner.value)}` in {ov.winner.layer} "
               f"overrides `{unit_text(ov.dropped, ov.dropped_value)}` of {ov.dropped.layer}",
               (Related(line, ov.dropped.layer),))
        grouped.setdefault(key, []).append(label)
    found = rendered_facts(doc, ctx)  # spelled apart, both stay in the command
    kept = found.hits.get("FLAG012", []) if found is not None else []
    return [Hit(pointer, f"{message} ({affected(labels)})", None, related=related)
            for (pointer, message, related), labels in grouped.items()] + [
        replace(hit, message=f"{hit.message} ({affected(labels)})") for hit, labels in kept]


# --------------------------------------------------------------------------- FLAG025


@rule("FLAG025", Severity.WARNING, "The site replaces a flag of the recipe with its own value",
      reads=FLAG_READS)
def replaced_by_the_site(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A flag of the recipe is dropped from the command: the site renders the same flag with
    another value after it, taken from outside the recipe's argument lists (the parallel
    size it derives from the strategy and the hardware's ``gpu_count``, a strategy file's
    ``vllm_args``, a kv-offload or kv-store option), and its last-wins de-duplication drops
    the recipe's. Reported at the recipe's flag, naming the value the site renders instead
    and the configurations where it does.

    Failing::

        model:
          base_args: ["--tensor-parallel-size", "4"]

    Passing::

        variants:
          default:
            tp: 4

    How to fix: remove the flag from the recipe's list; pin a single-node TP size with
    ``variants.<name>.tp`` or ``strategy_overrides.single_node_tp.tp``, and set another
    strategy value in ``strategy_overrides.<strategy>`` (rendered after the strategy's
    args)."""
    # one finding per recipe flag and source; the values the site renders instead, each
    # with the configurations that get it (most first)
    grouped: dict[tuple[str, str, str, str], dict[str, list[str]]] = {}
    first: dict[tuple[str, str, str, str], tuple[str, tuple[Related, ...]]] = {}
    for ov, label in _recipe_overrides(doc, ctx):
        if ov.winner.document == doc.path:
            continue  # the recipe's own later layer (FLAG012)
        key = (ov.dropped.pointer, unit_text(ov.dropped, ov.dropped_value), ov.dropped.layer,
               site_source(ov.winner))
        value = jsval.js_str(ov.winner_value.value) if ov.winner_value is not None else ""
        grouped.setdefault(key, {}).setdefault(value, []).append(label)
        first.setdefault(key, (override_fix(ov.dropped, ov.winner),
                               written_at(doc, ctx, ov.winner, ov.winner_value)))
    out: list[Hit] = []
    for key, values in grouped.items():
        pointer, unit, layer, source = key
        flag = unit.split(" ", 1)[0]
        ranked = sorted(values.items(), key=lambda kv: -len(set(kv[1])))
        # the configurations and values last, in the one ``(on ...)`` suffix that PR mode
        # and history leave out when they compare findings (a change that adds
        # configurations is not a new finding)
        shown = "; ".join(f"{affected(labels)}: `{flag} {v}`" if v else
                          f"{affected(labels)}: `{flag}`" for v, labels in ranked[:SHOWN_VALUES])
        more = len(ranked) - SHOWN_VALUES
        rest = f"; and {more} other value{'s' if more > 1 else ''}" if more > 0 else ""
        hint, related = first[key]
        out.append(Hit(pointer, f"`{unit}` of {layer} is dropped from the command: the site "
                                f"renders its own `{flag}` after it, from {source} "
                                f"({shown}{rest})", hint, related=related))
    return out


#: How many of the values the site renders instead a ``FLAG025`` message names.
SHOWN_VALUES = 3


def _recipe_overrides(doc: LoadedDocument, ctx: Context) -> Iterator[tuple[Override, str]]:
    """Every override of a flag of ``doc`` with another value in a configuration the site
    renders (the renderer's trace of its de-duplication), with the configuration's label."""
    for ov, label in changed_overrides(doc, ctx):
        if ov.dropped.document == doc.path:  # else a strategy's or the taxonomy's flag:
            yield ov, label                  # that file's to judge (or FLAG029's)


def changed_overrides(doc: LoadedDocument, ctx: Context) -> Iterator[tuple[Override, str]]:
    """Every override with another value in a configuration the site renders for ``doc``
    (the renderer's trace of its de-duplication, whichever file each unit comes from),
    with the configuration's label."""
    from validator.render.cache import rendered_configurations

    if not isinstance(doc.data, dict):
        return
    for rendered in rendered_configurations(doc, ctx):  # shared with the REF render rules
        if not rendered.ok:
            continue
        for ov in rendered.overrides:
            old = ov.dropped_value.value if ov.dropped_value is not None else None
            new = ov.winner_value.value if ov.winner_value is not None else None
            if type(old) is type(new) and old == new:
                continue  # the same value: the rendered command does not change
            yield ov, rendered.config.label()


def unit_text(head: Arg, value: Arg | None) -> str:
    """``--flag value`` as the command shows it."""
    return " ".join(jsval.js_str(a.value) for a in (head, value) if a is not None)


def site_source(winner: Arg) -> str:
    """Where the site's winning flag comes from, for the message."""
    kind, _, name = winner.layer.partition(":")
    if kind == "strategy":
        if winner.pointer.endswith("/vllm_args") or "/vllm_args/" in winner.pointer:
            return f"{winner.document} {winner.pointer[1:].rsplit('/', 1)[0].replace('/', '.')}"
        return "the parallelism it derives from the strategy and the hardware's gpu_count"
    if kind == "taxonomy":
        return f"{winner.document} {name}"
    if kind == "kv_store":
        return f"kv store {name} ({winner.document})"
    return f"its own {winner.layer} arguments"


def override_fix(dropped: Arg, winner: Arg) -> str:
    """The hint of a finding where the site's ``winner`` replaces the recipe's
    ``dropped`` flag (FLAG025, FLAG029): where the size or value should be set instead."""
    if winner.layer.startswith("strategy:") and "/vllm_args" not in winner.pointer:
        return (f"remove it from {dropped.layer}: the site sets the parallel size from the "
                "strategy and the hardware's gpu_count (pin a single-node TP size with "
                "variants.<name>.tp or strategy_overrides.single_node_tp.tp)")
    if winner.layer.startswith("strategy:"):
        return (f"remove it from {dropped.layer}, or set it in "
                f"strategy_overrides.{winner.layer.partition(':')[2].split('.')[0]} "
                "(rendered after the strategy's args)")
    return f"remove it from {dropped.layer}: the site's value wins"


def written_at(doc: LoadedDocument, ctx: Context, winner: Arg,
             value: Arg | None) -> tuple[Related, ...]:
    """The line of the site's value where it is written: in the recipe (a TP size of
    ``variants.<name>.tp``, or the ``vram_minimum_gb`` that makes it 1), or in the
    argument list of a strategy / taxonomy file; none for a size the site derives from
    each hardware's GPU count."""
    origin = value if value is not None and value.pointer else winner
    shown = unit_text(winner, value)
    if origin.document == doc.path:
        return (Related(line_of(doc, origin.pointer), f"{origin.layer} makes it `{shown}`"),)
    other = next((d for d in ctx.context_documents() if d.path == origin.document), None)
    if other is None or not any(part.endswith("args") for part in origin.pointer.split("/")):
        return ()
    return (Related(other.source_map.position(origin.pointer)[0],
                    f"`{shown}` ({origin.pointer[1:].replace('/', '.')})", other.path),)


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
    long_allowed = _allows_long(doc)  # once: it reads every environment map of the recipe
    for layer in model.layers:
        parsed = model.parsed.get(layer.pointer)
        if parsed is not None and not long_allowed:
            _max_model_len(doc, layer, parsed, model.where[layer.pointer], out)
    return reported("FLAG015", doc, ctx, out)


def _max_model_len(doc: LoadedDocument, layer: ArgLayer, parsed: ParsedArgs,
                   where: Sequence[int], out: list[Hit]) -> None:
    limit = context_length(doc.data)
    if limit is None:
        return
    for opt in above_context(parsed, limit):
        out.append(Hit(layer.site(doc, where[opt.index])[0], too_long(opt.value, limit),
                       f"use at most {limit}, correct model.context_length, or extend the "
                       f"context (rope scaling in --hf-overrides, or {ALLOW_LONG}=1 in "
                       "base_env)",
                       related=(Related(line_of(doc, "/model/context_length"),
                                        "model.context_length"),)))


def _allows_long(doc: LoadedDocument) -> bool:
    """Whether an environment map of the recipe sets ``VLLM_ALLOW_LONG_MAX_MODEL_LEN``."""
    return any(allows_long(as_dict(get(doc.data, *split_pointer(pointer))).items())
               for pointer, *_ in env_maps(doc.data))
