"""``FLAG``: every ``vllm serve`` argument a recipe declares, against the real vLLM CLI.

The structured argument lists of a recipe (``model.base_args``, feature and mode
``args``, variant ``extra_args``, hardware and strategy overrides, PD role ``vllm_args``,
kv-offload options) are parsed with the model of vLLM's parser in
:mod:`validator.vllm_cli.argv`, against the vendored CLI registry
(:mod:`validator.vllm_cli.registry`, built from each release's own ``make_arg_parser``) of
the recipe's *effective minimum* vLLM version (errors) and of the newest vendored release
(warnings about what has been removed since).

Layers are combined the way the recipes site renders one command
(``buildArgs`` in ``src/lib/command-synthesis.js`` of vllm-project/recipes: base args,
variant, strategy, strategy overrides, hardware overrides, features, kv offload; a
``dedupeArgs`` pass keeps the last of two *literally equal* flags).

Where the pieces are: :mod:`validator.checks.arg_layers` (which lists exist, which CLI
serves each), :mod:`validator.checks.cli_plan` (which registry a list is checked
against), :mod:`validator.checks.flag_engine` (one list against one registry; shared
with the ``GUIDE`` family); this module combines them per recipe and declares the rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from validator.checks._data import as_dict, as_list, get
from validator.checks.arg_layers import (
    ASCEND,
    ArgLayer,
    ascend_variants,
    collect_layers,
    env_maps,
    external_layers,
    layer_plugin,
    npu_hardware,
    platform_plugin,
)
from validator.checks.cli_plan import (
    SERVE_FIRST,
    VLLM,
    VersionPlan,
    plan_for,
    versions,
)
from validator.checks.flag_engine import (
    FlagIssue,
    check_tokens,
    env_issue,
    parse_int,
    recipe_minimum,
    split_joined,
)
from validator.checks.install_range import install_range
from validator.checks.install_range import record as record_ranges
from validator.checks.registry import Hit, rule
from validator.checks.versions import MinVersion, version_key
from validator.findings import Related, Severity
from validator.sourcemap import join_pointer, split_pointer
from validator.vllm_cli.argv import ParsedArgs

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument




def _layer_plugin_plan(doc: LoadedDocument, ctx: Context, layer: ArgLayer, family: str,
                 out: Analysis, noted: set[str]) -> VersionPlan | None:
    """The plan of a plugin-served ``layer``; ``None`` (with a FLAG017 hit saying why)
    when no vendored release of the plugin fits. A plan that differs from the declared
    minimum gets one FLAG019 hit per distinct note."""
    plan = plan_for(_layer_minimum(doc, ctx, layer), family)
    if plan.minimum is None:
        out.add("FLAG017", Hit(layer.pointer, f"{layer.label} not checked: served by "
                               f"{plan.product}; {plan.note}"))
        return None
    if plan.note and plan.note not in noted:
        noted.add(plan.note)
        out.add("FLAG019", Hit(layer.pointer, f"{layer.label}: served by {plan.product}; "
                               f"{plan.note}"))
    return plan


# --------------------------------------------------------------------------- analysis


@dataclass
class Analysis:
    """Every ``FLAG`` hit of one recipe, computed once and shared by the rules."""

    hits: dict[str, list[Hit]] = field(default_factory=dict)

    def add(self, rule_id: str, hit: Hit) -> None:
        """Record ``hit`` for rule ``rule_id``."""
        self.hits.setdefault(rule_id, []).append(hit)


_CODE_RULE = {"unknown": "FLAG001", "newer": "FLAG002", "removed": "FLAG003",
              "missing_value": "FLAG004", "switch_value": "FLAG005", "choice": "FLAG006",
              "json": "FLAG007", "spec_tokens": "FLAG008", "dotted": "FLAG009",
              "duplicate": "FLAG011", "underscore": "FLAG013", "abbreviation": "FLAG014",
              "config_key_ignored": "FLAG021", "config_key_rejected": "FLAG022",
              "range_rejected": "FLAG023", "unreleased_only": "FLAG024"}

_CACHE: dict[int, tuple[Any, Any, Analysis]] = {}


def analysis(doc: LoadedDocument, ctx: Context) -> Analysis:
    """The (cached) :class:`Analysis` of ``doc`` in ``ctx``."""
    key = id(doc)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is doc and hit[1] is ctx:
        return hit[2]
    result = _analyse(doc, ctx)
    if ctx.settings.rendered and isinstance(doc.data, dict) and versions():
        from validator.checks import rendered

        found = rendered.facts(doc, ctx, {**_CODE_RULE, "auto_tool": "FLAG010"})
        result.hits = rendered.merge(result.hits, found)
    if len(_CACHE) > 16:
        _CACHE.clear()
    _CACHE[key] = (doc, ctx, result)
    return result


def _line(doc: LoadedDocument, pointer: str) -> int:
    return doc.source_map.position(pointer)[0]


def _layer_minimum(doc: LoadedDocument, ctx: Context, layer: ArgLayer) -> MinVersion | None:
    if layer.mode_variants:
        mins = [m for v in layer.mode_variants
                if (m := recipe_minimum(doc, ctx, v)) is not None]
        if mins:
            return min(mins, key=version_key)
    return recipe_minimum(doc, ctx, layer.variant, layer.strategy)


def _analyse(doc: LoadedDocument, ctx: Context) -> Analysis:
    out = Analysis()
    data = doc.data
    if not isinstance(data, dict) or not versions():
        return out
    record_ranges(doc, ctx)
    model_min = recipe_minimum(doc, ctx)
    model_plan = plan_for(model_min)
    if model_plan.predates_serve:
        out.add("FLAG018", Hit("/model/min_vllm_version", f"min_vllm_version "
                               f"{model_plan.declared} predates `vllm serve` (first in "
                               f"{SERVE_FIRST}); that release only has the "
                               "`python -m vllm.entrypoints.openai.api_server` module",
                               f"raise min_vllm_version to {SERVE_FIRST} or later"))
        return out
    served_by = platform_plugin(data)
    if served_by is not None:
        omni_plan = plan_for(model_min, served_by)
        if omni_plan.minimum is None:
            out.add("FLAG017", Hit("/meta/tasks", f"arguments not checked: this recipe is "
                                   f"served by {omni_plan.product}; {omni_plan.note}"))
            return out
        if omni_plan.note:
            out.add("FLAG019", Hit("/model/min_vllm_version", omni_plan.note))
    elif model_plan.note:
        out.add("FLAG019", Hit("/model/min_vllm_version", model_plan.note))
    is_npu = npu_hardware(ctx)
    ascend = ascend_variants(data, is_npu)
    layers = collect_layers(data) + external_layers(doc, ctx)
    parsed: dict[str, ParsedArgs] = {}
    self_where: dict[str, tuple[int, ...]] = {}
    noted: set[str] = set()
    for layer in layers:
        family = served_by or layer_plugin(layer, ascend, is_npu)
        reach = install_range(doc, ctx, layer.variant, layer.strategy)
        if family is None:
            plan: VersionPlan | None = plan_for(_layer_minimum(doc, ctx, layer), VLLM,
                                                reach.top, reach.unreleased)
        elif family == served_by:
            plan = plan_for(_layer_minimum(doc, ctx, layer), family, reach.top,
                            reach.unreleased)
        else:
            plan = _layer_plugin_plan(doc, ctx, layer, family, out, noted)
        if plan is None or plan.predates_serve or plan.minimum is None:
            continue
        tokens, where, joined = split_joined(layer.tokens)
        for item in joined:
            ptr, rel = layer.site(doc, item)
            out.add("FLAG020", Hit(ptr, f"list item `{layer.tokens[item]}` holds a flag and "
                                   "its value", "write the flag and its value as two list "
                                   "items", related=rel))
        result, issues = check_tokens(tokens, plan)
        if result is not None:
            parsed[layer.pointer] = result
            self_where[layer.pointer] = where
        for issue in issues:
            ptr, related = layer.site(doc, where[issue.index])
            if layer.origin is not None:
                if issue.code in ("underscore", "abbreviation", "removed", "duplicate"):
                    continue  # a property of the other file, reported when it is checked
                issue = FlagIssue(issue.code, issue.index, f"{layer.label}: {issue.message}",
                                  issue.hint)
            elif issue.related_index is not None:
                rptr = join_pointer(layer.pointer, where[issue.related_index])
                related = (Related(_line(doc, rptr), "first occurrence"),)
            out.add(_CODE_RULE[issue.code], Hit(ptr, issue.message, issue.hint,
                                                related=related))
        if result is not None:
            _max_model_len(doc, layer, result, where, out)
    _auto_tool_choice(doc, layers, parsed, self_where, out)
    _shadowing(doc, ctx, layers, parsed, self_where, out)
    _env_vars(doc, ctx, ascend, is_npu, out)
    return out


def _max_model_len(doc: LoadedDocument, layer: ArgLayer, parsed: ParsedArgs,
                   where: Sequence[int], out: Analysis) -> None:
    ctx_len = get(doc.data, "model", "context_length")
    if not isinstance(ctx_len, int) or isinstance(ctx_len, bool) or ctx_len <= 0:
        return
    if parsed.has("hf_overrides") or parsed.has("rope_scaling") or _allows_long(doc):
        return
    for opt in parsed.find("max_model_len"):
        n = parse_int(opt.value)
        if n is not None and n > ctx_len:
            out.add("FLAG015", Hit(layer.site(doc, where[opt.index])[0],
                                   f"--max-model-len {opt.value} is above the model's "
                                   f"context_length {ctx_len}: vLLM refuses to start",
                                   f"use at most {ctx_len}, correct model.context_length, or "
                                   "extend the context (rope scaling in --hf-overrides, or "
                                   "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 in base_env)",
                                   related=(Related(_line(doc, "/model/context_length"),
                                                    "model.context_length"),)))


def _allows_long(doc: LoadedDocument) -> bool:
    """Whether an environment map of the recipe sets ``VLLM_ALLOW_LONG_MAX_MODEL_LEN``."""
    for pointer, *_ in env_maps(doc.data):
        env = as_dict(get(doc.data, *split_pointer(pointer)))
        if str(env.get("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "")).strip() not in ("", "0"):
            return True
    return False


def _default_features(data: Any) -> set[str]:
    opt_in = {f for f in as_list(get(data, "opt_in_features")) if isinstance(f, str)}
    return {f for f in as_dict(get(data, "features")) if f not in opt_in}


def _auto_tool_choice(doc: LoadedDocument, layers: list[ArgLayer],
                      parsed: dict[str, ParsedArgs], where: dict[str, tuple[int, ...]],
                      out: Analysis) -> None:
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
            out.add("FLAG010", Hit(layer.site(doc, where[layer.pointer][opt.index])[0],
                                   "--enable-auto-tool-choice without --tool-call-parser in "
                                   "the same command: vLLM refuses to start",
                                   "add --tool-call-parser <name> next to it"))


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
               out: Analysis) -> None:
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
                eline = erel[0].line if erel else _line(doc, eptr)
                # the line goes in ``related``, not the message: messages stay stable
                # when lines move (history diffs and fingerprints compare messages)
                where_txt = f" ({erel[0].path})" if erel else ""
                if prev.values == opt.values:
                    continue  # the same value: the rendered command does not change
                lptr, _ = later.site(doc, where[later.pointer][opt.index])
                out.add("FLAG012", Hit(lptr, f"`{opt.display}` in {later.label} overrides "
                                       f"`{' '.join((prev.display, *prev.values))}` of "
                                       f"{earlier.label}{where_txt}", None,
                                       related=erel or (Related(eline, earlier.label),)))


def _env_vars(doc: LoadedDocument, ctx: Context, ascend: set[str],
              is_npu: Callable[[str], bool], out: Analysis) -> None:
    data = doc.data
    served_by = platform_plugin(data)
    for pointer, label, variant, hardware in env_maps(data):
        npu = is_npu(hardware) if hardware else variant in ascend
        family = served_by or (ASCEND if npu else VLLM)
        plan = plan_for(recipe_minimum(doc, ctx, variant), family)
        for name in as_dict(get(data, *split_pointer(pointer))):
            why = env_issue(name, plan) if isinstance(name, str) else None
            if why is not None:
                out.add("FLAG016", Hit(join_pointer(pointer, name), f"{label}: {why[0]}",
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
                    out.add("FLAG016", Hit(f"/compatible_strategies/{i}",
                                           f"{sdoc.path} {sptr[1:].replace('/', '.')}: {why[0]}",
                                           why[1], related=(Related(line, var, sdoc.path),)))


# --------------------------------------------------------------------------- rules


def _hits(rule_id: str, doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The hits of ``rule_id`` in the cached analysis of ``doc``."""
    return iter(analysis(doc, ctx).hits.get(rule_id, []))


@rule("FLAG001", Severity.ERROR, "Unknown vLLM flag")
def unknown_flag(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """An argument is not an option of ``vllm serve`` at the recipe's effective minimum vLLM
    version, nor of any later vendored release (or is an ambiguous abbreviation). argparse
    exits with "unrecognized arguments". The hint names the nearest real flag
    (:func:`difflib.get_close_matches`). Source: the vendored CLI registry, built from the
    release's own ``make_arg_parser``."""
    return _hits("FLAG001", doc, ctx)


@rule("FLAG002", Severity.ERROR, "Flag newer than the declared minimum vLLM")
def flag_newer_than_minimum(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The flag (or its dotted-key form) exists only from a later release than the recipe's
    effective minimum ``min_vllm_version``: on the declared minimum, ``vllm serve`` rejects
    it. The message names the first release that has it."""
    return _hits("FLAG002", doc, ctx)


@rule("FLAG003", Severity.WARNING, "Flag or value removed by a newer vLLM release")
def flag_removed_since(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The flag (or one of its values) is accepted at the recipe's minimum version but no
    longer by the newest vendored release, and every install path of the recipe pins a
    release before that (``vllm==X``, a ``vX`` image): the message names the first release
    without it. The recipe breaks for anyone who upgrades. When an install path pulls the
    newest release, the removal is inside the install range: ``FLAG023`` (error)."""
    return _hits("FLAG003", doc, ctx)


@rule("FLAG004", Severity.ERROR, "Flag is missing its value")
def missing_value(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A value-taking option is followed by another option or ends the list (argparse:
    "expected one argument"), or a dotted key ends the list."""
    return _hits("FLAG004", doc, ctx)


@rule("FLAG005", Severity.ERROR, "Value given to a switch, or a stray token")
def value_given_to_switch(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A switch (an option taking no value, e.g. ``--trust-remote-code``) is given
    ``=value`` (argparse: "ignored explicit argument") or is followed by a bare token,
    or a bare token follows a complete option: argparse rejects it as an unrecognized
    positional argument."""
    return _hits("FLAG005", doc, ctx)


@rule("FLAG006", Severity.ERROR, "Value not accepted by the flag")
def value_not_accepted(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The value is not among the flag's choices at the recipe's minimum version: argparse
    ``choices``, the registered tool-call and reasoning parser names, the
    ``--kv-cache-dtype`` values (vLLM validates these after argparse). A value that only
    appears in a later release is reported with that release."""
    return _hits("FLAG006", doc, ctx)


@rule("FLAG007", Severity.ERROR, "JSON-valued flag does not hold valid JSON")
def json_value_invalid(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """vLLM parses the value of JSON-valued options (``--speculative-config``,
    ``--compilation-config``, ``--hf-overrides``, ...) with ``json.loads``; ``*-config``
    options must hold a JSON object (``--compilation-config`` also takes an integer level).
    Whether a plain string is accepted is the release's own answer, recorded per option in
    the vendored registry (``json_takes_string``): only a dict-or-string union
    (``union_dict_and_str``) takes one, so ``--limit-mm-per-prompt image=4,audio=1`` is an
    error where the type is ``json.loads``. Custom JSON types of old releases
    (``--compilation-config`` of 0.9.0/0.9.1, ``parses_json``) are checked as JSON too.
    The finding points at the value.

    Failing::

        model:
          base_args: ["--limit-mm-per-prompt", "image=4,audio=1"]

    Passing::

        model:
          base_args: ["--limit-mm-per-prompt", '{"image": 4, "audio": 1}']

    How to fix: write a JSON object in single quotes."""
    return _hits("FLAG007", doc, ctx)


@rule("FLAG008", Severity.ERROR, "num_speculative_tokens is not a positive integer")
def speculative_tokens_not_positive(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``num_speculative_tokens`` of ``--speculative-config`` (whole JSON or dotted key) must
    be an integer >= 1 (``SpeculativeConfig`` validation)."""
    return _hits("FLAG008", doc, ctx)


@rule("FLAG009", Severity.ERROR, "Dotted JSON key misused")
def dotted_key_misused(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``FlexibleArgumentParser`` takes the token after a dotted key
    (``--speculative-config.enforce_eager``) as its value unconditionally, so a dotted
    boolean written without a value swallows the next flag; or a dotted key is used on an
    option that is not JSON-valued."""
    return _hits("FLAG009", doc, ctx)


@rule("FLAG011", Severity.ERROR, "Same flag twice in one list")
def flag_twice_in_one_list(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """One argument list sets the same option twice (or a whole JSON value and dotted keys of
    the same option). The site's ``dedupeArgs`` silently drops the earlier one, and vLLM's
    dotted keys replace the whole JSON value, so one of them is dead."""
    return _hits("FLAG011", doc, ctx)


@rule("FLAG012", Severity.INFO, "A later layer overrides an earlier flag")
def later_layer_overrides(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A flag set in one layer (e.g. ``model.base_args``) is set again by a layer rendered
    after it in the same command (variant, strategy or hardware override, feature), which
    wins (site ``dedupeArgs`` last-wins, and argparse last-wins). Both lines are named so
    the override can be confirmed as intended. Reported only where it changes what a user
    sees: not when both set the same value, and with ``--rendered`` only when the
    overriding token reaches a command the site renders."""
    return _hits("FLAG012", doc, ctx)


@rule("FLAG013", Severity.WARNING, "Flag spelled with underscores")
def underscore_spelling(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """vLLM accepts ``--max_model_len`` (``FlexibleArgumentParser`` turns underscores into
    dashes before the first ``.``), but the recipes site de-duplicates flags by their
    literal spelling: an override written the canonical way does not replace the
    underscore copy and both are rendered."""
    return _hits("FLAG013", doc, ctx)


@rule("FLAG014", Severity.WARNING, "Flag abbreviated")
def abbreviated_flag(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """argparse accepts a unique prefix of a long option (``--max-model`` for
    ``--max-model-len``); the abbreviation breaks as soon as vLLM adds another option
    with the same prefix."""
    return _hits("FLAG014", doc, ctx)


@rule("FLAG016", Severity.WARNING, "VLLM_* environment variable not read")
def env_var_not_read(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A ``VLLM_*`` variable in ``base_env``, ``extra_env`` or a strategy ``env`` is not read
    by the recipe's minimum vLLM (it is newer, older, or unknown), or is no longer read by
    the newest release. Names come from ``vllm/envs.py`` of each release."""
    return _hits("FLAG016", doc, ctx)


@rule("FLAG017", Severity.INFO, "Arguments not checked (platform plugin)")
def not_checked_plugin(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The arguments are for a platform plugin or a separate server (vLLM-Omni for ``tasks:
    omni``; vLLM-Ascend for NPU variants and overrides, ``--quantization ascend`` or
    ``--additional-config``) and no vendored release of that plugin's CLI fits the
    recipe's minimum (the oldest on the package index is built on a newer vLLM), so they
    are reported as not checked rather than risk a false error. When one fits, the
    arguments are checked against it like vLLM's own (``snapshots/vllm-cli/<plugin>/``)."""
    return _hits("FLAG017", doc, ctx)


@rule("FLAG021", Severity.WARNING, "--additional-config key vLLM-Ascend ignores")
def additional_config_key_ignored(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A top-level key of ``--additional-config`` (vLLM hands the object to the platform
    plugin unchanged) is not one the vLLM-Ascend release the recipe needs reads
    (``additional_config.get("key")`` in ``vllm_ascend/ascend_config.py`` and elsewhere in
    the package, collected from the release's source). Releases up to 0.26 ignore keys
    they do not read, so the setting silently has no effect. A key that only later
    releases read names the first one."""
    return _hits("FLAG021", doc, ctx)


@rule("FLAG022", Severity.ERROR, "--additional-config key vLLM-Ascend rejects")
def additional_config_key_rejected(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """As FLAG021, for a vLLM-Ascend release that types the whole object (``AscendConfig``,
    a pydantic config with ``extra="forbid"``, from 0.27): an unknown key is a
    validation error and the server does not start."""
    return _hits("FLAG022", doc, ctx)


@rule("FLAG018", Severity.ERROR, "min_vllm_version predates vllm serve")
def predates_vllm_serve(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``vllm serve`` first shipped in vLLM 0.5.2; on 0.5.1 and older only ``python -m
    vllm.entrypoints.openai.api_server`` exists, so the rendered command cannot run."""
    return _hits("FLAG018", doc, ctx)


@rule("FLAG020", Severity.WARNING, "Flag and value in one list item")
def flag_and_value_in_one_item(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A list item holds ``"--flag value"`` in one string. The site's shell rendering happens
    to split it, but every consumer that passes the items as separate argv entries (not
    through a shell) hands vLLM one argument it does not know. The flag and value are
    still checked as two tokens."""
    return _hits("FLAG020", doc, ctx)


@rule("FLAG019", Severity.INFO, "Flags checked against another release")
def checked_against_other_release(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``min_vllm_version`` is ``nightly`` (or not a vendored release), so the flags are
    checked against the newest vendored release (or the nearest older one) instead; the
    message says which."""
    return _hits("FLAG019", doc, ctx)


@rule("FLAG010", Severity.ERROR, "--enable-auto-tool-choice without --tool-call-parser")
def auto_tool_choice_without_parser(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """vLLM refuses to start when ``--enable-auto-tool-choice`` is set without
    ``--tool-call-parser`` (``validate_parsed_serve_args``). Checked over the arguments
    rendered together: base args, the feature's own args, default-on features and the
    variant's args."""
    return _hits("FLAG010", doc, ctx)


@rule("FLAG015", Severity.ERROR, "--max-model-len above the model's context_length")
def max_model_len_above_context(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
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
    return _hits("FLAG015", doc, ctx)
