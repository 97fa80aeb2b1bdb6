""""Did you mean" hints for a name a vendored CLI registry does not have: the nearest
long options of a release (:func:`option_hint`), options that take dotted JSON keys
(:func:`dotted_option_hint`), the replacement of a removed option
(:func:`replacement_hint`), and :func:`close_matches`, ``difflib.get_close_matches`` with
cheap upper bounds first. The look-ups of a data source are memoised on it
(:meth:`~validator.vllm_cli.data_source.CliRegistries.memoised`)."""

from __future__ import annotations

import difflib
import heapq
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from validator.analysis.cli_plan import PARSER_SETS, VLLM, listed_choices, registry

if TYPE_CHECKING:
    from validator.vllm_cli.data_source import CliRegistries


def all_options(cli: CliRegistries, version: str, family: str = VLLM) -> tuple[str, ...]:
    """Every long option of one registry (for "did you mean" hints)."""
    return registry(cli, version, family).long_options


def option_hint(cli: CliRegistries, name: str, version: str, family: str = VLLM) -> str | None:
    """"did you mean" among the long options of ``version`` of ``family``, memoised on
    the run's data source per name and release (each configuration of a recipe asks
    again, and a list can hold more distinct unknown names than :func:`nearest_hint`'s
    own cache)."""
    return cli.memoised(("option_hint", name, version, family),
                        lambda: nearest_hint(name, all_options(cli, version, family)))


def dotted_option_hint(cli: CliRegistries, name: str, keys: Sequence[str], version: str,
                       family: str = VLLM) -> str | None:
    """"did you mean" for an unknown option written with dotted JSON keys
    (``--cc.pass_config.fuse_allreduce_rms``): only an option that takes JSON accepts
    keys, so the candidates are the strings of those options, short forms included
    (``--cc`` is ``-cc`` with a dash too many), each offered with the keys as written.
    Not the long options at large: ``--grpc`` is as close to ``--cc`` but takes no
    keys."""
    def compute() -> str | None:
        close = close_matches(name, json_option_strings(cli, version, family), n=3, cutoff=0.6)
        suffix = "".join(f".{k}" for k in keys)
        return f"did you mean {', '.join(f'`{c}{suffix}`' for c in close)}?" if close \
            else None
    return cli.memoised(("dotted_option_hint", name, tuple(keys), version, family),
                        compute)


def json_option_strings(cli: CliRegistries, version: str, family: str = VLLM) -> tuple[str, ...]:
    """Every option string (long and short) of the options of one registry whose value
    is JSON, sorted: the options that accept dotted keys."""
    reg = registry(cli, version, family)
    return tuple(sorted(s for s in reg.option_strings
                        if (spec := reg.lookup(s)) is not None and spec.is_json))


def replacement_hint(cli: CliRegistries, name: str, version: str,
                     family: str = VLLM) -> str | None:
    """"did you mean" for a removed option: the long options of ``version`` of ``family``
    at least :data:`REPLACEMENT_CUTOFF` alike (a rename such as ``--disable-log-requests``
    -> ``--enable-log-requests``, 0.88), not the looser typo search of
    :func:`option_hint` (which also offers ``--text-encoder-tp-size`` for
    ``--auxiliary-text-encoder``, 0.61: a flag that shares words, not a replacement)."""
    return cli.memoised(("replacement_hint", name, version, family),
                        lambda: _nearest_hint(name, all_options(cli, version, family),
                                                   REPLACEMENT_CUTOFF))


#: Similarity (:func:`difflib.SequenceMatcher.ratio`) from which a flag of a newer release
#: is offered as the replacement of a removed one.
REPLACEMENT_CUTOFF = 0.7


def nearest_hint(name: str, known: Sequence[str]) -> str | None:
    """"did you mean" text from :func:`difflib.get_close_matches` (``None`` if none)."""
    return _nearest_hint(name, tuple(known))


# Pure functions of immutable inputs (strings, tuples of strings): their process-wide
# caches hold no data of a data source.
@lru_cache(maxsize=2048)
def _nearest_hint(name: str, known: tuple[str, ...], cutoff: float = 0.6) -> str | None:
    close = close_matches(name, known, n=3, cutoff=cutoff)
    return f"did you mean {', '.join(f'`{c}`' for c in close)}?" if close else None


@lru_cache(maxsize=256)
def _prepared(known: tuple[str, ...]) -> tuple[str, tuple[tuple[str, int, Sequence[int]], ...]]:
    """The characters of ``known`` and each candidate with its length and its count of
    each of those characters (once per candidate list; as ``bytes``, a ninth of a tuple's
    memory, unless a count exceeds 255)."""
    alphabet = "".join(sorted(set("".join(known))))

    def counts(x: str) -> Sequence[int]:
        found = [x.count(ch) for ch in alphabet]
        return bytes(found) if max(found, default=0) < 256 else tuple(found)

    return alphabet, tuple((x, len(x), counts(x)) for x in known)


def close_matches(word: str, known: tuple[str, ...], n: int = 3,
                  cutoff: float = 0.6) -> list[str]:
    """Exactly :func:`difflib.get_close_matches` ``(word, known, n, cutoff)``, faster.

    ``difflib`` computes ``SequenceMatcher.ratio`` for every candidate whose cheap upper
    bounds (``real_quick_ratio``, ``quick_ratio``: the same formulas, here from prepared
    character counts) reach ``cutoff``. Here the candidates are visited by descending
    ``quick_ratio``, and the visit stops once that bound is below the ``n``-th best ratio
    found: no later candidate can enter the ``n`` best (ties are still visited, and the
    result is chosen by ``heapq.nlargest`` of ``(ratio, candidate)`` as in ``difflib``).
    """
    alphabet, prepared = _prepared(known)
    counts, size = tuple(word.count(ch) for ch in alphabet), len(word)
    bounds: list[tuple[float, str]] = []
    for x, length, chars in prepared:
        total = length + size
        if (2.0 * min(length, size) / total if total else 1.0) < cutoff:
            continue  # characters of ``word`` that no candidate has match nothing
        quick = 2.0 * sum(map(min, chars, counts)) / total if total else 1.0
        if quick >= cutoff:
            bounds.append((quick, x))
    bounds.sort(key=lambda b: -b[0])
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    found: list[tuple[float, str]] = []
    for quick, x in bounds:
        if len(found) >= n and quick < heapq.nlargest(n, found)[-1][0]:
            break
        matcher.set_seq1(x)
        ratio = matcher.ratio()
        if ratio >= cutoff:
            found.append((ratio, x))
    return [x for _, x in heapq.nlargest(n, found)]


#: Similarity (:func:`difflib.get_close_matches`) at which a value is a typo of a choice.
VALUE_TYPO_CUTOFF = 0.85


def choice_typo(cli: CliRegistries, option: str, value: str, family: str = VLLM) -> str | None:
    """The choice ``value`` is a near-miss of (``None``: none), when ``value`` is in no
    vendored release's choices of ``option`` (:func:`listed_choices`). A release that
    dropped the list takes any string at argparse; such a value is still a typo, never
    a value "accepted from" that release."""
    if not _may_list_choices(cli, option, family):
        return None  # listed_choices would be empty
    known = listed_choices(cli, option, family)
    if value in known:
        return None
    close = close_matches(value, known, n=1, cutoff=VALUE_TYPO_CUTOFF)
    return close[0] if close else None


def _stem(option: str) -> str:
    """``option`` without its dashes, ``=value`` and dotted sub-key, ``_`` read as ``-``:
    every string by which a release's :meth:`~validator.vllm_cli.registry.CliRegistry.lookup`
    of ``option`` may select an option has the stem of ``option`` (or, for the hidden
    ``--no-`` alias of a flag, that stem without ``no-``)."""
    return option.lstrip("-").split("=", 1)[0].split(".", 1)[0].replace("_", "-")


def _may_list_choices(cli: CliRegistries, option: str, family: str) -> bool:
    """Whether a release of ``family`` in the window may list values for ``option``
    (:func:`~validator.analysis.cli_plan.allowed_values`); ``False`` only when no option of
    the family's shipped table
    (:meth:`~validator.vllm_cli.data_source.CliRegistries.shipped_options`) that has
    choices or a parser set has a string of the stem of ``option`` (:func:`_stem`): then no
    release's lookup of ``option`` selects one, and :func:`listed_choices` need not build
    every release's registry to find none (``--port``, ``--tensor-parallel-size`` of a
    strategy file: checking one recipe built all 76). A ``-O``-style token, or a family
    not wholly built from the table: ``True``."""
    if not option.startswith("--"):
        return True

    def stems() -> frozenset[str] | None:
        table = cli.shipped_options(family)
        return None if table is None else frozenset(
            _stem(s) for o in table if o["choices"] or o["dest"] in PARSER_SETS
            for s in o["strings"])

    listed = cli.memoised(("listed_choice_stems", family, cli.window), stems)
    stem = _stem(option)
    return listed is None or stem in listed or stem.removeprefix("no-") in listed
