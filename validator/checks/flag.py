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

The engine here (:class:`VersionPlan`, :func:`check_tokens`) is shared with the ``GUIDE``
family, which checks the commands written in the guide's shell blocks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from validator.checks._data import as_dict, as_list, get, items
from validator.checks.cli_plan import (
    SERVE_FIRST,
    VLLM,
    VersionPlan,
    all_options,
    allowed_values,
    first_version,
    first_without,
    last_version,
    nearest_hint,
    plan_for,
    required_vllm,
    versions,
)
from validator.checks.registry import Hit, rule
from validator.findings import Related, Severity
from validator.sourcemap import join_pointer, split_pointer
from validator.vllm_cli import argv
from validator.vllm_cli.argv import ParsedArgs, ParsedOption, Problem
from validator.vllm_cli.plugins import ASCEND as _ASCEND_PLUGIN
from validator.vllm_cli.plugins import OMNI as _OMNI_PLUGIN

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument
    from validator.vllm_cli.registry import CliRegistry

#: A parser plugin file registers its own parser names: their values are not checked.
#: Plugin families (PyPI names) of the CLI registries in :mod:`validator.checks.cli_plan`.
OMNI, ASCEND = _OMNI_PLUGIN.name, _ASCEND_PLUGIN.name
_PLUGIN_OPTIONS = {"tool_call_parser": "tool_parser_plugin",
                   "reasoning_parser": "reasoning_parser_plugin"}



def recipe_minimum(doc: LoadedDocument, ctx: Context, variant: str | None = None,
                   strategy: str | None = None) -> Any:
    """The effective minimum vLLM of (part of) a recipe, via
    :func:`validator.checks.versions.effective_min_version` (model, variant, strategy and
    kv-store minimums); falls back to ``model.min_vllm_version``."""
    try:
        from validator.checks.versions import effective_min_version
    except ImportError:  # pragma: no cover - the VER family is part of the package
        value = get(doc.data, "model", "min_vllm_version")
        return value if isinstance(value, str) else None
    return effective_min_version(doc, ctx, variant, strategy=strategy)


# --------------------------------------------------------------------------- engine


@dataclass(frozen=True)
class FlagIssue:
    """One problem in one argument list.

    ``code`` is one of ``unknown``, ``newer``, ``removed``, ``missing_value``,
    ``switch_value``, ``choice``, ``json``, ``spec_tokens``, ``dotted``, ``duplicate``,
    ``underscore``, ``abbreviation``; ``index`` the token it is about.
    """

    code: str
    index: int
    message: str
    hint: str | None = None
    related_index: int | None = None


_VALUE_PROBLEMS = {Problem.MISSING_VALUE: "missing_value", Problem.SWITCH_VALUE: "switch_value",
                   Problem.STRAY: "switch_value", Problem.DOTTED_NO_VALUE: "dotted",
                   Problem.DOTTED_NOT_JSON: "dotted"}
_SPELLING = {Problem.UNDERSCORE: "underscore", Problem.ABBREVIATION: "abbreviation"}


def check_tokens(tokens: Sequence[str], plan: VersionPlan, *, allow_positionals: int = 0,
                 duplicates: bool = True) -> tuple[ParsedArgs | None, list[FlagIssue]]:
    """Parse ``tokens`` at ``plan.minimum`` and report every problem.

    Returns the parse at the minimum (``None`` when the plan has no registry) and the
    issues, in token order. Never raises.
    """
    reg = plan.minimum
    if reg is None:
        return None, []
    parsed = argv.parse_args(tokens, reg, allow_positionals=allow_positionals)
    issues: list[FlagIssue] = []
    for p in parsed.problems:
        if p.kind in (Problem.UNKNOWN, Problem.AMBIGUOUS, Problem.DOTTED_UNSUPPORTED):
            issues.append(_unknown_issue(p, plan))
        elif p.kind in _VALUE_PROBLEMS:
            issues.append(FlagIssue(_VALUE_PROBLEMS[p.kind], p.index, p.message))
        elif p.kind in _SPELLING:
            hint = (f"write `{p.option.display}`" if p.option is not None else None)
            issues.append(FlagIssue(_SPELLING[p.kind], p.index, p.message + (
                " — the recipes site de-duplicates flags by their literal spelling, so an "
                "override spelled the canonical way does not replace this one"
                if p.kind is Problem.UNDERSCORE else ""), hint))
    plugged = {dest for dest, plugin in _PLUGIN_OPTIONS.items()
               if any(o.dest == plugin or ("parser-plugin" in o.normalised
                                           and dest.split("_")[0] in o.normalised)
                      for o in parsed.options)}
    for opt in parsed.options:
        if opt.dest not in plugged:
            issues.extend(_value_issues(opt, reg, plan))
    issues.extend(_speculative_issues(parsed))
    if duplicates:
        for first, second in argv.duplicates(parsed):
            issues.append(FlagIssue("duplicate", second.index, f"`{second.display}` is set "
                                    f"twice in this list (first at item {first.index})" + (
                                        "; the dotted keys replace the whole JSON value"
                                        if bool(first.keys) != bool(second.keys) else ""),
                                    "keep one occurrence", related_index=first.index))
    issues.extend(_newest_issues(tokens, parsed, plan, allow_positionals))
    issues.sort(key=lambda x: x.index)
    return parsed, issues


def _unknown_issue(p: argv.ArgProblem, plan: VersionPlan) -> FlagIssue:
    assert plan.minimum is not None
    opt = p.option
    if p.kind is Problem.AMBIGUOUS or opt is None:
        return FlagIssue("unknown", p.index, p.message, "write the option in full")
    name = opt.normalised
    kind = "dotted" if opt.keys else "option"
    fam, prod = plan.family, plan.product
    first = first_version(kind, name, fam)
    here = Version(plan.minimum.version)
    if first is not None and Version(first) > here:
        what = (f"dotted keys of `{name}` are accepted" if opt.keys
                and first_version("option", name, fam) != first else f"`{name}` exists")
        return FlagIssue("newer", p.index, f"`{opt.written}`: {what} only from {prod} {first}, "
                         f"but the recipe's minimum is {plan.label}",
                         f"raise min_vllm_version to {required_vllm(first, fam)} or drop "
                         "the flag")
    if first is not None:
        last = last_version(kind, name, fam)
        return FlagIssue("unknown", p.index, f"`{opt.written}`: `{name}` is not an option of "
                         f"{prod} {plan.minimum.version} (it existed in {first}..{last})",
                         nearest_hint(name, all_options(plan.minimum.version, fam)))
    top = plan.newest or plan.minimum
    return FlagIssue("unknown", p.index, f"`{opt.written}` is not an option of any vendored "
                     f"{prod} release up to {top.version}",
                     nearest_hint(name, all_options(top.version, fam)))


_SHELL_VAR = re.compile(r"\$(?:\{\w+\}|\w+)")


def _json_shape_ok(option: str, value: str) -> tuple[bool, str]:
    """Whether ``value`` is acceptable for a JSON-valued option (see FLAG007)."""
    text = value.strip()
    if text in ("", "None") or text.startswith("$"):
        return True, ""
    if "$" in text:  # shell variables expand before vLLM sees the value
        text = _SHELL_VAR.sub("0", text)
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        if text.startswith(("{", "[")) or option.endswith(("-config", "-kwargs", "overrides")):
            return False, f"is not valid JSON ({exc.msg} at column {exc.colno})"
        return True, ""  # dict-or-str options (union_dict_and_str) take plain strings
    if option.endswith("-config") and not isinstance(parsed, dict):
        if option == "--compilation-config" and isinstance(parsed, int):
            return True, ""  # an optimisation level (-O3 shorthand)
        return False, f"is JSON {type(parsed).__name__}, not a JSON object"
    return True, ""


def _value_issues(opt: ParsedOption, reg: CliRegistry, plan: VersionPlan) -> Iterator[FlagIssue]:
    spec = opt.spec
    if spec is None or not opt.values or opt.keys:
        return
    name = opt.option or opt.normalised
    if argv.json_valued(spec) or name in reg.json_flags:
        for value in opt.values:
            ok, why = _json_shape_ok(name, value)
            if not ok:
                yield FlagIssue("json", opt.index, f"value of `{name}` {why}: `{value[:80]}`",
                                "write a JSON object in single quotes, e.g. '{\"key\": 1}'")
        return
    allowed = allowed_values(reg, spec)
    if allowed is None or spec.takes_value is False:
        return
    for value in opt.values:
        if value in allowed or value.startswith("$"):
            continue
        first = first_version(f"choices:{name}", value, plan.family)
        if first is not None and Version(first) > Version(reg.version):
            yield FlagIssue("choice", opt.index, f"`{name} {value}`: `{value}` is accepted only "
                            f"from {plan.product} {first}, but the recipe's minimum is "
                            f"{plan.label}",
                            f"raise min_vllm_version to {required_vllm(first, plan.family)}")
        else:
            yield FlagIssue("choice", opt.index, f"`{name} {value}`: `{value}` is not a value "
                            f"{plan.product} {reg.version} accepts",
                            nearest_hint(value, sorted(allowed)) or
                            f"one of: {', '.join(sorted(allowed)[:12])}")


def _speculative_issues(parsed: ParsedArgs) -> Iterator[FlagIssue]:
    value, sources = parsed.json_value("speculative_config")
    if not value or "num_speculative_tokens" not in value or not sources:
        return
    n = value["num_speculative_tokens"]
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        yield FlagIssue("spec_tokens", sources[-1].index, f"num_speculative_tokens is {n!r}; "
                        "it must be a positive integer", "e.g. \"num_speculative_tokens\": 1")


def _newest_issues(tokens: Sequence[str], parsed: ParsedArgs, plan: VersionPlan,
                   allow_positionals: int) -> Iterator[FlagIssue]:
    top, low = plan.newest, plan.minimum
    if top is None or low is None or top.version == low.version:
        return
    later = argv.parse_args(tokens, top, allow_positionals=allow_positionals)
    by_index = {o.index: o for o in later.options}
    for opt in parsed.options:
        if opt.spec is None:
            continue
        new = by_index.get(opt.index)
        name = opt.option or opt.normalised
        if new is None or new.spec is None:
            gone = first_without("option", name, low.version, plan.family)
            yield FlagIssue("removed", opt.index, f"`{opt.written}`: `{name}` was removed in "
                            f"{plan.product} {gone or top.version} (absent from "
                            f"{top.version})",
                            nearest_hint(name, all_options(top.version, plan.family)))
            continue
        old_allowed = allowed_values(low, opt.spec)
        new_allowed = allowed_values(top, new.spec)
        if old_allowed is None or new_allowed is None or opt.keys:
            continue
        for value in opt.values:
            if value in old_allowed and value not in new_allowed:
                gone = first_without(f"choices:{name}", value, low.version, plan.family)
                yield FlagIssue("removed", opt.index, f"`{name} {value}`: `{value}` is no "
                                f"longer accepted from {plan.product} {gone or top.version}",
                                nearest_hint(value, sorted(new_allowed)))




# --------------------------------------------------------------------------- layers


@dataclass(frozen=True)
class ArgLayer:
    """One argument list of a recipe, with what selects it.

    ``order`` is its place in the rendered command (site ``buildArgs``: 10 base args,
    20 variant, 21 variant exact-GPU override, 30 strategy, 40 strategy override, 50 recipe
    hardware override, 51 variant generation override, 52 strategy hardware override
    (replaces 50 and 51), 53 exact-GPU strategy/role override, 70 features, 80 kv
    offload; see :data:`ORDER`); ``hardware`` the
    hardware key, ``group`` a mutual-exclusion key (feature modes, feature hardware
    overrides replace the feature's own args).
    """

    pointer: str
    tokens: tuple[str, ...]
    label: str
    order: int
    variant: str | None = None
    strategy: str | None = None
    role: str | None = None
    hardware: str | None = None
    feature: str | None = None
    group: str | None = None
    mode_variants: tuple[str, ...] = ()
    anchor: str | None = None
    origin: LoadedDocument | None = None

    def site(self, doc: LoadedDocument, index: int) -> tuple[str, tuple[Related, ...]]:
        """(pointer in the recipe, related locations) for item ``index`` of this layer;
        items of another file (a strategy, the taxonomy) are reported at ``anchor`` with
        a :class:`Related` pointing into that file."""
        if self.origin is None or self.anchor is None:
            return join_pointer(self.pointer, index), ()
        line = self.origin.source_map.position(join_pointer(self.pointer, index))[0]
        return self.anchor, (Related(line, f"{self.label} item {index}", self.origin.path),)


def external_layers(doc: LoadedDocument, ctx: Context) -> list[ArgLayer]:
    """Argument lists the recipe pulls in from other files of its revision: the
    ``vllm_args`` of each compatible strategy (``prefill``/``decode`` for PD) and the
    ``args`` of each kv-offload option the recipe supports (``taxonomy.kv_offload``).
    They are reported on the recipe line that selects them."""
    out: list[ArgLayer] = []
    data = doc.data
    for i, name in enumerate(as_list(get(data, "compatible_strategies"))):
        sdoc = ctx.strategies.get(name) if isinstance(name, str) else None
        if sdoc is None or not sdoc.ok:
            continue
        anchor = f"/compatible_strategies/{i}"
        for ptr, role in (("/vllm_args", None), ("/prefill/vllm_args", "prefill"),
                          ("/decode/vllm_args", "decode")):
            toks = _tokens(get(sdoc.data, *ptr.strip("/").split("/")))
            if toks is not None:
                out.append(ArgLayer(ptr, toks, f"{sdoc.path} {ptr[1:].replace('/', '.')}", 30,
                                    strategy=name, role=role, anchor=anchor, origin=sdoc))
    tax = ctx.taxonomy
    options = as_dict(get(tax.data if tax is not None else None, "kv_offload"))
    for key, status, ptr in items(get(data, "kv_offload_support"), "/kv_offload_support"):
        if status == "unsupported" or key not in options or tax is None:
            continue
        toks = _tokens(get(options[key], "args"))
        if toks is not None:
            out.append(ArgLayer(f"/kv_offload/{key}/args", toks,
                                f"taxonomy.yaml kv_offload.{key}.args", 80, group=f"kv:{key}",
                                anchor=ptr, origin=tax))
    return out


def _tokens(value: Any) -> tuple[str, ...] | None:
    lst = as_list(value)
    if not lst or not all(isinstance(x, str | int | float) and not isinstance(x, bool)
                          for x in lst):
        return None
    return tuple(str(x) for x in lst)


def collect_layers(data: Any) -> list[ArgLayer]:
    """Every structured ``vllm serve`` argument list of a recipe, in render order."""
    out: list[ArgLayer] = []

    def add(pointer: str, value: Any, label: str, order: int, **kw: Any) -> None:
        toks = _tokens(value)
        if toks is not None:
            out.append(ArgLayer(pointer, toks, label, order, **kw))

    add("/model/base_args", get(data, "model", "base_args"), "model.base_args", 10)
    for vname, variant, vptr in items(get(data, "variants"), "/variants"):
        add(vptr + "/extra_args", get(variant, "extra_args"), f"variants.{vname}.extra_args", 20,
            variant=vname)
        for hw, ho, hptr in items(get(variant, "hardware_overrides"), vptr + "/hardware_overrides"):
            add(hptr + "/extra_args", get(ho, "extra_args"),
                f"variants.{vname}.hardware_overrides.{hw}.extra_args", 51, variant=vname,
                hardware=hw)
    for sname, so, sptr in items(get(data, "strategy_overrides"), "/strategy_overrides"):
        for key in ("extra_args", "vllm_args"):
            add(f"{sptr}/{key}", get(so, key), f"strategy_overrides.{sname}.{key}", 40,
                strategy=sname)
        for hw, ho, hptr in items(get(so, "hardware_overrides"), sptr + "/hardware_overrides"):
            add(hptr + "/extra_args", get(ho, "extra_args"),
                f"strategy_overrides.{sname}.hardware_overrides.{hw}.extra_args", 52,
                strategy=sname, hardware=hw)
        for role in ("prefill", "decode"):
            rcfg = get(so, role)
            for key in ("extra_args", "vllm_args"):
                add(f"{sptr}/{role}/{key}", get(rcfg, key),
                    f"strategy_overrides.{sname}.{role}.{key}", 40, strategy=sname, role=role)
            for hw, ho, hptr in items(get(rcfg, "hardware_overrides"),
                                      f"{sptr}/{role}/hardware_overrides"):
                add(hptr + "/extra_args", get(ho, "extra_args"),
                    f"strategy_overrides.{sname}.{role}.hardware_overrides.{hw}.extra_args", 53,
                    strategy=sname, role=role, hardware=hw)
    for hw, ho, hptr in items(get(data, "hardware_overrides"), "/hardware_overrides"):
        add(hptr + "/extra_args", get(ho, "extra_args"), f"hardware_overrides.{hw}.extra_args",
            50, hardware=hw)
    for fname, feat, fptr in items(get(data, "features"), "/features"):
        add(fptr + "/args", get(feat, "args"), f"features.{fname}.args", 70, feature=fname,
            group=f"{fname}:base")
        for hw, ho, hptr in items(get(feat, "hardware_overrides"), fptr + "/hardware_overrides"):
            add(hptr + "/args", get(ho, "args"), f"features.{fname}.hardware_overrides.{hw}.args",
                7, feature=fname, hardware=hw, group=f"{fname}:hw:{hw}")
        for mname, mode, mptr in items(get(feat, "modes"), fptr + "/modes"):
            mv = tuple(v for v in as_list(get(mode, "variants")) if isinstance(v, str))
            add(mptr + "/args", get(mode, "args"), f"features.{fname}.modes.{mname}.args", 70,
                feature=fname, group=f"{fname}:mode:{mname}", mode_variants=mv)
            for hw, ho, hptr in items(get(mode, "hardware_overrides"),
                                      mptr + "/hardware_overrides"):
                add(hptr + "/args", get(ho, "args"),
                    f"features.{fname}.modes.{mname}.hardware_overrides.{hw}.args", 70,
                    feature=fname, hardware=hw, group=f"{fname}:mode:{mname}:hw:{hw}",
                    mode_variants=mv)
    return out


# --------------------------------------------------------------------------- plugins

_ASCEND_HW = re.compile(r"ascend|atlas|npu", re.IGNORECASE)


def platform_plugin(data: Any) -> str | None:
    """``"vllm-omni"`` (the plugin family, see :mod:`validator.vllm_cli.plugins`) when the
    recipe is served by vLLM-Omni (``meta.tasks`` has ``omni``), else ``None``."""
    tasks = as_list(get(data, "meta", "tasks"))
    return OMNI if "omni" in tasks else None


def _is_ascend_tokens(tokens: Sequence[str]) -> bool:
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


def ascend_variants(data: Any) -> set[str]:
    """Variants served by the vLLM-Ascend plugin: their ``extra_args`` select
    ``--quantization ascend`` or pass ``--additional-config``, or they are supported only
    on NPU hardware."""
    out: set[str] = set()
    for vname, variant, _ in items(get(data, "variants"), "/variants"):
        toks = _tokens(get(variant, "extra_args")) or ()
        hw = [h for h in as_list(get(variant, "supported_hardware")) if isinstance(h, str)]
        if _is_ascend_tokens(toks) or (hw and all(_ASCEND_HW.search(h) for h in hw)):
            out.add(vname)
    return out


def layer_plugin(layer: ArgLayer, ascend: set[str]) -> str | None:
    """The platform plugin family that serves ``layer`` (``"vllm-ascend"``) or ``None``."""
    if layer.variant in ascend or (layer.hardware and _ASCEND_HW.search(layer.hardware)):
        return ASCEND
    if layer.mode_variants and all(v in ascend for v in layer.mode_variants):
        return ASCEND
    if _is_ascend_tokens(layer.tokens):
        return ASCEND
    return None


def _plugin_plan(doc: LoadedDocument, ctx: Context, layer: ArgLayer, family: str,
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
              "duplicate": "FLAG011", "underscore": "FLAG013", "abbreviation": "FLAG014"}

_CACHE: dict[int, tuple[Any, Any, Analysis]] = {}


def analysis(doc: LoadedDocument, ctx: Context) -> Analysis:
    """The (cached) :class:`Analysis` of ``doc`` in ``ctx``."""
    key = id(doc)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is doc and hit[1] is ctx:
        return hit[2]
    result = _analyse(doc, ctx)
    if len(_CACHE) > 16:
        _CACHE.clear()
    _CACHE[key] = (doc, ctx, result)
    return result


def _line(doc: LoadedDocument, pointer: str) -> int:
    return doc.source_map.position(pointer)[0]


def _layer_minimum(doc: LoadedDocument, ctx: Context, layer: ArgLayer) -> Any:
    if layer.mode_variants:
        mins = [recipe_minimum(doc, ctx, v) for v in layer.mode_variants]
        mins = [m for m in mins if m is not None]
        if mins:
            return min(mins, key=_vkey)
    return recipe_minimum(doc, ctx, layer.variant, layer.strategy)


def _vkey(value: Any) -> tuple[int, Version]:
    if str(value) == "nightly":
        return (1, Version("0"))
    try:
        return (0, Version(str(value)))
    except InvalidVersion:
        return (1, Version("0"))


def _analyse(doc: LoadedDocument, ctx: Context) -> Analysis:
    out = Analysis()
    data = doc.data
    if not isinstance(data, dict) or not versions():
        return out
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
    ascend = ascend_variants(data)
    layers = collect_layers(data) + external_layers(doc, ctx)
    parsed: dict[str, ParsedArgs] = {}
    self_where: dict[str, tuple[int, ...]] = {}
    noted: set[str] = set()
    for layer in layers:
        family = served_by or layer_plugin(layer, ascend)
        if family is None:
            plan: VersionPlan | None = plan_for(_layer_minimum(doc, ctx, layer))
        elif family == served_by:
            plan = plan_for(_layer_minimum(doc, ctx, layer), family)
        else:
            plan = _plugin_plan(doc, ctx, layer, family, out, noted)
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
            _additional_config(doc, layer, result, where, plan, out)
    _auto_tool_choice(doc, layers, parsed, self_where, out)
    _shadowing(doc, ctx, layers, parsed, self_where, out)
    _env_vars(doc, ctx, ascend, out)
    return out


_JOINED = re.compile(r"^(-{1,2}[A-Za-z][\w.+-]*)\s+(\S.*)$", re.DOTALL)


def split_joined(tokens: Sequence[str]) -> tuple[tuple[str, ...], tuple[int, ...], list[int]]:
    """Split list items that hold ``"--flag value"`` in one string.

    Returns the tokens as vLLM would see them after a shell split, the original item index
    of each token, and the indexes of the joined items.
    """
    out: list[str] = []
    where: list[int] = []
    joined: list[int] = []
    for i, tok in enumerate(tokens):
        m = _JOINED.match(tok)
        if m is not None and "=" not in m.group(1):
            out += [m.group(1), m.group(2)]
            where += [i, i]
            joined.append(i)
        else:
            out.append(tok)
            where.append(i)
    return tuple(out), tuple(where), joined


def _max_model_len(doc: LoadedDocument, layer: ArgLayer, parsed: ParsedArgs,
                   where: Sequence[int], out: Analysis) -> None:
    ctx_len = get(doc.data, "model", "context_length")
    if not isinstance(ctx_len, int) or isinstance(ctx_len, bool) or ctx_len <= 0:
        return
    if parsed.has("hf_overrides") or parsed.has("rope_scaling"):
        return
    for opt in parsed.find("max_model_len"):
        n = parse_int(opt.value)
        if n is not None and n > ctx_len:
            out.add("FLAG015", Hit(layer.site(doc, where[opt.index])[0],
                                   f"--max-model-len {opt.value} is above the model's "
                                   f"context_length {ctx_len}",
                                   f"use at most {ctx_len}, or correct model.context_length",
                                   related=(Related(_line(doc, "/model/context_length"),
                                                    "model.context_length"),)))


def _additional_config(doc: LoadedDocument, layer: ArgLayer, parsed: ParsedArgs,
                       where: Sequence[int], plan: VersionPlan, out: Analysis) -> None:
    """FLAG021: top-level ``--additional-config`` keys the plugin release does not read."""
    reg = plan.minimum
    if (plan.family != ASCEND or reg is None or reg.plugin is None
            or not reg.plugin.additional_config_keys):
        return  # vLLM-Omni's reads are per model, not one platform-wide set
    known = reg.plugin.additional_config_keys
    for opt in parsed.find("additional_config"):
        if opt.keys:
            keys = [opt.keys[0]]
        else:
            try:
                value = json.loads(opt.value or "")
            except ValueError:
                continue  # FLAG007 reports it
            keys = list(value) if isinstance(value, dict) else []
        for key in keys:
            if key in known:
                continue
            first = first_version("additional_config", key, plan.family)
            if first is not None and Version(first) > Version(reg.version):
                why = f"is read only from {plan.product} {first}"
            elif first is not None:
                why = (f"is not read by {plan.product} {reg.version} (read by {first} to "
                       f"{last_version('additional_config', key, plan.family)})")
            else:
                why = f"is not read by any vendored {plan.product} release"
            at = opt.value_indexes[-1] if opt.value_indexes else opt.index
            out.add("FLAG021", Hit(layer.site(doc, where[at])[0],
                                   f"{layer.label}: `--additional-config` key `{key}` {why}",
                                   nearest_hint(key, sorted(known))))


def parse_int(text: str | None) -> int | None:
    """vLLM's ``human_readable_int`` (``128k`` = 128000, ``1K`` = 1024); ``None`` for
    ``auto``/``-1`` and anything unparseable."""
    if text is None:
        return None
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgGtT]?)", text.strip())
    if not m:
        return None
    number, suffix = m.groups()
    dec = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
    binary = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
    if not suffix:
        return int(float(number)) if "." not in number else None
    if suffix in dec:
        return int(float(number) * dec[suffix])
    return int(number) * binary[suffix] if "." not in number else None


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
                same = " with the same value" if prev.values == opt.values else ""
                lptr, _ = later.site(doc, where[later.pointer][opt.index])
                out.add("FLAG012", Hit(lptr, f"`{opt.display}` in {later.label} overrides "
                                       f"`{' '.join((prev.display, *prev.values))}` of "
                                       f"{earlier.label}{where_txt}{same}", None,
                                       related=erel or (Related(eline, earlier.label),)))


def env_maps(data: Any) -> Iterator[tuple[str, str, str | None]]:
    """``(pointer, label, variant)`` of every environment map of a recipe."""
    yield "/model/base_env", "model.base_env", None
    for hw, _, hptr in items(get(data, "hardware_overrides"), "/hardware_overrides"):
        yield hptr + "/extra_env", f"hardware_overrides.{hw}.extra_env", None
    for vname, variant, vptr in items(get(data, "variants"), "/variants"):
        yield vptr + "/extra_env", f"variants.{vname}.extra_env", vname
        for hw, _, hptr in items(get(variant, "hardware_overrides"), vptr + "/hardware_overrides"):
            yield hptr + "/extra_env", f"variants.{vname}.hardware_overrides.{hw}.extra_env", vname
    for sname, so, sptr in items(get(data, "strategy_overrides"), "/strategy_overrides"):
        for key in ("env", "extra_env"):
            yield f"{sptr}/{key}", f"strategy_overrides.{sname}.{key}", None
            for role in ("prefill", "decode"):
                if isinstance(get(so, role), dict):
                    yield f"{sptr}/{role}/{key}", f"strategy_overrides.{sname}.{role}.{key}", None
        for hw, _, hptr in items(get(so, "hardware_overrides"), sptr + "/hardware_overrides"):
            yield hptr + "/extra_env", f"strategy_overrides.{sname}.hardware_overrides.{hw}", None


def env_issue(name: str, plan: VersionPlan) -> tuple[str, str | None] | None:
    """Why ``VLLM_*`` variable ``name`` is not read at ``plan`` (or was removed since),
    with a hint; ``None`` when it is fine or cannot be judged."""
    reg, top = plan.minimum, plan.newest
    if reg is None or not reg.env_vars or not name.startswith("VLLM_"):
        return None
    fam, prod = plan.family, plan.product
    if name in reg.env_vars:
        if top is not None and top.env_vars and name not in top.env_vars:
            gone = first_without("env", name, reg.version, fam)
            return f"`{name}` is no longer read from {prod} {gone or top.version}", None
        return None
    first = first_version("env", name, fam)
    if first is not None and Version(first) > Version(reg.version):
        return (f"`{name}` is read only from {prod} {first}, but the recipe's minimum is "
                f"{plan.label}", f"raise min_vllm_version to {required_vllm(first, fam)}")
    if first is not None:
        return (f"`{name}` is not read by {prod} {reg.version} (read by {first} to "
                f"{last_version('env', name, fam)})", None)
    known = sorted(top.env_vars) if top is not None else []
    return (f"`{name}` is not an environment variable any vendored {prod} release reads",
            nearest_hint(name, known))


def _env_vars(doc: LoadedDocument, ctx: Context, ascend: set[str], out: Analysis) -> None:
    data = doc.data
    served_by = platform_plugin(data)
    for pointer, label, variant in env_maps(data):
        family = served_by or (ASCEND if variant in ascend or _ASCEND_HW.search(label)
                               else VLLM)
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
    longer by the newest vendored release; the message names the first release without it.
    The recipe breaks for anyone on current vLLM."""
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
    Options that accept "a dict or a string" (``union_dict_and_str``) are only checked
    when the value looks like JSON."""
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
    the override can be confirmed as intended."""
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


@rule("FLAG021", Severity.WARNING, "--additional-config key the plugin does not read")
def additional_config_key_not_read(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A top-level key of ``--additional-config`` (vLLM passes the object to the platform
    plugin unchanged) is not one the vLLM-Ascend release the recipe needs reads
    (``additional_config.get("key")`` in ``vllm_ascend/ascend_config.py`` and elsewhere
    in the package, and the fields of its typed ``AscendConfig`` from 0.27 on, collected
    from the release's source). Up to 0.26 the plugin ignores keys it does not read, so
    the setting silently has no effect; from 0.27 ``AscendConfig`` forbids unknown keys
    and startup fails. A key that only later releases read names the first one."""
    return _hits("FLAG021", doc, ctx)


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


@rule("FLAG015", Severity.WARNING, "--max-model-len above the model's context_length")
def max_model_len_above_context(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``--max-model-len`` is larger than ``model.context_length``; vLLM refuses it unless
    the context is extended (``--hf-overrides`` rope scaling, which skips this check) or
    ``VLLM_ALLOW_LONG_MAX_MODEL_LEN`` is set."""
    return _hits("FLAG015", doc, ctx)
