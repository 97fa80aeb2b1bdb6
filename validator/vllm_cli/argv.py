"""A model of how ``vllm serve`` reads its argument list, per vLLM version.

vLLM parses ``vllm serve`` arguments with ``FlexibleArgumentParser`` (``vllm/utils/
argparse_utils.py`` from 0.11; ``vllm/utils/__init__.py`` before), a subclass of
:class:`argparse.ArgumentParser` whose ``parse_args`` rewrites the argument list before
argparse sees it. This module reproduces that rewrite and argparse's own rules, on the
option table of one release (a :class:`CliSpec`, normally a
:class:`validator.vllm_cli.registry.CliRegistry`), without importing vLLM:

* ``--key=value`` is split on the first ``=`` (argparse ``_parse_optional``);
* in every argument starting with ``--`` the text between ``--`` and the first ``.`` has
  its underscores replaced by dashes (``pattern = re.compile(r"(?<=--)[^\\.]*")`` in
  ``FlexibleArgumentParser.parse_args``), so ``--max_model_len`` is ``--max-model-len``;
  single-dash arguments are left alone;
* an argument starting with ``-`` and containing ``.`` in its key is a *dotted JSON key*
  (``--speculative-config.method mtp``, ``-cc.pass_config.x=False``): its value is the
  ``=`` part or, without ``=``, **unconditionally the next token** (even when that token
  is another flag), a trailing ``+`` appends to a list, and all dotted keys of one option
  are merged and appended at the end as ``--option '<json>'``; releases without
  dotted-key support (``CliSpec.dotted_keys`` false) reject such arguments, as any
  unknown option (a following flag is read as itself);
* ``-O3`` / ``-O=3`` / ``-O 3`` are rewritten to the optimisation level;
* argparse accepts a unique prefix of a long option (``allow_abbrev=True``, the default
  vLLM keeps), rejects an ambiguous one, and treats a token starting with ``-`` as an
  option unless it looks like a negative number (``_negative_number_matcher``);
* a switch (``nargs=0``) given ``=value`` is an argparse error ("ignored explicit
  argument"), a bare token after it is an unrecognised positional;
* repeated options: the last occurrence wins (argparse stores in order).

Only the parts of argparse that the recipes exercise are modelled (no ``fromfile``
prefixes, no ``--config`` file expansion, no intermixed positionals beyond the model).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from typing import Any, NamedTuple

# the result types and value reading are imported from here by the analysis modules
from validator.vllm_cli.parsed_args import (
    ArgProblem,
    CliSpec,
    OptionSpec,
    ParsedArgs,
    ParsedOption,
    Problem,
    json_valued,
)

#: argparse's ``_negative_number_matcher`` (CPython ``Lib/argparse.py``).
NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")

#: FlexibleArgumentParser: "Everything between the first -- and the first ."
_FLEX_PATTERN = re.compile(r"(?<=--)[^\.]*")


def normalise(flag: str) -> str:
    """vLLM's rewrite of one option key: underscores to dashes between ``--`` and the
    first ``.`` (``--speculative_config.num_speculative_tokens`` ->
    ``--speculative-config.num_speculative_tokens``). Single-dash keys are unchanged."""
    if not flag.startswith("--"):
        return flag
    return _FLEX_PATTERN.sub(lambda m: m.group(0).replace("_", "-"), flag, count=1)


def looks_like_option(token: str) -> bool:
    """Whether argparse would read ``token`` as an option rather than a value: it starts
    with ``-``, is not just ``-`` and is not a negative number."""
    if not token.startswith("-") or token == "-":
        return False
    second = token[1]
    # a negative number has a (Unicode) decimal digit or "." after its "-"
    return not ((second == "." or second.isdecimal()) and NEGATIVE_NUMBER.match(token))


def split_inline(token: str) -> tuple[str, str | None]:
    """``"--a=b=c"`` -> ``("--a", "b=c")``; no ``=`` -> ``(token, None)``."""
    if "=" in token:
        key, value = token.split("=", 1)
        return key, value
    return token, None


def _resolve(cli: CliSpec, name: str) -> tuple[str | None, Any, list[str]]:
    """(option string, spec, candidates) for ``name``: exact match first, then argparse's
    unique-prefix rule for ``--`` options."""
    spec = cli.lookup(name)
    if spec is not None:
        return name, spec, []
    if not name.startswith("--") or len(name) < 3:
        return None, None, []
    candidates = sorted(set(cli.abbreviations(name)))
    if len(candidates) == 1:
        return candidates[0], cli.lookup(candidates[0]), candidates
    return None, None, candidates


def _arity(spec: OptionSpec) -> tuple[int, int | None]:
    """(minimum, maximum) number of value tokens (``None``: unbounded)."""
    if not spec.takes_value:
        return 0, 0
    nargs = spec.nargs
    if nargs is None or nargs == "":
        return 1, 1
    if nargs == "?":
        return 0, 1
    if nargs == "*":
        return 0, None
    if nargs == "+":
        return 1, None
    if nargs.isdigit():
        n = int(nargs)
        return n, n
    return 1, 1  # argparse.REMAINDER / PARSER never occur on serve options


def parse_args(tokens: Sequence[str], cli: CliSpec, *, allow_positionals: int = 0,
               expansions: Collection[int] = ()) -> ParsedArgs:
    """Parse one ``vllm serve`` argument list (without ``vllm serve`` itself).

    Args:
        tokens: the arguments, one token per element (as in the recipe YAML lists, or
            ``shlex.split`` of a guide command).
        cli: the option table of the release to parse against.
        allow_positionals: how many bare tokens are expected (the model for a guide
            command); further bare tokens are :attr:`Problem.STRAY`.
        expansions: tokens a shell expands into unknown words (``"$@"``, ``$EXTRA``).
            One is the value of an option that takes one (``--host $HEAD_IP``); where an
            option would stand it is not judged, nor the bare tokens after it (values of
            an option it may end with) up to the next option (``ParsedArgs.unread``).

    Returns:
        A :class:`ParsedArgs`. Never raises: every problem is an :class:`ArgProblem`.
    """
    result = ParsedArgs(tuple(tokens))
    n = len(tokens)
    i = 0
    expanded = False  # after an expansion where an option would be
    while i < n:
        token = tokens[i]
        if i in expansions or (expanded and not looks_like_option(token) and token != "--"):
            result.unread.append(i)
            expanded = True
            i += 1
            continue
        expanded = False
        if not looks_like_option(token) or token == "--":
            if len(result.positionals) < allow_positionals:
                result.positionals.append((i, token))
            else:
                result.problems.append(ArgProblem(
                    Problem.STRAY, i, f"`{token}` is not an option and no option takes it "
                    "as a value (argparse: unrecognized arguments)"))
            i += 1
            continue
        i = _parse_one(result, tokens, i, cli, expansions)
    return result


class KeyReading(NamedTuple):
    """How one release reads an option token before looking at the tokens after it
    (:func:`read_key`): what :func:`_parse_one` decides from the token alone."""

    key: str
    """The token without its ``=value``."""
    inline: str | None
    """The ``=value`` part (``None``: none)."""
    short_o: bool
    """An ``-O3`` / ``-O=3`` optimisation level (the other fields are then unused)."""
    normalised: str
    """``key`` after the release's underscore rewrite."""
    head: str
    """For a dotted key, the option part before the first ``.``; else ``normalised``."""
    rest: str | None
    """For a dotted key, the key path after the first ``.``; else ``None``."""
    option: str | None
    """The option string ``head`` resolves to (after abbreviation), ``None``: none."""
    spec: Any
    """The release's entry of ``option``."""
    candidates: tuple[str, ...]
    """The abbreviation candidates of ``head``."""


READINGS_KEPT = 4096
"""How many option tokens a registry's memo of :func:`read_key` holds before it is
emptied (a corpus run meets a few hundred distinct ones)."""


def read_key(cli: CliSpec, token: str) -> KeyReading:
    """How ``cli`` reads option token ``token`` by itself: its key and inline value, the
    ``-O`` form, the normalised spelling, the dotted split and the option it resolves to.
    Everything here is a function of the token and the release's tables, so a registry
    keeps it per token (:attr:`validator.vllm_cli.registry.CliRegistry.key_readings`):
    the argument lists of every configuration and recipe repeat the same few hundred
    tokens."""
    memo: dict[str, KeyReading] | None = getattr(cli, "key_readings", None)
    if memo is None:
        return _read_key(cli, token)
    found = memo.get(token)
    if found is None:
        if len(memo) >= READINGS_KEPT:
            memo.clear()
        found = memo[token] = _read_key(cli, token)
    return found


def _read_key(cli: CliSpec, token: str) -> KeyReading:
    key, inline = split_inline(token)
    # -O3 / -O=3 (FlexibleArgumentParser rewrites them to the optimisation level)
    if (key.startswith("-O") and not key.startswith("--") and key != "-O" and key[2:3] != "."
            and getattr(cli, "short_o", True)):
        return KeyReading(key, inline, True, key, key, None, None, None, ())
    norm = cli.normalise(key)
    head, dot, rest = norm.partition(".")
    option, spec, candidates = _resolve(cli, head if dot else norm)
    return KeyReading(key, inline, False, norm, head if dot else norm, rest if dot else None,
                      option, spec, tuple(candidates))


def _parse_one(result: ParsedArgs, tokens: Sequence[str], i: int, cli: CliSpec,
               expansions: Collection[int] = ()) -> int:
    token = tokens[i]
    reading = read_key(cli, token)
    if reading.short_o:
        return _parse_short_o(result, token, i, cli)
    if reading.rest is not None:
        return _parse_dotted(result, tokens, i, cli, reading)
    key, inline, norm, option, spec = (reading.key, reading.inline, reading.normalised,
                                       reading.option, reading.spec)
    values, indexes, nxt, value_problems = _option_values(tokens, i, option, spec, inline,
                                                          expansions)
    opt = ParsedOption(i, key, norm, option, spec, values=tuple(values),
                       value_indexes=tuple(indexes), inline=inline is not None)
    result.options.append(opt)
    result.problems.extend(_name_problems(opt, reading.candidates))
    for kind, message, vidx in value_problems:
        result.problems.append(ArgProblem(kind, i, message, value_index=vidx, option=opt))
    return nxt


def _parse_short_o(result: ParsedArgs, token: str, i: int, cli: CliSpec) -> int:
    """``-O3`` / ``-O=3``: the optimisation level of ``-O``."""
    level = token[3:] if token[2:3] == "=" else token[2:]
    spec = cli.lookup("-O")
    opt = ParsedOption(i, "-O", "-O", "-O" if spec else None, spec, values=(level,),
                       value_indexes=(i,), inline=True)
    result.options.append(opt)
    if spec is None:
        result.problems.append(ArgProblem(Problem.UNKNOWN, i, f"`{token}`: this release "
                                          "has no -O option", option=opt))
    return i + 1


def _option_values(tokens: Sequence[str], i: int, option: str | None, spec: Any,
                   inline: str | None, expansions: Collection[int]
                   ) -> tuple[list[str], list[int], int, list[tuple[Problem, str, int | None]]]:
    """The values the option at ``i`` takes (its inline value, or the tokens after it up
    to its arity), their indexes, the index of the next token, and the value problems."""
    values: list[str] = []
    indexes: list[int] = []
    nxt = i + 1
    if inline is not None:
        values, indexes = [inline], [i]
    problems: list[tuple[Problem, str, int | None]] = []
    if spec is None:
        # unknown option: the bare tokens after it are its values (argparse refuses them
        # with it, in one "unrecognized arguments"; no stray token of their own)
        while inline is None and nxt < len(tokens) and not looks_like_option(tokens[nxt]):
            values.append(tokens[nxt])
            indexes.append(nxt)
            nxt += 1
        return values, indexes, nxt, problems
    lo, hi = _arity(spec)
    if hi == 0:
        if inline is not None:
            problems.append((Problem.SWITCH_VALUE, f"`{option}` is a switch and takes "
                             f"no value, but `={inline}` is given", i))
        elif nxt < len(tokens) and not looks_like_option(tokens[nxt]) \
                and nxt not in expansions:  # an expansion after a switch: more words
            problems.append((Problem.SWITCH_VALUE, f"`{option}` is a switch and takes "
                             f"no value, but `{tokens[nxt]}` follows it", nxt))
            values, indexes = [tokens[nxt]], [nxt]
            nxt += 1
    elif inline is None:
        while nxt < len(tokens) and not looks_like_option(tokens[nxt]) and (
                hi is None or len(values) < hi):
            values.append(tokens[nxt])
            indexes.append(nxt)
            nxt += 1
        if len(values) < lo:
            problems.append((Problem.MISSING_VALUE, f"`{option}` needs a value but "
                             + (f"is followed by `{tokens[nxt]}`" if nxt < len(tokens)
                                else "is the last argument"), None))
    return values, indexes, nxt, problems


def _name_problems(opt: ParsedOption, candidates: Sequence[str]) -> list[ArgProblem]:
    """What is wrong with how ``opt`` names its option: unknown, an ambiguous or a
    unique abbreviation, underscores."""
    i, key, norm, option = opt.index, opt.written, opt.normalised, opt.option
    if opt.spec is None:
        if candidates:
            return [ArgProblem(
                Problem.AMBIGUOUS, i, f"`{key}` is an ambiguous abbreviation of "
                + ", ".join(f"`{c}`" for c in candidates[:6]) + " (argparse error)", option=opt)]
        return [ArgProblem(Problem.UNKNOWN, i, f"unknown option `{key}`", option=opt)]
    out: list[ArgProblem] = []
    if option != norm:
        out.append(ArgProblem(
            Problem.ABBREVIATION, i, f"`{key}` is an abbreviation of `{option}`; argparse "
            "accepts unique prefixes only while no other option shares the prefix", option=opt))
    if norm != key:
        out.append(ArgProblem(
            Problem.UNDERSCORE, i, f"`{key}` is spelled with underscores; vLLM reads it "
            f"as `{norm}`", option=opt))
    return out


def _parse_dotted(result: ParsedArgs, tokens: Sequence[str], i: int, cli: CliSpec,
                  reading: KeyReading) -> int:
    key, head, inline = reading.key, reading.head, reading.inline
    rest = reading.rest or ""
    append = rest.endswith("+")
    keys = tuple((rest[:-1] if append else rest).split("."))
    value, vidx, nxt, problems = _dotted_value(tokens, i, key, inline, cli)
    option, spec, candidates = reading.option, reading.spec, reading.candidates
    opt = ParsedOption(i, key, head, option, spec, keys=keys, append=append,
                       values=() if value is None else (value,),
                       value_indexes=() if vidx is None else (vidx,),
                       inline=inline is not None)
    result.options.append(opt)
    if not cli.dotted_keys:
        result.problems.append(ArgProblem(
            Problem.DOTTED_UNSUPPORTED, i, f"`{key}`: vLLM {cli.version} does not accept "
            "dotted JSON keys (argparse: unrecognized arguments)", option=opt))
        return nxt
    if spec is None:
        if candidates:
            result.problems.append(ArgProblem(
                Problem.AMBIGUOUS, i, f"`{head}` in `{key}` is an ambiguous abbreviation of "
                + ", ".join(f"`{c}`" for c in candidates[:6]), option=opt))
        else:
            result.problems.append(ArgProblem(Problem.UNKNOWN, i, f"unknown option `{head}` "
                                              f"(in `{key}`)", option=opt))
        return nxt
    if not json_valued(spec):
        result.problems.append(ArgProblem(
            Problem.DOTTED_NOT_JSON, i, f"`{key}`: `{option}` is not a JSON-valued option, "
            "so dotted keys turn its value into a JSON object it cannot take", option=opt))
    if option != head:
        result.problems.append(ArgProblem(
            Problem.ABBREVIATION, i, f"`{head}` in `{key}` is an abbreviation of `{option}`",
            option=opt))
    if head != key.partition(".")[0]:
        result.problems.append(ArgProblem(
            Problem.UNDERSCORE, i, f"`{key}` is spelled with underscores; vLLM reads it as "
            f"`{head}.{'.'.join(keys)}`", option=opt))
    for kind, message, vi in problems:
        result.problems.append(ArgProblem(kind, i, message, value_index=vi, option=opt))
    return nxt


def _dotted_value(tokens: Sequence[str], i: int, key: str, inline: str | None, cli: CliSpec
                  ) -> tuple[str | None, int | None, int, list[tuple[Problem, str, int | None]]]:
    """The value of the dotted key ``key`` at ``tokens[i]`` (``inline``: written after its
    ``=``), as vLLM reads it: ``(value, its index, the index after it, problems)``. A CLI
    without dotted keys refuses the key as an unknown argument, and argparse then reads a
    following flag as itself."""
    nxt = i + 1
    if inline is not None:
        return inline, i, nxt, []
    if not cli.dotted_keys:
        if nxt < len(tokens) and not looks_like_option(tokens[nxt]):
            return tokens[nxt], nxt, nxt + 1, []
        return None, None, nxt, []
    if nxt >= len(tokens):
        return None, None, nxt, [(Problem.MISSING_VALUE, f"`{key}` is the last argument; a "
                                  "dotted key needs a value (vLLM raises IndexError)", None)]
    value = tokens[nxt]
    if not looks_like_option(value):
        return value, nxt, nxt + 1, []
    return value, nxt, nxt + 1, [(Problem.DOTTED_NO_VALUE, f"`{key}` has no value, so vLLM "
                                  f"takes the next argument `{value}` as its value (a dotted "
                                  "key always consumes the following token)", nxt)]


def duplicates(parsed: ParsedArgs) -> list[tuple[ParsedOption, ParsedOption]]:
    """Pairs ``(first, later)`` of occurrences that set the same thing in one list (a
    third occurrence is paired with the first, as the second is).

    Same destination and dotted path, or a whole JSON value together with dotted keys of
    the same option (vLLM appends the merged dotted keys last, so they replace the whole
    value). The recipes site's de-duplication keeps only the last of two identical
    spellings, silently dropping the earlier one.
    """
    out: list[tuple[ParsedOption, ParsedOption]] = []
    seen: dict[str, ParsedOption] = {}
    whole: dict[str, ParsedOption] = {}
    dotted: dict[str, ParsedOption] = {}
    for opt in parsed.options:
        if opt.option is None and opt.spec is None:
            continue
        if opt.ident in seen:
            out.append((seen[opt.ident], opt))
        seen.setdefault(opt.ident, opt)
        if opt.keys:
            if opt.dest in whole and opt.dest not in dotted:
                out.append((whole[opt.dest], opt))
            dotted.setdefault(opt.dest, opt)
        else:
            if opt.dest in dotted:
                out.append((dotted[opt.dest], opt))
            whole[opt.dest] = opt
    return out


def option_strings(options: Iterable[ParsedOption]) -> list[str]:
    """Display strings of ``options`` (for messages)."""
    return [o.display for o in options]
