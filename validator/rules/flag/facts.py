"""The shared model the ``FLAG`` rules read: built once per document, held by the context.

Three parts, each computed only when a rule asks for it (``--select FLAG016`` does not
parse a single argument list):

- :func:`gate`: the recipe-wide version plan (``FLAG017``/``FLAG018``/``FLAG019`` of the
  recipe as a whole) and whether the arguments can be checked at all;
- :func:`layer_model`: every structured argument list (:mod:`validator.analysis.arg_layers`)
  parsed against the CLI registry of its install range, with the issues of the list
  itself (unknown flags, bad values, spelling, duplicates ...) mapped to their rules;
- :func:`rendered_facts`: what the commands the recipes site renders show
  (:mod:`validator.analysis.rendered_commands`), folded into every rule's hits by :func:`reported`.

Each part is per-document state of the run (:func:`validator.analysis.cli_plan.per_document`,
kept in :meth:`validator.context.Context.memoised`), never a module global. The rules that
combine lists (``FLAG010``, ``FLAG012``, ``FLAG015``) keep their own logic beside their
documentation in :mod:`validator.rules.flag.combined_lists`, ``FLAG016`` (``VLLM_*``
variables) in :mod:`validator.rules.flag.environment_variables`.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from validator.analysis.arg_items import joined_item_text, split_joined, value_lead
from validator.analysis.arg_layers import (
    ArgLayer,
    ascend_variants,
    collect_layers,
    external_layers,
    layer_plugin,
    npu_hardware,
    parallel_flag_value,
    platform_plugin,
    recipe_parallel_flag_layers,
)
from validator.analysis.cli_plan import (
    SERVE_FIRST,
    VLLM,
    VersionPlan,
    per_document,
    plan_for,
    versions,
)
from validator.analysis.flag_engine import FlagIssue, check_tokens, recipe_minimum
from validator.analysis.flag_values import ISSUE_CODES, PLUGIN_OPTIONS, plugged, value_at
from validator.analysis.install_channel import channel_plan, layer_statements
from validator.analysis.install_range import install_range
from validator.analysis.recipe_data import get
from validator.analysis.shell_words import printed_expansions, printed_literals
from validator.analysis.versions import MinVersion, parse_min_version, version_key
from validator.findings import FLOOR, Related, Severity
from validator.render.offload import offered_to_recipe
from validator.rules.api import Hit, Reads
from validator.rules.metadata import RULES
from validator.sourcemap import alias_anchors, join_pointer, split_pointer
from validator.vllm_cli.parsed_args import ParsedArgs, ParsedOption

if TYPE_CHECKING:
    from validator.analysis.rendered_commands import RenderedFacts
    from validator.context import Context
    from validator.load import LoadedDocument
    from validator.vllm_cli.data_source import CliRegistries

#: The rule of every issue code of the engine (:data:`~validator.analysis.flag_values.ISSUE_CODES`);
#: total: a code without a rule is an error at import, not a silently dropped finding.
ISSUE_RULE: dict[str, str] = {
    "unknown": "FLAG001", "newer": "FLAG002", "removed": "FLAG003",
    "missing_value": "FLAG004", "switch_value": "FLAG005", "choice": "FLAG006",
    "json": "FLAG007", "spec_tokens": "FLAG008", "spec_method": "FLAG030",
    "spec_key": "FLAG033", "dotted": "FLAG009",
    "auto_tool": "FLAG010", "duplicate": "FLAG011", "underscore": "FLAG013",
    "abbreviation": "FLAG014", "config_key_ignored": "FLAG021",
    "config_key_rejected": "FLAG022", "range_rejected": "FLAG023",
    "unreleased_only": "FLAG024", "value_type": "FLAG006", "eplb_without_ep": "FLAG028",
    "kv_transfer": "FLAG032", "spec_refused": "FLAG034", "refused_pair": "FLAG035",
    "config_value": "FLAG040", "kv_extra": "FLAG041"}
if set(ISSUE_RULE) != ISSUE_CODES:  # pragma: no cover - a programming error
    raise AssertionError(f"FLAG rules of issue codes: {sorted(ISSUE_CODES ^ set(ISSUE_RULE))}")

#: What the ``FLAG`` rules read besides the recipe: the CLI registries, the strategies a
#: recipe names (their argument lists and minimums), the taxonomy (which hardware is
#: served by vLLM-Ascend, the render's picker) and the kv-store options (rendered commands).
FLAG_READS = frozenset({Reads.CLI_REGISTRY, Reads.STRATEGIES, Reads.TAXONOMY, Reads.KV_STORES})

#: Issue codes that belong to the list where it is written: a list of another file (a
#: strategy's, the taxonomy's) is judged on that file, not on the recipe that uses it.
OWN_LIST_CODES = frozenset({"underscore", "abbreviation", "removed", "duplicate"})


def _add(hits: dict[str, list[Hit]], rule_id: str, hit: Hit) -> None:
    hits.setdefault(rule_id, []).append(hit)


def line_of(doc: LoadedDocument, pointer: str) -> int:
    """The 1-based line of ``pointer`` in ``doc``."""
    return doc.source_map.position(pointer)[0]


# --------------------------------------------------------------------------- gate


@dataclass
class Gate:
    """The recipe-wide plan: its hits, the plugin serving the recipe, and ``stop`` when
    nothing else can be checked (no vendored CLI, ``vllm serve`` predates the minimum, no
    plugin release fits)."""

    hits: dict[str, list[Hit]] = field(default_factory=dict)
    served_by: str | None = None
    stop: bool = True


def gate(doc: LoadedDocument, ctx: Context) -> Gate:
    """The :class:`Gate` of ``doc`` (once per document)."""
    return per_document(doc, ctx, "flag:gate", lambda: _gate(doc, ctx))


def _gate(doc: LoadedDocument, ctx: Context) -> Gate:
    out = Gate()
    data = doc.data
    if not isinstance(data, dict) or not versions(ctx.cli):
        return out
    model_plan = install_range(doc, ctx).plan
    if model_plan.predates_serve:
        _add(out.hits, "FLAG018", Hit(
            "/model/min_vllm_version", f"min_vllm_version {model_plan.declared} predates "
            f"`vllm serve` (first in {SERVE_FIRST}); that release only has the "
            "`python -m vllm.entrypoints.openai.api_server` module",
            f"raise min_vllm_version to {SERVE_FIRST} or later"))
        return out
    out.served_by = platform_plugin(data)
    if out.served_by is not None:
        plugin_plan = install_range(doc, ctx, family=out.served_by).plan
        if plugin_plan.minimum is None:
            _add(out.hits, "FLAG017", Hit(
                "/meta/tasks", f"arguments not checked: this recipe is served by "
                f"{plugin_plan.product}; {plugin_plan.note}"))
            return out
        model_plan = plugin_plan
    if model_plan.note:
        _add(out.hits, "FLAG019", Hit("/model/min_vllm_version", model_plan.note,
                                      _launch_hint(model_plan),
                                      related=_nightly_line(doc, model_plan)))
    out.stop = False
    return out


def _launch_hint(plan: VersionPlan) -> str | None:
    """What a launch-day recipe does next (``None`` for other plans)."""
    if not plan.launch_day:
        return None
    if plan.declared == "nightly":
        return ("write the release expected to ship support as min_vllm_version (the site "
                "shows `nightly` as 0.0.0); keep nightly_required: true until it ships")
    return (f"re-check once vLLM {plan.declared} ships (`recipe-check data vllm-cli "
            f"{plan.declared}` vendors its CLI)")


def _nightly_line(doc: LoadedDocument, plan: VersionPlan) -> tuple[Related, ...]:
    """The ``nightly_required`` line a launch-day plan's note rests on, if written."""
    if not plan.launch_day or get(doc.data, "model", "nightly_required") is not True:
        return ()
    return (Related(line_of(doc, "/model/nightly_required"), "nightly_required: true"),)


# --------------------------------------------------------------------------- layers


@dataclass
class LayerModel:
    """Every structured argument list of one recipe, parsed once.

    Attributes:
        layers: the lists, in :func:`~validator.analysis.arg_layers.collect_layers` order.
        parsed: layer pointer -> the parse at the layer's minimum registry.
        where: layer pointer -> list item of each parsed token (``split_joined``).
        hits: rule id -> the hits of the lists themselves (issue codes, ``FLAG017``/
            ``FLAG019`` of plugin-served lists, ``FLAG020``).
    """

    layers: list[ArgLayer] = field(default_factory=list)
    parsed: dict[str, ParsedArgs] = field(default_factory=dict)
    where: dict[str, tuple[int, ...]] = field(default_factory=dict)
    hits: dict[str, list[Hit]] = field(default_factory=dict)


def layer_model(doc: LoadedDocument, ctx: Context) -> LayerModel:
    """The :class:`LayerModel` of ``doc`` (once per document; empty when the gate stops)."""
    return per_document(doc, ctx, "flag:layers", lambda: _layer_model(doc, ctx))


def layer_minimum(doc: LoadedDocument, ctx: Context, layer: ArgLayer) -> MinVersion | None:
    """The effective minimum of the configurations that render ``layer``."""
    if layer.mode_variants:
        mins = [m for v in layer.mode_variants
                if (m := recipe_minimum(doc, ctx, v)) is not None]
        if mins:
            return min(mins, key=version_key)
    return recipe_minimum(doc, ctx, layer.variant, layer.strategy)


def _layer_model(doc: LoadedDocument, ctx: Context) -> LayerModel:
    out = LayerModel()
    start = gate(doc, ctx)
    if start.stop:
        return out
    is_npu = npu_hardware(ctx)
    ascend = ascend_variants(doc.data, is_npu)
    out.layers = collect_layers(doc.data) + external_layers(doc, ctx, offered_to_recipe(doc, ctx))
    noted: set[str] = set()
    for layer in out.layers:
        plan = _layer_plan(doc, ctx, layer, start.served_by or layer_plugin(layer, ascend, is_npu),
                           start.served_by, out, noted)
        if plan is None or plan.predates_serve or plan.minimum is None:
            continue
        result, tokens, where, issues = judge_list(doc, layer, plan, out.hits)
        if result is not None:
            out.parsed[layer.pointer] = result
            out.where[layer.pointer] = where
            issues = _unplugged(doc, ctx, layer, result, where, issues)
        if layer.origin is not None:
            issues = _recipe_own(ctx.cli, layer, issues)
        add_issue_hits(doc, layer, tokens, where, issues, out.hits)
    for layer in recipe_parallel_flag_layers(doc.data):
        plan = _layer_plan(doc, ctx, layer, start.served_by, start.served_by, out, noted)
        if plan is not None and not plan.predates_serve and plan.minimum is not None:
            _add_parallel_flag_hits(doc, layer, plan, out.hits)
    return out


def _add_parallel_flag_hits(doc: LoadedDocument, layer: ArgLayer, plan: VersionPlan,
                            hits: dict[str, list[Hit]]) -> None:
    """The hits of a recipe's ``parallel_flag`` (:func:`recipe_parallel_flag_layers`)
    judged at ``plan``: the issues of the flag only (the size is the site's), and
    ``FLAG005`` when the flag carries its own value."""
    _result, tokens, where, issues = judge_list(doc, layer, plan, {})
    add_issue_hits(doc, layer, tokens, where, [i for i in issues if where[i.index] == 0], hits)
    glued = parallel_flag_value(layer)
    if glued is not None:
        _add(hits, "FLAG005", Hit(layer.pointer, glued[0], glued[1]))


def judge_list(doc: LoadedDocument, layer: ArgLayer, plan: VersionPlan,
               hits: dict[str, list[Hit]]) -> tuple[ParsedArgs | None, tuple[str, ...],
                                                    tuple[int, ...], list[FlagIssue]]:
    """Check one argument list at ``plan``: a ``FLAG020`` hit (into ``hits``) per item
    holding a flag and its value, then the engine's issues of the split tokens.

    Returns the parse (``None`` without a registry), the split tokens, the list item of
    each token and the issues (indexes into the tokens)."""
    tokens, where, joined = split_joined(layer.tokens)
    for item in joined:
        ptr, rel = layer.site(doc, item)
        _add(hits, "FLAG020", Hit(ptr, *joined_item_text(layer.tokens[item], [
            t for t, at in zip(tokens, where, strict=True) if at == item]), related=rel))
    result, issues = check_tokens(tokens, plan, expansions=printed_expansions(
        layer.tokens, tokens, where), literals=printed_literals(layer.tokens, tokens, where))
    return result, tokens, where, issues


def add_issue_hits(doc: LoadedDocument, layer: ArgLayer, tokens: tuple[str, ...],
                   where: tuple[int, ...], issues: list[FlagIssue],
                   hits: dict[str, list[Hit]]) -> None:
    """The hit of each issue of ``layer`` under its rule: at the list item in ``doc``, or,
    for a list of another file, at the recipe line that selects it (an issue of the
    other file's spelling or duplicates is that file's, reported when it is checked)."""
    for issue in issues:
        if layer.unlisted and issue.code in UNLISTED_SILENT:
            continue
        ptr, related = layer.site(doc, where[issue.index])
        lead = value_lead(layer.tokens, tokens, where, issue.index) \
            if issue.on_value and layer.origin is None else ""
        if layer.origin is not None:
            if issue.code in OWN_LIST_CODES:
                continue  # a property of the other file, reported when it is checked
            issue = FlagIssue(issue.code, issue.index, f"{layer.label}: {issue.message}",
                              issue.hint, floor=issue.floor)
        elif issue.related_index is not None:
            rptr = join_pointer(layer.pointer, where[issue.related_index])
            related = (Related(line_of(doc, rptr), "first occurrence"),)
        if layer.origin is None:
            related += tuple(Related(line_of(doc, join_pointer(layer.pointer, where[at])), what)
                             for at, what in issue.consequences)
        rule_id = ISSUE_RULE[issue.code]
        if layer.unlisted and rule_id == "FLAG002" and get(doc.data, *MINIMUM) is not None:
            ptr = "/" + "/".join(MINIMUM)  # the line of the hint's first fix, not 1:1
        hint = issue.hint
        if layer.unlisted:
            key = split_pointer(layer.pointer)[1]
            hint = (f"{hint}; or opt the recipe out: kv_offload_support: {{{key}: "
                    "unsupported}" if hint else None)
        lowered = _unlisted_severity(layer, rule_id)
        _add(hits, rule_id, Hit(ptr, issue.message, hint, related=related,
                                value_after=lead, reason=FLOOR if issue.floor else None,
                                severity=lowered, unchosen=lowered is not None))


#: Codes not reported on a KV offload option the recipe does not name (``unlisted``): a
#: connector its minimum lacks is the option's release gate, not a claim of the recipe; a
#: misread extra-config value is the option's own defect (reported on the taxonomy).
UNLISTED_SILENT = frozenset({"kv_transfer", "kv_extra"})

MINIMUM = ("model", "min_vllm_version")
"""Where a flag of a list the recipe does not name (an unlisted KV offload option) that is
newer than the recipe's minimum is reported: the recipe line the finding's fix raises."""


def _unlisted_severity(layer: ArgLayer, rule_id: str) -> Severity | None:
    """A warning for an error of a list the recipe does not name (:attr:`ArgLayer.unlisted`);
    ``None``: the rule's own severity."""
    if layer.unlisted and RULES[rule_id].severity is Severity.ERROR:
        return Severity.WARNING
    return None


#: The issue code a recipe keeps on a list of another file although that file reports a
#: problem of the same token: the token is newer than the recipe's own minimum.
RECIPE_WINDOW_CODES = frozenset({"newer"})


def context_plan(cli: CliRegistries, doc: LoadedDocument) -> VersionPlan:
    """The plan a context file's own argument lists are checked with: its own
    ``min_vllm_version`` up to the newest vendored release, else the newest release."""
    declared = doc.data.get("min_vllm_version") if isinstance(doc.data, dict) else None
    plan = plan_for(cli, parse_min_version(declared), VLLM)
    return replace(plan, floor=(f"the min_vllm_version of {doc.path} is", "",
                                f"the min_vllm_version of {doc.path}"))


def context_list_issues(cli: CliRegistries, doc: LoadedDocument, layer: ArgLayer
                        ) -> tuple[ParsedArgs | None, tuple[str, ...], tuple[int, ...],
                                   list[FlagIssue], dict[str, list[Hit]]]:
    """A context file's list judged on its own (:func:`context_plan`): what
    :func:`judge_list` returns, and its ``FLAG020`` hits."""
    hits: dict[str, list[Hit]] = {}
    return (*judge_list(doc, layer, context_plan(cli, doc), hits), hits)


def _recipe_own(cli: CliRegistries, layer: ArgLayer, issues: list[FlagIssue]
                ) -> list[FlagIssue]:
    """``issues`` of a list of another file without those that file shows on its own
    (judged at its own minimum, :func:`context_list_issues`): those are reported once, on
    that file, not on every recipe using it. What only the recipe's release range shows
    (a flag newer than its minimum) stays the recipe's."""
    assert layer.origin is not None
    own = {i.index for i in context_list_issues(
        cli, layer.origin, ArgLayer(layer.pointer, layer.tokens, layer.label))[3]
        if i.code not in RECIPE_WINDOW_CODES}
    return [i for i in issues if i.code in RECIPE_WINDOW_CODES or i.index not in own]


#: Issue codes that judge the value of a parser option (a plugin file registers names).
_PARSER_VALUE_CODES = frozenset({"choice", "range_rejected"})


def _unplugged(doc: LoadedDocument, ctx: Context, layer: ArgLayer, parsed: ParsedArgs,
               where: tuple[int, ...], issues: list[FlagIssue]) -> list[FlagIssue]:
    """``issues`` without the value judgments of a parser option (``--tool-call-parser
    quill``) that every command the site renders it in gives a parser plugin file
    (``--tool-parser-plugin``) from another list: the engine honours a plugin of the
    list itself (:func:`~validator.analysis.flag_values.plugged`), the whole command is
    the renderer's (:func:`~validator.analysis.rendered_commands.plugged_in_commands`). A parser
    name no command gives a plugin stays an error."""
    own = plugged(parsed)
    judged: dict[int, ParsedOption] = {}
    for opt in parsed.options:
        if opt.dest in PLUGIN_OPTIONS and opt.dest not in own:
            judged.update((at, opt) for at in (opt.index, *value_at(opt)))
    options = {judged[i.index].index: judged[i.index] for i in issues
               if i.code in _PARSER_VALUE_CODES and i.index in judged}
    if not options:
        return issues
    from validator.analysis.rendered_commands import plugged_in_commands

    document = layer.origin.path if layer.origin is not None else doc.path
    dropped: set[int] = set()
    for opt in options.values():
        if plugged_in_commands(doc, ctx, document, join_pointer(layer.pointer, where[opt.index]),
                               opt.dest):
            dropped.update((opt.index, *value_at(opt)))
    return [i for i in issues if i.code not in _PARSER_VALUE_CODES or i.index not in dropped]


def _layer_plan(doc: LoadedDocument, ctx: Context, layer: ArgLayer, family: str | None,
                served_by: str | None, out: LayerModel, noted: set[str]) -> VersionPlan | None:
    """The plan ``layer`` is checked with. A list served by a plugin other than the
    recipe's gets ``None`` (with a ``FLAG017`` hit saying why) when no vendored release of
    the plugin fits, and one ``FLAG019`` hit per distinct note."""
    if family is None or family == served_by:
        reach = install_range(doc, ctx, layer.variant, layer.strategy)
        stated = () if layer.origin is not None else layer_statements(
            doc, ctx, layer.pointer, layer.variant, layer.hardware)
        return channel_plan(ctx.cli, layer_minimum(doc, ctx, layer), family or VLLM, reach.top,
                            reach.unreleased, stated)
    # the image its hardware pins (vllm-ascend:v0.11.0), as the rendered commands read it
    pinned = () if layer.origin is not None else tuple(s for s in layer_statements(
        doc, ctx, layer.pointer, layer.variant, layer.hardware) if s.top is not None)
    plan = channel_plan(ctx.cli, layer_minimum(doc, ctx, layer), family, None, False, pinned)
    if plan.minimum is None:
        _add(out.hits, "FLAG017", Hit(layer.pointer, f"{layer.label} not checked: served by "
                                      f"{plan.product}; {plan.note}"))
        return None
    if plan.note and plan.note not in noted:
        noted.add(plan.note)
        _add(out.hits, "FLAG019", Hit(layer.pointer, f"{layer.label}: served by "
                                      f"{plan.product}; {plan.note}"))
    return plan


# --------------------------------------------------------------------------- rendered


def rendered_facts(doc: LoadedDocument, ctx: Context) -> RenderedFacts | None:
    """What the rendered commands show (``None`` unless the run checks them)."""
    if not (ctx.settings.rendered and isinstance(doc.data, dict) and versions(ctx.cli)):
        return None

    def compute() -> RenderedFacts:
        from validator.analysis import rendered_commands as rendered

        return rendered.facts(doc, ctx, ISSUE_RULE)

    return per_document(doc, ctx, "flag:rendered", compute)


def reported(rule_id: str, doc: LoadedDocument, ctx: Context,
             layer_hits: list[Hit]) -> list[Hit]:
    """``layer_hits`` of ``rule_id`` with what the rendered commands add
    (:func:`validator.analysis.rendered_commands.merge`, one rule at a time)."""
    found = rendered_facts(doc, ctx)
    if found is None:
        return layer_hits
    from validator.analysis import rendered_commands as rendered

    anchors = per_document(doc, ctx, "flag:alias_anchors",
                           lambda: alias_anchors(doc.source_map, doc.source_map.values))
    merged = rendered.merge({rule_id: layer_hits} if layer_hits else {}, found, anchors)
    return merged.get(rule_id, [])


def issue_hits(rule_id: str, more: Callable[[LoadedDocument, Context], list[Hit]] | None = None
               ) -> Callable[[LoadedDocument, Context], list[Hit]]:
    """The check of a rule that reports issues of the lists themselves: the gate's hits,
    the layer model's (and what ``more`` finds besides), then the rendered commands'. An
    argument list written as a string is ``FLAG026``'s alone: the per-character tokens
    the site spreads it into are not reported one by one."""
    def check(doc: LoadedDocument, ctx: Context) -> list[Hit]:
        own = gate(doc, ctx).hits.get(rule_id, []) + layer_model(doc, ctx).hits.get(rule_id, [])
        if more is not None:
            own = own + more(doc, ctx)
        hits = reported(rule_id, doc, ctx, own)
        if not hits:
            return hits
        strings = per_document(doc, ctx, "flag:string_lists", lambda: string_arg_lists(doc))
        return [h for h in hits if h.pointer not in strings]

    return check


ARG_LIST_KEYS = frozenset({"args", "base_args", "extra_args"})
"""Keys whose value the site spreads into a command (``args.push(...list)``)."""


def string_arg_lists(doc: LoadedDocument) -> dict[str, str]:
    """JSON Pointer -> text of every argument list of ``doc`` written as a non-empty
    string (``base_args: "--a --b"``), which the site's spread turns into characters."""
    return _string_lists(doc.data, "")


def string_list_hits(doc: LoadedDocument) -> list[Hit]:
    """``FLAG026``'s hits: one per argument list written as a string, naming the
    characters the site spreads it into, with the list it means as the hint."""
    out = []
    for pointer, text in string_arg_lists(doc).items():
        try:
            tokens = shlex.split(text)
        except ValueError:  # an unbalanced quote: the blanks still separate the tokens
            tokens = text.split()
        shown = ", ".join(f"`{c}`" for c in list(text)[:4])
        out.append(Hit(
            pointer, f"{'.'.join(split_pointer(pointer))} is a string, not a list: the site "
            f"spreads it into its {len(text)} characters ({shown}, ...), so every command "
            "rendered from it is broken",
            f"write a list: {json.dumps(tokens, ensure_ascii=False)}"))
    return out


def _string_lists(node: object, pointer: str) -> dict[str, str]:
    out: dict[str, str] = {}
    if isinstance(node, dict):
        for key, value in node.items():
            child = join_pointer(pointer, key)
            if key in ARG_LIST_KEYS and isinstance(value, str) and value:
                out[child] = value
            else:
                out.update(_string_lists(value, child))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            out.update(_string_lists(item, join_pointer(pointer, index)))
    return out
