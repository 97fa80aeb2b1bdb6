"""The ``value_type`` issue of the ``FLAG`` engine: a value the option's argparse ``type``
refuses (``--max-model-len abc``, ``--gpu-memory-utilization 1.5e``), judged by the kind
the release's own type callable has (:mod:`validator.vllm_cli.value_kinds`).

A release without a vendored kinds file, a plugin's CLI, an option without a kind and a
value the shell or the guide's reader fills in (``$MAX_LEN``, ``${LEN:-8192}``,
``<max-len>``, ``{len}``) are not judged.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from packaging.version import Version

from validator.analysis.cli_plan import VLLM, VersionPlan, registry, required_vllm, versions
from validator.analysis.flag_values import FlagIssue, value_at
from validator.analysis.lora_modules import lora_module_issues
from validator.vllm_cli.value_bounds import bound_of
from validator.vllm_cli.value_kinds import ValueKind, load_kinds

if TYPE_CHECKING:
    from validator.vllm_cli.data_source import CliRegistries
    from validator.vllm_cli.parsed_args import ParsedOption
    from validator.vllm_cli.registry import CliRegistry

#: A value someone else writes: a shell expansion, a command substitution, a placeholder.
_FILLED_IN = re.compile(r"[$`<>{}]")


def kind_of(cli: CliRegistries, version: str, option: str) -> ValueKind | None:
    """The kind of ``option`` (its first option string) in vLLM ``version``; ``None``
    when the release has no kinds file or the option no kind."""
    kinds = release_kinds(cli, version)
    return None if kinds is None else kinds.get(option)


def release_kinds(cli: CliRegistries, version: str) -> Mapping[str, ValueKind] | None:
    """:func:`~validator.vllm_cli.value_kinds.load_kinds` of vLLM ``version`` on the
    run's data source ``cli``, looked up once per release (a corpus run asks ~50,000
    times, each a few ``stat`` calls)."""
    return cli.memoised(("value-kinds", version),
                        lambda: load_kinds(version, cli.registry_dir(VLLM)))


def type_issues(opt: ParsedOption, reg: CliRegistry, plan: VersionPlan,
                literal: tuple[bool, ...] = ()) -> Iterator[FlagIssue]:
    """A ``value_type`` issue for each value of ``opt`` its kind at ``reg`` refuses, a
    ``--lora-modules`` value the release's parser refuses
    (:mod:`validator.analysis.lora_modules`), or a number outside the bound the release
    states for the option
    (:mod:`validator.vllm_cli.value_bounds`). ``literal``: per value, whether it reaches
    vLLM as written though it holds a ``$`` (a value the site quotes: ``'abc$'``), so it
    is judged as the text it is, not as a value someone fills in."""
    spec = opt.spec
    if spec is None or not spec.strings or plan.family != VLLM or reg.plugin is not None:
        return
    if spec.dest == "lora_modules":
        yield from lora_module_issues(opt, plan, literal)
    kind = kind_of(plan.cli, reg.version, spec.strings[0])
    bound = bound_of(spec.strings[0], reg.version)
    name = opt.option or opt.normalised
    for j, (at, value) in enumerate(zip(value_at(opt), opt.values, strict=True)):
        if _FILLED_IN.search(value) and literal[j:j + 1] != (True,):
            continue
        if kind is None or kind.accepts(value):
            number = _number(value)
            if bound is not None and number is not None and bound.refuses(number):
                yield FlagIssue("value_type", at, f"`{name} {value}`: vLLM {reg.version} "
                                f"takes only a value {bound.described} ({bound.source})",
                                f"write a value {bound.described}", on_value=True)
            continue
        later = _first_accepting(plan.cli, spec.strings[0], value, reg.version)
        if later is not None:
            yield FlagIssue("value_type", at, f"`{name} {value}`: `{value}` is accepted only "
                            f"from vLLM {later} (before, the value must be "
                            f"{kind.described}), but {plan.short_of()}",
                            f"{plan.raise_to(required_vllm(plan.cli, later))}, or write "
                            f"{kind.described}", on_value=True, floor=True)
            continue
        yield FlagIssue("value_type", at, f"`{name} {value}`: `{value}` is not "
                        f"{kind.described}, so vLLM {reg.version} refuses it",
                        f"write {kind.described}", on_value=True)


def _number(value: str) -> float | None:
    """``value`` as a number (``None``: not one, such as ``8k`` or ``auto``); NaN stays
    NaN (whether a release refuses it is its bound's :meth:`ValueBound.refuses`)."""
    try:
        return float(value)
    except (ValueError, OverflowError):
        return None


def _first_accepting(cli: CliRegistries, option: str, value: str,
                     after: str) -> str | None:
    """The first vendored release after ``after`` whose ``option`` takes ``value`` (its
    type has no kind there, or its kind takes it); ``None`` when none does, or a release
    on the way has no kinds file (what it takes is unknown)."""
    for v in versions(cli, VLLM):
        if v <= Version(after):
            continue
        kinds = release_kinds(cli, str(v))
        if kinds is None:
            return None
        kind = kinds.get(option)
        if registry(cli, str(v)).lookup(option) is not None and (
                kind is None or kind.accepts(value)):
            return str(v)
    return None
