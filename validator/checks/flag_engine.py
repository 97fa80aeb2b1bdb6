"""The engine of the ``FLAG`` and ``GUIDE`` families: one list of ``vllm serve``
arguments against one :class:`~validator.checks.cli_plan.VersionPlan`.

:func:`check_tokens` parses the tokens with the model of vLLM's parser
(:mod:`validator.vllm_cli.argv`) at the plan's minimum registry and returns every
:class:`FlagIssue` (unknown, newer, removed, bad value, JSON, duplicates, spelling);
:func:`env_issue` judges one ``VLLM_*`` variable. The rules that turn issues into
findings live in :mod:`validator.checks.flag` (structured args) and
:mod:`validator.checks.guide` (guide commands).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from packaging.version import Version

from validator.checks.arg_layers import ASCEND
from validator.checks.cli_plan import (
    VLLM,
    VersionPlan,
    all_options,
    allowed_values,
    first_version,
    first_without,
    last_version,
    nearest_hint,
    registry,
    required_vllm,
)
from validator.checks.versions import MinVersion, effective_min_version
from validator.vllm_cli import argv
from validator.vllm_cli.argv import ParsedArgs, ParsedOption, Problem

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument
    from validator.vllm_cli.registry import CliRegistry

#: Similarity (:func:`difflib.get_close_matches`) above which an unknown flag is taken for
#: a typo of a released one even where the recipe installs unreleased code.
TYPO_CUTOFF = 0.9

#: A parser plugin file registers its own parser names: their values are not checked.
_PLUGIN_OPTIONS = {"tool_call_parser": "tool_parser_plugin",
                   "reasoning_parser": "reasoning_parser_plugin"}


def recipe_minimum(doc: LoadedDocument, ctx: Context, variant: str | None = None,
                   strategy: str | None = None) -> MinVersion | None:
    """The effective minimum vLLM of (part of) a recipe:
    :func:`validator.checks.versions.effective_min_version` (the highest of the model,
    variant, strategy and kv-store minimums; ``None`` when none parses)."""
    return effective_min_version(doc, ctx, variant, strategy=strategy)


# --------------------------------------------------------------------------- engine


@dataclass(frozen=True)
class FlagIssue:
    """One problem in one argument list.

    ``code`` is one of ``unknown``, ``newer``, ``removed``, ``missing_value``,
    ``switch_value``, ``choice``, ``json``, ``spec_tokens``, ``dotted``, ``duplicate``,
    ``underscore``, ``abbreviation``, ``config_key_ignored``, ``config_key_rejected``,
    ``range_rejected`` (accepted at the minimum, rejected by a release of the install
    range), ``unreleased_only`` (in no vendored release; the recipe installs unreleased
    code);
    ``index`` the token it is about.
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
    plugged = _plugged(parsed)
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
    issues.extend(_range_issues(tokens, parsed, plan, allow_positionals))
    issues.extend(_newest_issues(tokens, parsed, plan, allow_positionals))
    issues.extend(additional_config_issues(parsed, plan))
    issues.sort(key=lambda x: x.index)
    return parsed, issues


def _plugged(parsed: ParsedArgs) -> set[str]:
    """Parser options whose names a parser plugin file of the same list registers."""
    return {dest for dest, plugin in _PLUGIN_OPTIONS.items()
            if any(o.dest == plugin or ("parser-plugin" in o.normalised
                                        and dest.split("_")[0] in o.normalised)
                   for o in parsed.options)}


def _unknown_issue(p: argv.ArgProblem, plan: VersionPlan) -> FlagIssue:
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
    if plan.unreleased and not difflib.get_close_matches(
            name, all_options(top.version, fam), n=1, cutoff=TYPO_CUTOFF):
        return FlagIssue("unreleased_only", p.index, f"`{opt.written}` is not an option of any "
                         f"vendored {prod} release up to {top.version}; the recipe installs "
                         "unreleased code (a nightly or source install), which may have it",
                         nearest_hint(name, all_options(top.version, fam)))
    return FlagIssue("unknown", p.index, f"`{opt.written}` is not an option of any vendored "
                     f"{prod} release up to {top.version}",
                     nearest_hint(name, all_options(top.version, fam)))


_SHELL_VAR = re.compile(r"\$(?:\{\w+\}|\w+)")


def _json_shape_ok(option: str, value: str,
                   takes_string: bool | None = None) -> tuple[bool, str]:
    """Whether ``value`` is acceptable for a JSON-valued option (see FLAG007).

    ``takes_string`` is the release's own answer (``CliOption.json_takes_string``): a
    plain string is accepted only where the option's type is a dict-or-string union;
    ``None`` (not recorded) falls back to the option's name."""
    text = value.strip()
    if text in ("", "None") or text.startswith("$"):
        return True, ""
    if "$" in text:  # shell variables expand before vLLM sees the value
        text = _SHELL_VAR.sub("0", text)
    try:
        parsed = argv.parse_json(text)
    except json.JSONDecodeError as exc:
        looks_json = text.startswith(("{", "["))
        if takes_string is False and not looks_json:
            return False, ("is not JSON, and this release parses the value with a JSON "
                           "type that takes no plain string")
        if looks_json or (takes_string is None
                          and option.endswith(("-config", "-kwargs", "overrides"))):
            return False, f"is not valid JSON ({exc.msg} at column {exc.colno})"
        return True, ""  # dict-or-str options (union_dict_and_str) take plain strings
    if option.endswith("-config") and not isinstance(parsed, dict):
        if option == "--compilation-config" and isinstance(parsed, int):
            return True, ""  # an optimisation level (-O3 shorthand)
        return False, f"is JSON {type(parsed).__name__}, not a JSON object"
    return True, ""


def _value_at(opt: ParsedOption) -> tuple[int, ...]:
    """The token index of each value of ``opt`` (a finding about a value points at it)."""
    if len(opt.value_indexes) == len(opt.values):
        return opt.value_indexes
    return (opt.index,) * len(opt.values)


def _custom_json(spec: object) -> bool:
    """A custom type of an old release that decodes JSON (not ``is_json``)."""
    return getattr(spec, "parses_json", None) is True


def _takes_string(spec: object) -> bool | None:
    """Whether the release's type of a JSON option takes a plain string (``None``: not
    recorded); a custom JSON type takes none."""
    if _custom_json(spec) and not argv.json_valued(spec):  # type: ignore[arg-type]
        return False
    found = getattr(spec, "json_takes_string", None)
    return found if isinstance(found, bool) else None


def _value_issues(opt: ParsedOption, reg: CliRegistry, plan: VersionPlan) -> Iterator[FlagIssue]:
    spec = opt.spec
    if spec is None or not opt.values or opt.keys:
        return
    name = opt.option or opt.normalised
    if argv.json_valued(spec) or name in reg.json_flags or _custom_json(spec):
        for at, value in zip(_value_at(opt), opt.values, strict=True):
            ok, why = _json_shape_ok(name, value, _takes_string(spec))
            if not ok:
                yield FlagIssue("json", at, f"value of `{name}` {why}: `{value[:80]}`",
                                "write a JSON object in single quotes, e.g. '{\"key\": 1}'")
        return
    allowed = allowed_values(reg, spec)
    if allowed is None or spec.takes_value is False:
        return
    for at, value in zip(_value_at(opt), opt.values, strict=True):
        if value in allowed or value.startswith("$"):
            continue
        first = first_version(f"choices:{name}", value, plan.family)
        if first is not None and Version(first) > Version(reg.version):
            yield FlagIssue("choice", at, f"`{name} {value}`: `{value}` is accepted only "
                            f"from {plan.product} {first}, but the recipe's minimum is "
                            f"{plan.label}",
                            f"raise min_vllm_version to {required_vllm(first, plan.family)}")
        else:
            yield FlagIssue("choice", at, f"`{name} {value}`: `{value}` is not a value "
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
    if top.version in plan.checked:
        return  # the newest is inside the install range: _range_issues judges it
    later = parse_at(tokens, top, allow_positionals)
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




@lru_cache(maxsize=65536)
def _parse_cached(tokens: tuple[str, ...], version: str, family: str,
                  allow_positionals: int) -> ParsedArgs:
    return argv.parse_args(tokens, registry(version, family),
                           allow_positionals=allow_positionals)


def parse_at(tokens: Sequence[str], reg: CliRegistry, allow_positionals: int = 0) -> ParsedArgs:
    """:func:`validator.vllm_cli.argv.parse_args` of ``tokens`` at ``reg``, memoised per
    (tokens, release): many configurations and revisions share one argument list."""
    family = reg.plugin.name if reg.plugin is not None else VLLM
    return _parse_cached(tuple(tokens), reg.version, family, allow_positionals)


def release_runs(found: Sequence[str], checked: Sequence[str]) -> str:
    """``"0.17.0–0.32.0"`` (runs of consecutive releases of ``checked``), comma-joined."""
    runs: list[list[str]] = []
    last = -2
    for i, v in enumerate(checked):
        if v in found:
            if i == last + 1:
                runs[-1].append(v)
            else:
                runs.append([v])
            last = i
    return ", ".join(r[0] if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)


def _rejection(opt: ParsedOption, new: ParsedOption | None, reg: CliRegistry,
               ambiguous: dict[int, str]) -> tuple[str, str] | None:
    """``(what, why)`` release ``reg`` rejects of ``opt`` (``new``: the option at the same
    token in that release's parse), or ``None`` when it accepts it."""
    name = opt.option or opt.normalised
    if opt.index in ambiguous:
        return f"`{opt.written}`", f"an ambiguous abbreviation there: {ambiguous[opt.index]}"
    if new is None or new.spec is None:
        return f"`{name}`", "not an option there"
    if opt.keys or not new.values:
        return None
    spec = new.spec
    if argv.json_valued(spec) or name in reg.json_flags or _custom_json(spec):
        for value in new.values:
            ok, why = _json_shape_ok(name, value, _takes_string(spec))
            if not ok:
                return f"the value `{value[:60]}` of `{name}`", f"it {why}"
        return None
    allowed = allowed_values(reg, spec)
    if allowed is None or spec.takes_value is False:
        return None
    bad = [v for v in new.values if v not in allowed and not v.startswith("$")]
    return (f"`{name} {bad[0]}`", f"`{bad[0]}` is not a value it accepts") if bad else None


def _signature(reg: CliRegistry, keys: Sequence[str]) -> tuple[Any, ...]:
    """What decides how ``reg`` parses option tokens ``keys``: its parser settings and,
    per key, the option it selects (with its value rules) or the long options it is a
    prefix of."""
    out: list[Any] = [reg.normalisation, reg.allow_abbrev, reg.dotted_keys, reg.short_o]
    for key in keys:
        spec = reg.lookup(key)
        if spec is None:
            norm = reg.normalise(key)
            out.append(tuple(o for o in reg.long_options if o.startswith(norm))
                       if reg.allow_abbrev else None)
            continue
        allowed = allowed_values(reg, spec)
        out.append((spec.strings, spec.takes_value, spec.nargs, spec.is_json,
                    spec.json_takes_string, spec.parses_json,
                    None if allowed is None else tuple(sorted(allowed)),
                    spec.dest in reg.json_flags or spec.long in reg.json_flags))
    return tuple(out)


def _range_issues(tokens: Sequence[str], parsed: ParsedArgs, plan: VersionPlan,
                  allow_positionals: int) -> Iterator[FlagIssue]:
    """Tokens accepted at the minimum but rejected by a release of the install range
    (memoised per argument list and range: configurations and recipes share lists)."""
    if not plan.checked or plan.minimum is None:
        return
    yield from _range_issues_of(tuple(tokens), allow_positionals, plan)


def _range_issues_of(tokens: tuple[str, ...], allow_positionals: int,
                     plan: VersionPlan) -> tuple[FlagIssue, ...]:
    assert plan.minimum is not None
    key = (tokens, allow_positionals, plan.minimum.version, plan.family, plan.checked,
           plan.range_label)
    found = _RANGE_MEMO.get(key)
    if found is None:
        if len(_RANGE_MEMO) > 65536:
            _RANGE_MEMO.clear()
        found = _RANGE_MEMO[key] = tuple(_compute_range_issues(tokens, plan, allow_positionals))
    return found


_RANGE_MEMO: dict[tuple[Any, ...], tuple[FlagIssue, ...]] = {}


def _compute_range_issues(tokens: tuple[str, ...], plan: VersionPlan,
                          allow_positionals: int) -> Iterator[FlagIssue]:
    low = plan.minimum
    assert low is not None
    parsed = parse_at(tokens, low, allow_positionals)
    no_ambiguity: dict[int, str] = {}
    # judged here: what the minimum accepts (its own rejections are the other issues), and
    # not the values of a parser that a parser plugin file registers
    plugged = _plugged(parsed)
    accepted = [o for o in parsed.options if o.spec is not None and o.dest not in plugged
                and _rejection(o, o, low, no_ambiguity) is None]
    if not accepted:
        return
    rejected: dict[int, dict[tuple[str, str], list[str]]] = {}
    keys = [t.split("=", 1)[0] for t in tokens if t.startswith("-")]
    seen: dict[tuple[Any, ...], list[tuple[int, tuple[str, str]]]] = {}
    for version in plan.checked:
        reg = registry(version, plan.family)
        # releases that treat every option token alike reject the same: parse once
        sig = _signature(reg, keys)
        same = seen.get(sig)
        if same is None:
            later = parse_at(tokens, reg, allow_positionals)
            by_index = {o.index: o for o in later.options}
            ambiguous = {p.index: p.message for p in later.problems
                         if p.kind is Problem.AMBIGUOUS}
            same = seen[sig] = [(opt.index, r) for opt in accepted
                                if (r := _rejection(opt, by_index.get(opt.index), reg,
                                                    ambiguous)) is not None]
        for index, rejection in same:
            rejected.setdefault(index, {}).setdefault(rejection, []).append(version)
    for opt in accepted:
        for (what, why), found in rejected.get(opt.index, {}).items():
            n = len(found)
            runs = release_runs(found, plan.checked)
            again = [v for v in plan.checked if Version(v) > Version(found[-1])]
            hint = (f"accepted again from {plan.product} {again[0]}: raise min_vllm_version "
                    f"to {required_vllm(again[0], plan.family)}, or drop the flag" if again
                    else None)
            if hint is None and why == "not an option there":
                hint = nearest_hint(opt.option or opt.normalised,
                                    all_options(found[0], plan.family))
            if hint is None and "ambiguous" in why:
                hint = "write the option in full"
            yield FlagIssue("range_rejected", opt.index,
                            f"{what} is rejected by {plan.product} {runs}, {n} release"
                            f"{'s' if n != 1 else ''} ({why}), inside the install range "
                            f"{plan.range_label} the recipe claims",
                            hint or "drop the flag, or pin an install path below the first "
                            "release that rejects it")


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


def env_issue(name: str, plan: VersionPlan) -> tuple[str, str | None] | None:
    """Why ``VLLM_*`` variable ``name`` is not read at ``plan`` (or was removed since),
    with a hint; ``None`` when it is fine or cannot be judged."""
    reg, top = plan.minimum, plan.newest
    if reg is None or not reg.env_vars or not name.startswith("VLLM_"):
        return None
    fam, prod = plan.family, plan.product
    if reg.reads_env(name):
        if top is not None and top.env_vars and not top.reads_env(name):
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
    known = sorted(v for v in top.env_vars if not v.endswith("*")) if top is not None else []
    return (f"`{name}` is not an environment variable any vendored {prod} release reads",
            nearest_hint(name, known))




def additional_config_issues(parsed: ParsedArgs, plan: VersionPlan) -> Iterator[FlagIssue]:
    """Top-level ``--additional-config`` keys the vLLM-Ascend release of ``plan`` does not
    read: ``config_key_rejected`` where its typed config forbids unknown keys (startup
    fails), else ``config_key_ignored``. Nothing for other CLIs (vLLM-Omni's reads are
    per model, not one platform-wide set). The issue is on the value token (the option
    token for a dotted key)."""
    reg = plan.minimum
    info = reg.plugin if reg is not None else None
    if plan.family != ASCEND or reg is None or info is None or not info.additional_config_keys:
        return
    code = "config_key_rejected" if info.additional_config_strict else "config_key_ignored"
    for opt in parsed.find("additional_config"):
        if opt.keys:
            keys, at = [opt.keys[0]], opt.index
        else:
            try:
                value = argv.parse_json(opt.value or "")
            except ValueError:
                continue  # FLAG007 / GUIDE reports it
            keys = list(value) if isinstance(value, dict) else []
            at = opt.value_indexes[-1] if opt.value_indexes else opt.index
        for key in keys:
            if key in info.additional_config_keys:
                continue
            first = first_version("additional_config", key, plan.family)
            if first is not None and Version(first) > Version(reg.version):
                why = f"is read only from {plan.product} {first}"
            elif first is not None:
                why = (f"is not read by {plan.product} {reg.version} (read by {first} to "
                       f"{last_version('additional_config', key, plan.family)})")
            else:
                why = f"is not read by any vendored {plan.product} release"
            if info.additional_config_strict:
                why += f"; {plan.product} {reg.version} refuses unknown keys and does not start"
            yield FlagIssue(code, at, f"`--additional-config` key `{key}` {why}",
                            nearest_hint(key, sorted(info.additional_config_keys)))
