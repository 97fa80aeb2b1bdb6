"""Every release of an install range: the tokens a minimum accepts, judged again at each
vendored release up to the newest an install path pulls (``range_rejected`` issues).

Parses are memoised per (argument list, release). Releases that read every option token
of a list alike (:func:`_structure_runs`: same resolved option strings, abbreviation
candidates, arities and parser settings, computed once per token and range) share one
parse, re-bound to each release's option entries. What each release rejects of one
option token, bound with its values, is judged once per run and range
(:func:`_verdicts`), whichever list and recipe it comes from, so the whole range costs
about one parse per group and one look-up per option.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from packaging.version import Version

from validator.analysis.cli_plan import VLLM, VersionPlan, allowed_values, registry, required_vllm
from validator.analysis.flag_values import (
    FlagIssue,
    custom_json,
    json_shape_ok,
    plugged,
    takes_string,
)
from validator.analysis.option_hints import all_options, nearest_hint
from validator.vllm_cli import argv, parsed_args
from validator.vllm_cli.parsed_args import OptionSpec, ParsedArgs, ParsedOption, Problem
from validator.vllm_cli.value_bounds import bound_of

NOT_AN_OPTION = "not an option there"
"""Why a release of the range rejects an option it does not have at all (in the
``range_rejected`` message, in parentheses)."""

LISTS_KEPT = 128
"""How many argument lists a memo of whole lists (parses, range issues, FLAG's
``check_tokens``) keeps on the run's data source. Its reuse is within one recipe's rules
and between recipes that render the same lists, both recent: bigger memos held ~10 MB of
a corpus run's peak RSS for no CPU (``check models/``, same minute, 2048 vs 128: 33.96 s
vs 33.79 s user CPU, 95.8 MB vs 85.7 MB peak RSS, JSON report byte-identical)."""
TOKENS_KEPT = 8 * LISTS_KEPT
"""How many (option token, range) classes :func:`_key_run` keeps."""
VERDICTS_KEPT = 32 * LISTS_KEPT
"""How many (bound option token, range) verdicts :func:`_verdicts` keeps."""

if TYPE_CHECKING:
    from validator.vllm_cli.data_source import CliRegistries
    from validator.vllm_cli.registry import CliRegistry


def parse_at(cli: CliRegistries, tokens: Sequence[str], reg: CliRegistry,
             allow_positionals: int = 0,
             expansions: frozenset[int] = frozenset()) -> ParsedArgs:
    """:func:`validator.vllm_cli.argv.parse_args` of ``tokens`` at ``reg`` (``expansions``:
    the tokens a shell expands, see there), memoised per (tokens, release file) on the
    data source ``cli``: many configurations and revisions share one argument list."""
    family = reg.plugin.name if reg.plugin is not None else VLLM
    key = (tuple(tokens), reg.version, family, reg.sha256, allow_positionals, expansions)
    return cli.bounded("range:parse_at", key, lambda: argv.parse_args(
        tokens, reg, allow_positionals=allow_positionals, expansions=expansions),
        limit=LISTS_KEPT)


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
        return f"`{name}`", NOT_AN_OPTION
    if opt.keys or not values:
        return None
    if parsed_args.json_valued(spec) or name in reg.json_flags or custom_json(spec):
        for value in values:
            ok, why = json_shape_ok(name, value, takes_string(spec))
            if not ok:
                return f"the value `{value[:60]}` of `{name}`", f"it {why}"
        return None
    allowed = allowed_values(reg, spec)
    if allowed is None or spec.takes_value is False:
        return _out_of_bound(name, values, spec, reg)
    bad = [v for v in values if v not in allowed and not v.startswith("$")]
    return (f"`{name} {bad[0]}`", f"`{bad[0]}` is not a value it accepts") if bad else None


def _out_of_bound(name: str, values: tuple[str, ...], spec: OptionSpec,
                  reg: CliRegistry) -> tuple[str, str] | None:
    """``(what, why)`` for the first value of a vLLM option outside the numeric bound
    release ``reg`` states for it (:mod:`validator.vllm_cli.value_bounds`: the bound the
    minimum states is ``FLAG006``'s; a later release's, such as ``--gpu-memory-utilization``
    above 0 from 0.11.1, is judged here), else ``None``."""
    if reg.plugin is not None or not spec.strings:
        return None
    bound = bound_of(spec.strings[0], reg.version)
    if bound is None:
        return None
    for value in values:
        try:
            number = float(value)
        except (ValueError, OverflowError):
            continue
        if bound.refuses(number):
            return f"`{name} {value}`", f"it takes only a value {bound.described}"
    return None


def _structure_runs(keys: Sequence[str], plan: VersionPlan,
                    ranged: object) -> tuple[bool, list[tuple[int, ...]]]:
    """Releases of ``plan.checked`` that read option tokens ``keys`` alike, as groups of
    positions in ``plan.checked`` (each group ascending, the groups by their first
    position), first the group that reads them as ``plan.minimum`` does, if any (then
    ``True``): two releases of one group parse a list with these tokens into the same
    options and values (:func:`_key_run`). ``ranged``: :func:`_range_token` of the
    minimum and the range. Memoised per (distinct keys in order, range): lists that
    differ only in their values share it."""
    distinct = tuple(dict.fromkeys(keys))
    return plan.cli.bounded("range:structure", (distinct, ranged),
                            lambda: _grouped_runs(distinct, plan, ranged), limit=LISTS_KEPT)


def _grouped_runs(keys: Sequence[str], plan: VersionPlan,
                  ranged: object) -> tuple[bool, list[tuple[int, ...]]]:
    """:func:`_structure_runs` of distinct ``keys``."""
    runs = [_key_run(key, plan, ranged) for key in keys]
    signatures = zip(*runs, strict=True)
    at_minimum = next(signatures)
    groups: dict[tuple[int, ...], list[int]] = {at_minimum: []}
    for position, signature in enumerate(signatures):
        groups.setdefault(signature, []).append(position)
    like_minimum = groups.pop(at_minimum)
    return bool(like_minimum), [tuple(g) for g in ([like_minimum] if like_minimum else [])
                                + list(groups.values())]


def _key_run(key: str, plan: VersionPlan, ranged: object) -> tuple[int, ...]:
    """For ``plan.minimum`` and then each release of ``plan.checked``, a class number of
    how it reads option token ``key`` (:func:`_key_structure`; equal numbers: read
    alike), memoised on the run's data source per key and range: argument lists of every
    recipe share their tokens."""
    low = plan.minimum
    assert low is not None

    def compute() -> tuple[int, ...]:
        classes: dict[tuple[Any, ...], int] = {}
        regs = [low, *(registry(plan.cli, v, plan.family) for v in plan.checked)]
        return tuple(classes.setdefault(_key_structure(reg, key), len(classes))
                     for reg in regs)

    return plan.cli.bounded("range:key_run", (key, ranged), compute, limit=TOKENS_KEPT)


def _range_token(cli: CliRegistries, *what: Any) -> object:
    """One object per distinct ``what`` (a family, releases, ...) on the run's data
    source: memo keys hold it instead of a tuple of every release name, which would be
    hashed again at each look-up."""
    return cli.memoised(("range:token", *what), object)


def _key_structure(reg: CliRegistry, key: str) -> tuple[Any, ...]:
    """What decides how :func:`validator.vllm_cli.argv.parse_args` splits option token
    ``key`` at ``reg``, up to the option entry it binds: the parser settings, the option
    string it resolves to, the abbreviation candidates and the value arity. Two releases
    that read every token of a list alike parse it into the same options and values;
    each option's entry is then ``reg.lookup`` of its option string."""
    settings = (reg.normalisation, reg.allow_abbrev, reg.dotted_keys, reg.short_o)
    # mirrors the branches of argv._parse_one / argv._parse_dotted
    if (key.startswith("-O") and not key.startswith("--") and key != "-O"
            and key[2:3] != "." and reg.short_o):
        return (*settings, "-O" if reg.lookup("-O") is not None else None, "-O")
    norm = reg.normalise(key)
    head, dot, _ = norm.partition(".")
    option, spec, candidates = argv._resolve(reg, head if dot else norm)
    arity = None if spec is None else argv._arity(spec)
    json_valued = bool(dot) and spec is not None and parsed_args.json_valued(spec)
    return (*settings, option, norm, tuple(candidates), arity, json_valued)


def _accepted_at_minimum(opt: ParsedOption, plan: VersionPlan) -> bool:
    """Whether ``plan.minimum`` accepts ``opt`` bound as its own parse binds it
    (:func:`_rejection` finds nothing), judged once per run for each option token bound
    with its values and release: what :func:`_rejection` reads of ``opt`` is its option
    string (its entry is ``reg.lookup`` of that), spelling, whether it has dotted keys and
    its values; an option without ambiguity at its own release."""
    low = plan.minimum
    assert low is not None
    key = (opt.option, opt.normalised, opt.written, bool(opt.keys), opt.values, low.version,
           low.sha256)
    return plan.cli.bounded("range:accepted", key, lambda: _rejection(
        opt, (opt.values, opt.spec), low, {}) is None, limit=VERDICTS_KEPT)


def _split(parsed: ParsedArgs) -> tuple[dict[int, ParsedOption], dict[int, str]]:
    """The options of ``parsed`` by token index, and its ambiguous abbreviations."""
    return ({o.index: o for o in parsed.options},
            {p.index: p.message for p in parsed.problems if p.kind is Problem.AMBIGUOUS})


Verdicts = tuple[tuple[int, tuple[str, str]], ...]
"""``(position in plan.checked, (what, why))`` of every release that rejects a token."""


def _verdicts(opt: ParsedOption, bound: ParsedOption | None, ambiguity: str | None,
              plan: VersionPlan, ranged: object) -> Verdicts:
    """What each release of ``plan.checked`` rejects of option ``opt`` (accepted at the
    minimum) when a parse there binds it as ``bound`` (``None``: no option at its token)
    with ``ambiguity`` (the message of an ambiguous abbreviation there, or ``None``).

    Memoised on the run's data source per token judgement (what :func:`_rejection` reads
    of ``opt`` and ``bound``) and range: the same option with the same value recurs in
    the argument lists of many configurations and recipes. A caller uses the verdicts of
    the releases whose parse binds the token as ``bound``. ``ranged``:
    :func:`_range_token` of the family and the releases."""
    key = (opt.option, opt.normalised, opt.written, bool(opt.keys),
           None if bound is None else (bound.values, bound.option), ambiguity, ranged)

    def compute() -> Verdicts:
        ambiguous = {opt.index: ambiguity} if ambiguity is not None else {}
        out = []
        for position, version in enumerate(plan.checked):
            reg = registry(plan.cli, version, plan.family)
            found = _rejection(opt, _bound(bound, reg), reg, ambiguous)
            if found is not None:
                out.append((position, found))
        return tuple(out)

    return plan.cli.bounded("range:verdicts", key, compute, limit=VERDICTS_KEPT)


def _bound(option: ParsedOption | None,
           reg: CliRegistry) -> tuple[tuple[str, ...], OptionSpec | None] | None:
    """The values of ``option`` (from a parse at a release that reads the tokens as
    ``reg`` does, :func:`_structure_runs`) and ``reg``'s entry for its option string."""
    if option is None:
        return None
    return option.values, reg.lookup(option.option) if option.option is not None else None


def range_issues(tokens: Sequence[str], parsed: ParsedArgs, plan: VersionPlan,
                  allow_positionals: int,
                  expansions: frozenset[int] = frozenset()) -> Iterator[FlagIssue]:
    """Tokens accepted at the minimum but rejected by a release of the install range
    (memoised per argument list and range: configurations and recipes share lists)."""
    if not plan.checked or plan.minimum is None:
        return
    yield from _range_issues_of(tuple(tokens), allow_positionals, plan, parsed, expansions)


def _range_issues_of(tokens: tuple[str, ...], allow_positionals: int, plan: VersionPlan,
                     parsed: ParsedArgs | None = None,
                     expansions: frozenset[int] = frozenset()) -> tuple[FlagIssue, ...]:
    """The issues of one argument list and range, memoised on the run's data source."""
    assert plan.minimum is not None
    key = (tokens, allow_positionals, plan.minimum.version, plan.family, plan.checked,
           plan.range_label, expansions)
    return plan.cli.bounded("range:issues", key, lambda: tuple(_compute_range_issues(
        tokens, plan, allow_positionals, parsed, expansions)), limit=LISTS_KEPT)


def _compute_range_issues(tokens: tuple[str, ...], plan: VersionPlan, allow_positionals: int,
                          parsed: ParsedArgs | None = None,
                          expansions: frozenset[int] = frozenset()) -> Iterator[FlagIssue]:
    """``parsed``: the parse of ``tokens`` at ``plan.minimum`` when the caller has it."""
    low = plan.minimum
    assert low is not None
    if parsed is None or parsed.tokens != tokens:
        parsed = parse_at(plan.cli, tokens, low, allow_positionals, expansions)
    # judged here: what the minimum accepts (its own rejections are the other issues), and
    # not the values of a parser that a parser plugin file registers
    by_plugin = plugged(parsed)
    accepted = [o for o in parsed.options if o.spec is not None and o.dest not in by_plugin
                and _accepted_at_minimum(o, plan)]
    if not accepted:
        return
    keys = [t.split("=", 1)[0] for t in tokens if t.startswith("-")]
    found_at: dict[int, list[tuple[int, tuple[str, str]]]] = {}
    releases = _range_token(plan.cli, plan.family, plan.checked)
    like_minimum, groups = _structure_runs(keys, plan, _range_token(
        plan.cli, plan.family, plan.checked, low.version, low.sha256))
    for number, group in enumerate(groups):
        # the releases of a group read the tokens alike: one parse binds every option
        members = frozenset(group)
        at = parsed if like_minimum and number == 0 else parse_at(
            plan.cli, tokens, registry(plan.cli, plan.checked[group[0]], plan.family),
            allow_positionals, expansions)
        by_index, ambiguous = _split(at)
        for opt in accepted:
            for position, rejection in _verdicts(opt, by_index.get(opt.index),
                                                 ambiguous.get(opt.index), plan, releases):
                if position in members:
                    found_at.setdefault(opt.index, []).append((position, rejection))
    for opt in accepted:
        rejected: dict[tuple[str, str], list[str]] = {}
        for position, rejection in sorted(found_at.get(opt.index, ()), key=lambda f: f[0]):
            rejected.setdefault(rejection, []).append(plan.checked[position])
        for (what, why), found in rejected.items():
            n = len(found)
            runs = release_runs(found, plan.checked)
            again = [v for v in plan.checked if Version(v) > Version(found[-1])]
            hint = (f"accepted again from {plan.product} {again[0]}: raise min_vllm_version "
                    f"to {required_vllm(plan.cli, again[0], plan.family)}, or drop the flag"
                    if again
                    else None)
            if hint is None and why == NOT_AN_OPTION:
                hint = nearest_hint(opt.option or opt.normalised,
                                    all_options(plan.cli, found[0], plan.family))
            if hint is None and "ambiguous" in why:
                hint = "write the option in full"
            yield FlagIssue("range_rejected", opt.index,
                            f"{what} is rejected by {plan.product} {runs}, {n} release"
                            f"{'s' if n != 1 else ''} ({why}), inside the install range "
                            f"{plan.range_label} the recipe claims",
                            hint or "drop the flag, or pin an install path below the first "
                            "release that rejects it")
