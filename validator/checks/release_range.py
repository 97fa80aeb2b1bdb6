"""Every release of an install range: the tokens a minimum accepts, judged again at each
vendored release up to the newest an install path pulls (``range_rejected`` issues).

Parses are memoised per (argument list, release), and releases that treat every option
token of a list alike (:func:`_signature`) are judged once. Releases that only differ in
the value rules of the options (choices, JSON) but read the tokens alike
(:func:`_structure`: same resolved option strings, arities and parser settings) share one
parse, re-bound to each release's option entries, so the whole range costs little more
than the minimum.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from packaging.version import Version

from validator.checks.cli_data import active
from validator.checks.cli_plan import (
    VLLM,
    VersionPlan,
    all_options,
    allowed_values,
    nearest_hint,
    registry,
    required_vllm,
)
from validator.checks.flag_values import (
    FlagIssue,
    custom_json,
    json_shape_ok,
    plugged,
    takes_string,
)
from validator.vllm_cli import argv
from validator.vllm_cli.argv import OptionSpec, ParsedArgs, ParsedOption, Problem

if TYPE_CHECKING:
    from validator.vllm_cli.registry import CliRegistry


def parse_at(tokens: Sequence[str], reg: CliRegistry, allow_positionals: int = 0) -> ParsedArgs:
    """:func:`validator.vllm_cli.argv.parse_args` of ``tokens`` at ``reg``, memoised per
    (tokens, release file) on the run's data source
    (:func:`validator.checks.cli_data.active`): many configurations and revisions share
    one argument list."""
    family = reg.plugin.name if reg.plugin is not None else VLLM
    key = ("parse_at", tuple(tokens), reg.version, family, reg.sha256, allow_positionals)
    return active().memoised(key, lambda: argv.parse_args(
        tokens, reg, allow_positionals=allow_positionals))


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


def _rejection(opt: ParsedOption, new: tuple[tuple[str, ...], OptionSpec | None] | None,
               reg: CliRegistry, ambiguous: dict[int, str]) -> tuple[str, str] | None:
    """``(what, why)`` release ``reg`` rejects of ``opt`` (``new``: the values and the
    entry of the option at the same token in that release's parse), or ``None`` when it
    accepts it."""
    name = opt.option or opt.normalised
    if opt.index in ambiguous:
        return f"`{opt.written}`", f"an ambiguous abbreviation there: {ambiguous[opt.index]}"
    values, spec = new if new is not None else ((), None)
    if spec is None:
        return f"`{name}`", "not an option there"
    if opt.keys or not values:
        return None
    if argv.json_valued(spec) or name in reg.json_flags or custom_json(spec):
        for value in values:
            ok, why = json_shape_ok(name, value, takes_string(spec))
            if not ok:
                return f"the value `{value[:60]}` of `{name}`", f"it {why}"
        return None
    allowed = allowed_values(reg, spec)
    if allowed is None or spec.takes_value is False:
        return None
    bad = [v for v in values if v not in allowed and not v.startswith("$")]
    return (f"`{name} {bad[0]}`", f"`{bad[0]}` is not a value it accepts") if bad else None


def _signature(reg: CliRegistry, keys: Sequence[str], names: Sequence[str]) -> tuple[Any, ...]:
    """What decides what ``reg`` rejects of a list with option tokens ``keys`` whose
    options are called ``names`` at the minimum: its :func:`_structure` and, per key, the
    value rules of the option it resolves to (choices, JSON), and which of ``names`` it
    reads as JSON."""
    return (_structure(reg, keys), tuple(_key_facts(reg, key)[1] for key in keys),
            tuple(name in reg.json_flags for name in names))


def _structure(reg: CliRegistry, keys: Sequence[str]) -> tuple[Any, ...]:
    """What decides how :func:`validator.vllm_cli.argv.parse_args` splits a list with
    option tokens ``keys`` at ``reg``, up to the option entries it binds: its parser
    settings and, per key, the option string it resolves to, the abbreviation candidates
    and the value arity. Two releases with the same structure parse a list into the same
    options and values; each option's entry is then ``reg.lookup`` of its option string."""
    return (reg.normalisation, reg.allow_abbrev, reg.dotted_keys, reg.short_o,
            *(_key_facts(reg, key)[0] for key in keys))


def _key_facts(reg: CliRegistry, key: str) -> tuple[Any, Any]:
    """``(structure, value rules)`` of option token ``key`` at ``reg``, computed once per
    release file and key: keyed on the registry file's SHA-256 (what its facts are made
    of), so two loads of one file share it and no two different files do."""
    hit = _KEY_FACTS.get((reg.sha256, key))
    if hit is None:
        if len(_KEY_FACTS) > 262144:
            _KEY_FACTS.clear()
        hit = _KEY_FACTS[reg.sha256, key] = _key_structure(reg, key)
    return hit


_KEY_FACTS: dict[tuple[str, str], tuple[Any, Any]] = {}
"""A pure-function cache: the facts of an option token in a release file's content."""


def _key_structure(reg: CliRegistry, key: str) -> tuple[Any, Any]:
    # the structure mirrors the branches of argv._parse_one / argv._parse_dotted
    if (key.startswith("-O") and not key.startswith("--") and key != "-O"
            and key[2:3] != "." and reg.short_o):
        option: str | None = "-O" if reg.lookup("-O") is not None else None
        structure: Any = (option, "-O")
    else:
        norm = reg.normalise(key)
        head, dot, _ = norm.partition(".")
        option, spec, candidates = argv._resolve(reg, head if dot else norm)
        arity = None if spec is None else argv._arity(spec)
        json_valued = bool(dot) and spec is not None and argv.json_valued(spec)
        structure = (option, norm, tuple(candidates), arity, json_valued)
    spec = reg.lookup(option) if option is not None else None
    if spec is None:
        return structure, None
    allowed = allowed_values(reg, spec)
    return structure, (spec.strings, spec.takes_value, spec.nargs, spec.is_json,
                       spec.json_takes_string, spec.parses_json,
                       None if allowed is None else tuple(sorted(allowed)),
                       spec.dest in reg.json_flags or spec.long in reg.json_flags)


def _split(parsed: ParsedArgs) -> tuple[dict[int, ParsedOption], dict[int, str]]:
    """The options of ``parsed`` by token index, and its ambiguous abbreviations."""
    return ({o.index: o for o in parsed.options},
            {p.index: p.message for p in parsed.problems if p.kind is Problem.AMBIGUOUS})


def _bound(option: ParsedOption | None,
           reg: CliRegistry) -> tuple[tuple[str, ...], OptionSpec | None] | None:
    """The values of ``option`` (from a parse at a release of the same :func:`_structure`
    as ``reg``) and ``reg``'s entry for its option string."""
    if option is None:
        return None
    return option.values, reg.lookup(option.option) if option.option is not None else None


def range_issues(tokens: Sequence[str], parsed: ParsedArgs, plan: VersionPlan,
                  allow_positionals: int) -> Iterator[FlagIssue]:
    """Tokens accepted at the minimum but rejected by a release of the install range
    (memoised per argument list and range: configurations and recipes share lists)."""
    if not plan.checked or plan.minimum is None:
        return
    yield from _range_issues_of(tuple(tokens), allow_positionals, plan, parsed)


def _range_issues_of(tokens: tuple[str, ...], allow_positionals: int, plan: VersionPlan,
                     parsed: ParsedArgs | None = None) -> tuple[FlagIssue, ...]:
    assert plan.minimum is not None
    key = (tokens, allow_positionals, plan.minimum.version, plan.family, plan.checked,
           plan.range_label)
    found = _RANGE_MEMO.get(key)
    if found is None:
        if len(_RANGE_MEMO) > 65536:
            _RANGE_MEMO.clear()
        found = _RANGE_MEMO[key] = tuple(_compute_range_issues(tokens, plan, allow_positionals,
                                                               parsed))
    return found


_RANGE_MEMO: dict[tuple[Any, ...], tuple[FlagIssue, ...]] = {}


def _compute_range_issues(tokens: tuple[str, ...], plan: VersionPlan, allow_positionals: int,
                          parsed: ParsedArgs | None = None) -> Iterator[FlagIssue]:
    """``parsed``: the parse of ``tokens`` at ``plan.minimum`` when the caller has it."""
    low = plan.minimum
    assert low is not None
    if parsed is None or parsed.tokens != tokens:
        parsed = parse_at(tokens, low, allow_positionals)
    no_ambiguity: dict[int, str] = {}
    # judged here: what the minimum accepts (its own rejections are the other issues), and
    # not the values of a parser that a parser plugin file registers
    by_plugin = plugged(parsed)
    accepted = [o for o in parsed.options if o.spec is not None and o.dest not in by_plugin
                and _rejection(o, (o.values, o.spec), low, no_ambiguity) is None]
    if not accepted:
        return
    rejected: dict[int, dict[tuple[str, str], list[str]]] = {}
    keys = [t.split("=", 1)[0] for t in tokens if t.startswith("-")]
    names = [o.option or o.normalised for o in accepted]
    seen: dict[tuple[Any, ...], list[tuple[int, tuple[str, str]]]] = {}
    parses: dict[tuple[Any, ...], tuple[dict[int, ParsedOption], dict[int, str]]] = {}
    for version in plan.checked:
        reg = registry(version, plan.family)
        # releases that treat every option token alike reject the same: judge once
        sig = _signature(reg, keys, names)
        same = seen.get(sig)
        if same is None:
            # releases that read the tokens alike split them alike: parse once
            structure = sig[0]
            split = parses.get(structure)
            if split is None:
                split = parses[structure] = _split(parse_at(tokens, reg, allow_positionals))
            by_index, ambiguous = split
            same = seen[sig] = [(opt.index, r) for opt in accepted
                                if (r := _rejection(opt, _bound(by_index.get(opt.index), reg),
                                                    reg, ambiguous)) is not None]
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
