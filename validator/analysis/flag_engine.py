"""The engine of the ``FLAG`` and ``GUIDE`` families: one list of ``vllm serve``
arguments against one :class:`~validator.analysis.cli_plan.VersionPlan`.

:func:`check_tokens` parses the tokens with the model of vLLM's parser
(:mod:`validator.vllm_cli.argv`) at the plan's minimum registry and returns every
:class:`FlagIssue` (unknown, newer, removed, bad value, JSON, duplicates, spelling);
:mod:`validator.analysis.env_verdicts` judges ``VLLM_*`` variables. The rules that turn issues into
findings live in ``validator/rules/flag/`` (structured args) and
``validator/rules/guide/`` (guide commands).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from packaging.version import Version

from validator.analysis.additional_config import additional_config_issues
from validator.analysis.cli_plan import (
    VLLM,
    VersionPlan,
    allowed_values,
    first_version,
    first_without,
    pre_release_removal,
    present_spans,
    required_vllm,
    unverifiable_by,
    versions,
)
from validator.analysis.config_values import config_issues, kvs_issues
from validator.analysis.flag_cascade import collapse, repaired, swallowers
from validator.analysis.flag_types import type_issues
from validator.analysis.flag_values import (
    PLUGIN_OPTIONS,
    auto_tool_issues,
    custom_json,
    eplb_issues,
    json_shape_ok,
    plugged,
    takes_string,
    value_at,
)
from validator.analysis.flag_values import FlagIssue as FlagIssue  # re-exported
from validator.analysis.kv_extra_config import kv_extra_issues
from validator.analysis.kv_transfer import kv_transfer_issues
from validator.analysis.option_hints import (
    all_options,
    choice_typo,
    close_matches,
    dotted_option_hint,
    nearest_hint,
    option_hint,
    replacement_hint,
)
from validator.analysis.paired_values import pairing_issues, parsed_settings
from validator.analysis.release_range import (
    LISTS_KEPT,
    NOT_AN_OPTION,
    parse_at,
    range_issues,
)
from validator.analysis.speculative_method import key_issues, method_issues
from validator.analysis.speculative_refusals import refusal_issues
from validator.analysis.versions import MinVersion, effective_min_version
from validator.vllm_cli import argv, parsed_args
from validator.vllm_cli.parsed_args import ParsedArgs, ParsedOption, Problem

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument
    from validator.vllm_cli.data_source import CliRegistries
    from validator.vllm_cli.registry import CliRegistry

#: Similarity (:func:`difflib.get_close_matches`) above which an unknown flag is taken for
#: a typo of a released one even where the recipe installs unreleased code.
TYPO_CUTOFF = 0.9


def recipe_minimum(doc: LoadedDocument, ctx: Context, variant: str | None = None,
                   strategy: str | None = None) -> MinVersion | None:
    """The effective minimum vLLM of (part of) a recipe:
    :func:`validator.analysis.versions.effective_min_version` (the highest of the model,
    variant, strategy and kv-store minimums; ``None`` when none parses)."""
    return effective_min_version(doc, ctx, variant, strategy=strategy)


# --------------------------------------------------------------------------- engine


_VALUE_PROBLEMS = {Problem.MISSING_VALUE: "missing_value", Problem.SWITCH_VALUE: "switch_value",
                   Problem.STRAY: "switch_value", Problem.DOTTED_NO_VALUE: "missing_value",
                   Problem.DOTTED_NOT_JSON: "dotted"}
_JUDGED_VALUES = frozenset({Problem.SWITCH_VALUE, Problem.DOTTED_NOT_JSON})
"""Value problems about a value that is there (its finding points at the value)."""
_SPELLING = {Problem.UNDERSCORE: "underscore", Problem.ABBREVIATION: "abbreviation"}


def check_tokens(tokens: Sequence[str], plan: VersionPlan, *, allow_positionals: int = 0,
                 duplicates: bool = True, expansions: frozenset[int] = frozenset(),
                 auto_tool: bool = False, literals: frozenset[int] = frozenset(),
                 ) -> tuple[ParsedArgs | None, list[FlagIssue]]:
    """Parse ``tokens`` at ``plan.minimum`` and report every problem (``expansions``: the
    tokens a shell expands into unknown words, :func:`validator.vllm_cli.argv.parse_args`;
    ``auto_tool``: the tokens are one whole command, so ``--enable-auto-tool-choice``
    without ``--tool-call-parser`` (and ``--enable-eplb`` without
    ``--enable-expert-parallel``) is an issue too; ``literals``: the tokens holding a
    ``$`` that reach vLLM as written, :func:`~validator.analysis.shell_words.printed_literals`,
    whose values are judged as text).

    Returns the parse at the minimum (``None`` when the plan has no registry) and the
    issues, in token order. Never raises. A defect that makes the parser consume the next
    token (a dotted key without its value) is one issue, its consequences folded into it
    (:mod:`validator.analysis.flag_cascade`), and the parse returned is that of the list with
    the defect given its value, so what other checks read of it shows no consequence
    either. Each distinct list is checked once per plan and release window on the plan's
    data source (``plan.cli``): many configurations and recipes render the same
    arguments. The parse is shared: callers read it, never change it.
    """
    reg = plan.minimum
    if reg is None:
        return None, []
    key = (tuple(tokens), allow_positionals, duplicates, plan_key(plan, reg), expansions,
           auto_tool, literals)
    parsed, issues = plan.cli.bounded("flag:check_tokens", key, lambda: judged_tokens(
        key[0], plan, reg, allow_positionals, duplicates, expansions, auto_tool, literals),
        limit=LISTS_KEPT)
    return parsed, list(issues)


def plan_key(plan: VersionPlan, reg: CliRegistry) -> tuple[Any, ...]:
    """Everything of ``plan`` (at its minimum ``reg``) a judgement of tokens reads, besides
    the data source the memo lives on (``plan.cli``)."""
    top = plan.newest
    return (plan.family, reg.version, reg.sha256,
            None if top is None else (top.version, top.sha256), plan.declared, plan.checked,
            plan.unreleased, plan.launch_day, plan.channel, plan.range_label, plan.floor,
            plan.cli.window)


def judged_tokens(tokens: tuple[str, ...], plan: VersionPlan, reg: CliRegistry,
                 allow_positionals: int, duplicates: bool, expansions: frozenset[int],
                 auto_tool: bool, literals: frozenset[int] = frozenset(),
                 ) -> tuple[ParsedArgs, tuple[FlagIssue, ...]]:
    """What :func:`check_tokens` returns: :func:`_checked`, with the consequences of each
    swallowing defect folded into it (:mod:`validator.analysis.flag_cascade`)."""
    parsed, issues = _checked(tokens, plan, reg, allow_positionals, duplicates, expansions,
                              auto_tool, literals)
    roots = swallowers(parsed)
    if not roots:
        return parsed, issues
    meant, fixed = _checked(repaired(tokens, roots), plan, reg, allow_positionals,
                            duplicates, expansions, auto_tool, literals)
    return meant, tuple(collapse(issues, fixed, roots, tokens))


def _checked(tokens: tuple[str, ...], plan: VersionPlan, reg: CliRegistry,
             allow_positionals: int, duplicates: bool, expansions: frozenset[int],
             auto_tool: bool = False, literals: frozenset[int] = frozenset(),
             ) -> tuple[ParsedArgs, tuple[FlagIssue, ...]]:
    """The parse of ``tokens`` and every issue of it."""
    parsed = parse_at(plan.cli, tokens, reg, allow_positionals, expansions)
    issues: list[FlagIssue] = []
    for p in parsed.problems:
        if p.kind in (Problem.UNKNOWN, Problem.AMBIGUOUS, Problem.DOTTED_UNSUPPORTED):
            issues.append(_unknown_issue(p, plan))
        elif p.kind in _VALUE_PROBLEMS:
            issues.append(FlagIssue(_VALUE_PROBLEMS[p.kind], p.index, p.message,
                                    on_value=p.kind in _JUDGED_VALUES))
        elif p.kind in _SPELLING:
            hint = (f"write `{p.option.display}`" if p.option is not None else None)
            issues.append(FlagIssue(_SPELLING[p.kind], p.index, p.message + (
                " — the recipes site de-duplicates flags by their literal spelling, so an "
                "override spelled the canonical way does not replace this one"
                if p.kind is Problem.UNDERSCORE else ""), hint))
    by_plugin = plugged(parsed)
    judged = plan.cli.memoised(("flag:plan", plan_key(plan, reg)), object)
    for opt in parsed.options:
        if opt.spec is not None and opt.values and not opt.keys \
                and opt.dest not in by_plugin:
            literal = tuple(i in literals and i != opt.index for i in value_at(opt)) \
                if literals else ()
            issues.extend(_option_value_issues(opt, reg, plan, judged, literal))
    issues.extend(_speculative_issues(parsed))
    issues.extend(method_issues(parsed, plan))
    issues.extend(key_issues(parsed, plan))
    issues.extend(kv_transfer_issues(parsed, plan))
    issues.extend(kv_extra_issues(parsed, plan))
    issues.extend(kvs_issues(parsed, plan))
    issues.extend(config_issues(parsed, plan))
    issues.extend(refusal_issues(parsed, plan))
    if duplicates:
        for first, second in argv.duplicates(parsed):
            issues.append(FlagIssue("duplicate", second.index, f"`{second.display}` is set "
                                    f"twice in this list (first at item {first.index})" + (
                                        "; the dotted keys replace the whole JSON value"
                                        if bool(first.keys) != bool(second.keys) else ""),
                                    "keep one occurrence", related_index=first.index))
    issues.extend(range_issues(tokens, parsed, plan, allow_positionals, expansions))
    issues.extend(_newest_issues(tokens, parsed, plan, allow_positionals, expansions))
    issues = gone_once(issues)
    issues.extend(additional_config_issues(parsed, plan))
    if auto_tool:
        issues.extend(auto_tool_issues(parsed))
        issues.extend(eplb_issues(parsed))
        issues.extend(pairing_issues(parsed_settings(parsed), plan))
    if plan.launch_day and plan.channel is None:  # said once by the plan's note
        issues = [i for i in issues if i.code != "unreleased_only"]
    issues.sort(key=lambda x: x.index)
    return parsed, tuple(issues)


def gone_once(issues: list[FlagIssue]) -> list[FlagIssue]:
    """``issues`` without what repeats an option's rejection inside the install range
    (``range_rejected``, an error) at the same item: the later removal (``removed``) and,
    when the option is gone (removed, or not an option of a release of the range; not
    when a release only makes its abbreviation ambiguous), the spelling note whose hint
    would write the gone option in full."""
    rejected = {i.index for i in issues if i.code == "range_rejected"}
    gone = {i.index for i in issues if i.code == "removed" or (
        i.code == "range_rejected" and f"({NOT_AN_OPTION})" in i.message)}
    return [i for i in issues if not (i.code == "removed" and i.index in rejected)
            and not (i.code == "abbreviation" and i.index in gone)]


def _option_hint(cli: CliRegistries, opt: parsed_args.ParsedOption, version: str,
                 family: str) -> str | None:
    """"did you mean" for an option ``version`` of ``family`` does not have; with dotted
    keys, among the options that accept them (:func:`dotted_option_hint`)."""
    if opt.keys:
        return dotted_option_hint(cli, opt.normalised, opt.keys, version, family)
    return option_hint(cli, opt.normalised, version, family)


def spans_text(spans: tuple[tuple[str, str], ...], plan: VersionPlan) -> str:
    """The releases that have an option (:func:`present_spans`) as a message says them:
    ``0.4.2..0.16.0``, or ``0.4.2..0.16.0 and again from 0.33.0`` for one removed and
    added back up to the newest vendored release of the plan's family."""
    shown = [f"{a}..{b}" for a, b in spans]
    newest = versions(plan.cli, plan.family)
    if len(spans) > 1 and newest and spans[-1][1] == str(newest[-1]):
        return f"{' and '.join(shown[:-1])} and again from {spans[-1][0]}"
    return " and ".join(shown)


def _unknown_issue(p: parsed_args.ArgProblem, plan: VersionPlan) -> FlagIssue:
    assert plan.minimum is not None
    opt = p.option
    if p.kind is Problem.AMBIGUOUS or opt is None:
        return FlagIssue("unknown", p.index, p.message, "write the option in full")
    name = opt.normalised
    kind = "dotted" if opt.keys else "option"
    fam, prod = plan.family, plan.product
    if name == "--omni" and fam == VLLM:
        return FlagIssue("unknown", p.index, f"`{opt.written}` is vLLM-Omni's, not an option "
                         f"of vLLM {plan.minimum.version}", "a recipe served by vLLM-Omni "
                         "lists `omni` in meta.tasks (its arguments are then checked "
                         "against vLLM-Omni's CLI)")
    first = first_version(plan.cli, kind, name, fam)
    here = Version(plan.minimum.version)
    if first is not None and Version(first) > here:
        what = (f"dotted keys of `{name}` are accepted" if opt.keys
                and first_version(plan.cli, "option", name, fam) != first else f"`{name}` exists")
        return FlagIssue("newer", p.index, f"`{opt.written}`: {what} only from {prod} {first}, "
                         f"but {plan.short_of()}",
                         f"{plan.raise_to(required_vllm(plan.cli, first, fam))} or drop the flag",
                         floor=True)
    if first is not None:
        return FlagIssue("unknown", p.index, f"`{opt.written}`: `{name}` is not an option of "
                         f"{prod} {plan.minimum.version} (it existed in "
                         f"{spans_text(present_spans(plan.cli, kind, name, fam), plan)})",
                         _option_hint(plan.cli, opt, plan.minimum.version, fam))
    top = plan.newest or plan.minimum
    if plan.unreleased and not close_matches(
            name, all_options(plan.cli, top.version, fam), n=1, cutoff=TYPO_CUTOFF):
        return FlagIssue("unreleased_only", p.index, f"`{opt.written}` is not an option of any "
                         f"vendored {prod} release up to {top.version}; "
                         + unverifiable_by(plan, "a nightly or source install"),
                         _option_hint(plan.cli, opt, top.version, fam))
    return FlagIssue("unknown", p.index, f"`{opt.written}` is not an option of any vendored "
                     f"{prod} release up to {top.version}",
                     _option_hint(plan.cli, opt, top.version, fam))


VALUES_KEPT = 32 * LISTS_KEPT
"""How many (option, values, plan) judgements :func:`_option_value_issues` keeps."""


def _option_value_issues(opt: ParsedOption, reg: CliRegistry, plan: VersionPlan,
                         judged: object, literal: tuple[bool, ...] = (),
                         ) -> tuple[FlagIssue, ...]:
    """:func:`_value_issues` of ``opt``, judged once per run and plan for each option token
    bound with its values, whichever list and recipe it comes from (``judged``: one object
    per :func:`plan_key` on the data source, so a key holding it is hashed without
    hashing the plan's fields again). The key holds what :func:`_value_issues` reads of ``opt``: the
    option string (``opt.spec`` is ``reg.lookup`` of it, ``opt.dest`` the spec's), its
    spelling, keys and values, and where its values are relative to the option token;
    the issues are kept at those relative places and put back at ``opt``'s."""
    at = tuple(i - opt.index for i in value_at(opt))
    key = (opt.option, opt.normalised, opt.keys, opt.values, at, judged, literal)
    found: tuple[FlagIssue, ...] = plan.cli.bounded(
        "flag:values", key, lambda: tuple(
            replace(i, index=i.index - opt.index)
            for i in _value_issues(opt, reg, plan, literal)),
        limit=VALUES_KEPT)
    return tuple(replace(i, index=i.index + opt.index) for i in found) if found else ()


def _value_issues(opt: ParsedOption, reg: CliRegistry, plan: VersionPlan,
                  literal: tuple[bool, ...] = ()) -> Iterator[FlagIssue]:
    """The issues of ``opt``'s values (``literal``: per value, whether a ``$`` in it
    reaches vLLM as written, so it is judged as text)."""
    spec = opt.spec
    if spec is None or not opt.values or opt.keys:
        return
    name = opt.option or opt.normalised
    if parsed_args.json_valued(spec) or name in reg.json_flags or custom_json(spec):
        for at, value in zip(value_at(opt), opt.values, strict=True):
            ok, why = json_shape_ok(name, value, takes_string(spec))
            if not ok:
                yield FlagIssue("json", at, f"value of `{name}` {why}: `{value[:80]}`",
                                "write a JSON object in single quotes, e.g. '{\"key\": 1}'",
                                on_value=True)
        return
    yield from type_issues(opt, reg, plan, literal)
    allowed = allowed_values(reg, spec)
    if spec.takes_value is False:
        return
    for j, (at, value) in enumerate(zip(value_at(opt), opt.values, strict=True)):
        if (allowed is not None and value in allowed) or (
                value.startswith("$") and literal[j:j + 1] != (True,)):
            continue
        first = None if allowed is None else first_version(plan.cli, f"choices:{name}",
                                                            value, plan.family)
        if (allowed is None or (first is not None and Version(first) > Version(reg.version))) \
                and (typo := _dropped_choice_typo(name, value, plan, at)) is not None:
            yield typo  # a release that dropped the list takes any string: still a typo
            continue
        if allowed is None:
            continue
        near = first is None and bool(close_matches(value, tuple(sorted(allowed)), n=1,
                                                    cutoff=TYPO_CUTOFF))
        if first is None and plan.launch_day and (plan.channel is None or near):
            continue  # a value no release accepts yet: unverifiable on launch day
        if first is None and plan.unreleased and not near:
            yield FlagIssue("unreleased_only", at, f"`{name} {value}`: `{value}` is not a "
                            f"value any vendored {plan.product} release accepts; "
                            + unverifiable_by(plan, "a nightly, source or launch-image "
                                               "install"),
                            _choice_hint(value, allowed, opt, reg), on_value=True)
            continue
        if first is not None and Version(first) > Version(reg.version):
            yield FlagIssue("choice", at, f"`{name} {value}`: `{value}` is accepted only "
                            f"from {plan.product} {first}, but {plan.short_of()}",
                            plan.raise_to(required_vllm(plan.cli, first, plan.family)),
                            on_value=True, floor=True)
        else:
            yield FlagIssue("choice", at, f"`{name} {value}`: `{value}` is not a value "
                            f"{plan.product} {reg.version} accepts",
                            _choice_hint(value, allowed, opt, reg), on_value=True)


def _dropped_choice_typo(name: str, value: str, plan: VersionPlan, at: int) -> FlagIssue | None:
    """A ``choice`` issue for ``value`` when it is in no vendored release's choices of
    ``name`` and a near-miss of one (:func:`~validator.analysis.option_hints.choice_typo`);
    never on launch day (a new value cannot be told from a typo there)."""
    typo = None if plan.launch_day else choice_typo(plan.cli, name, value, plan.family)
    if typo is None:
        return None
    return FlagIssue("choice", at, f"`{name} {value}`: `{value}` is in no vendored "
                     f"{plan.product} release's choices of `{name}`: a typo of `{typo}`",
                     f"did you mean `{typo}`?", on_value=True)


#: How many accepted values a ``choice`` hint lists.
CHOICES_SHOWN = 12


def _choice_hint(value: str, allowed: frozenset[str], opt: ParsedOption,
                 reg: CliRegistry) -> str:
    """The nearest accepted value, or the first :data:`CHOICES_SHOWN` (saying how many
    more there are); for a parser a plugin file can register, also the plugin option of
    the release (a custom name needs it in the same command)."""
    names = sorted(allowed)
    more = len(names) - CHOICES_SHOWN
    hint = nearest_hint(value, names) or (f"one of: {', '.join(names[:CHOICES_SHOWN])}"
                                           + (f" (and {more} more)" if more > 0 else ""))
    plugin = PLUGIN_OPTIONS.get(opt.dest)
    flag = "--" + plugin.replace("_", "-") if plugin is not None else None
    if flag is not None and reg.lookup(flag) is not None:
        hint += (f"; a custom parser needs `{flag} <file>` (the file that registers "
                 f"`{value}`) in the same command")
    return hint


def _speculative_issues(parsed: ParsedArgs) -> Iterator[FlagIssue]:
    value, sources = parsed.json_value("speculative_config")
    if not value or "num_speculative_tokens" not in value or not sources:
        return
    n = value["num_speculative_tokens"]
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        yield FlagIssue("spec_tokens", sources[-1].index, f"num_speculative_tokens is {n!r}; "
                        "it must be a positive integer", "e.g. \"num_speculative_tokens\": 1",
                        on_value=True)


def _newest_issues(tokens: Sequence[str], parsed: ParsedArgs, plan: VersionPlan,
                   allow_positionals: int,
                   expansions: frozenset[int]) -> Iterator[FlagIssue]:
    top, low = plan.newest, plan.minimum
    if top is None or low is None or top.version == low.version:
        return
    if top.version in plan.checked:
        return  # the newest is inside the install range: _range_issues judges it
    later = parse_at(plan.cli, tokens, top, allow_positionals, expansions)
    by_index = {o.index: o for o in later.options}
    for opt in parsed.options:
        if opt.spec is None:
            continue
        new = by_index.get(opt.index)
        name = opt.option or opt.normalised
        if new is None or new.spec is None:
            hint = replacement_hint(plan.cli, name, top.version, plan.family)
            pre = pre_release_removal(plan.cli, "option", name, low.version, plan.family)
            if pre is not None:
                yield FlagIssue("removed", opt.index, f"`{opt.written}`: `{name}` is absent "
                                f"from {plan.product} {_pre_releases(*pre)}",
                                hint or "nothing to change for stable releases; before the "
                                "next one, check whether the flag is renamed or dropped")
                continue
            gone = first_without(plan.cli, "option", name, low.version, plan.family)
            yield FlagIssue("removed", opt.index, f"`{opt.written}`: `{name}` was removed in "
                            f"{plan.product} {gone or top.version} (absent from "
                            f"{top.version})", hint)
            continue
        old_allowed = allowed_values(low, opt.spec)
        new_allowed = allowed_values(top, new.spec)
        if old_allowed is None or new_allowed is None or opt.keys:
            continue
        for value in opt.values:
            if value in old_allowed and value not in new_allowed:
                pre = pre_release_removal(plan.cli, f"choices:{name}", value, low.version,
                                          plan.family)
                gone = first_without(plan.cli, f"choices:{name}", value, low.version,
                                     plan.family)
                what = (f"is not accepted by {plan.product} {_pre_releases(*pre)}"
                        if pre is not None else
                        f"is no longer accepted from {plan.product} {gone or top.version}")
                yield FlagIssue("removed", opt.index, f"`{name} {value}`: `{value}` {what}",
                                nearest_hint(value, sorted(new_allowed)), on_value=True)


def _pre_releases(lacking: list[str], last_stable: str | None) -> str:
    """``0.32.0rc1, a pre-release (not yet removed in a stable release; stable 0.30.0 has
    it)``, for a removal that only pre-releases newer than the last stable release having
    the flag show."""
    span = lacking[0] if len(lacking) == 1 else f"{lacking[0]}–{lacking[-1]}"
    kind = "a pre-release" if len(lacking) == 1 else "pre-releases"
    has_it = f"; stable {last_stable} has it" if last_stable is not None else ""
    return f"{span}, {kind} (not yet removed in a stable release{has_it})"
