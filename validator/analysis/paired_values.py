"""Values of two ``vllm serve`` options, each valid alone, that vLLM refuses together when
it builds its config from one whole command (a rendered one, a guide command).

Each :class:`Pairing` is one check of vLLM's own config classes, read in each release's
source (the PyPI sdists the registries are extracted from):

- ``LoRAConfig`` (``vllm/config.py``; ``vllm/config/lora.py`` from 0.10.2), every release
  0.4.2-0.33.0: ``max_cpu_loras`` below ``max_loras`` raises "max_cpu_loras (..) must be
  >= max_loras (..)". ``EngineArgs`` builds the config only under ``--enable-lora`` and
  passes ``--max-cpu-loras`` only when it is above 0 (else it defaults to ``max_loras``);
  ``--max-loras`` defaults to 1.
- ``ParallelConfig`` (``vllm/config.py``; ``vllm/config/parallel.py`` from 0.10.1), from
  0.9.0: ``data_parallel_size_local`` above ``data_parallel_size`` raises
  "data_parallel_size_local (..) must be <= data_parallel_size (..)"; unset, the local
  size is the total one; ``--data-parallel-size`` defaults to 1.

:func:`pairing_issues` gives one ``refused_pair`` issue for each pairing a release of the
plan's minimum or install range refuses, at the later of the two values in the command
(the one that breaks what the earlier one set), naming the releases that refuse it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from packaging.version import Version

from validator.analysis.cli_plan import VLLM, VersionPlan
from validator.analysis.flag_values import FlagIssue
from validator.analysis.release_range import release_runs
from validator.vllm_cli.parsed_args import ParsedArgs


@dataclass(frozen=True)
class Setting:
    """The last occurrence of one option in a command: the index of its value word (the
    option's own for ``--flag=value`` or a switch), the value (``None`` for a switch) and
    the option as written."""

    index: int
    value: str | None
    written: str


@dataclass(frozen=True)
class Pairing:
    """One check vLLM makes of two options together: the value of ``low`` must be at most
    that of ``high``. ``given`` is the destination that must be set for the check to
    apply (the other one then takes its ``default``), ``switch`` one that must be on,
    ``since`` the first release that checks it, ``source`` where."""

    low: str
    high: str
    given: str
    default: int
    switch: str | None
    since: str
    source: str
    reason: str
    hint: str


PAIRINGS: tuple[Pairing, ...] = (
    Pairing("max_loras", "max_cpu_loras", "max_cpu_loras", 1, "enable_lora", "0.4.2",
            "LoRAConfig", "max_cpu_loras must be >= max_loras",
            "raise `--max-cpu-loras` to at least `--max-loras`, or drop it (it defaults to "
            "`--max-loras`)"),
    Pairing("data_parallel_size_local", "data_parallel_size", "data_parallel_size_local", 1,
            None, "0.9.0", "ParallelConfig",
            "data_parallel_size_local must be <= data_parallel_size",
            "keep `--data-parallel-size-local` (the ranks of this node) at most "
            "`--data-parallel-size` (the ranks of every node)"),
)
"""The checks :func:`pairing_issues` applies (see the module's docstring)."""

#: Every destination a pairing reads: a command holding none of them has no issue here.
PAIRED_DESTS = frozenset(d for p in PAIRINGS for d in (p.low, p.high, p.switch) if d)
_OFF = ("--no-", "--disable-")


def parsed_settings(parsed: ParsedArgs) -> dict[str, Setting]:
    """The :class:`Setting` of each paired destination ``parsed`` sets (its last
    occurrence: argparse's last wins)."""
    out: dict[str, Setting] = {}
    for opt in parsed.find(*PAIRED_DESTS):
        if opt.keys:
            continue
        out[opt.dest] = Setting(opt.value_at, opt.value, opt.written)
    return out


def segment_settings(words: Sequence[str], spans: Sequence[tuple[int, int]],
                     dests: Sequence[Sequence[str]]) -> dict[str, Setting]:
    """:func:`parsed_settings` of a command read as its segments (``spans``, the
    destinations of each one's option ``dests``): a segment is one option word and its
    values (:mod:`validator.analysis.flag_segments`)."""
    out: dict[str, Setting] = {}
    for (start, end), found in zip(spans, dests, strict=True):
        for dest in found:
            if dest not in PAIRED_DESTS:
                continue
            head, eq, inline = words[start].partition("=")
            if eq:
                out[dest] = Setting(start, inline, head)
            elif end - start > 1:
                out[dest] = Setting(end - 1, words[end - 1], head)
            else:
                out[dest] = Setting(start, None, head)
    return out


def pairing_issues(settings: dict[str, Setting], plan: VersionPlan) -> Iterator[FlagIssue]:
    """A ``refused_pair`` issue for each :data:`PAIRINGS` check the releases of ``plan``
    (its minimum and install range) refuse of one whole command's ``settings``."""
    low = plan.minimum
    if plan.family != VLLM or low is None or not settings:
        return
    for pairing in PAIRINGS:
        found = _refused(pairing, settings)
        if found is None:
            continue
        small, large, at, other = found
        span = [low.version, *plan.checked]
        refusing = [v for v in span if Version(v) >= Version(pairing.since)]
        if not refusing:
            continue
        runs = release_runs(refusing, span)
        inside = "" if refusing[0] == low.version else (
            f", inside the install range {plan.range_label} the recipe claims")
        yield FlagIssue(
            "refused_pair", at,
            f"{_said(pairing, small, large, other is not None)} in one command: "
            f"{pairing.source} of {plan.product} {runs} refuses it (\"{pairing.reason}\")"
            f"{inside}; vLLM does not start", pairing.hint, related_index=other, on_value=True)


def _said(pairing: Pairing, small: int, large: int, both: bool) -> str:
    """``"`--max-cpu-loras 2` is below `--max-loras 4`"``: the option that must be set
    first, the other with ``(default)`` when the command leaves it unset."""
    low = f"--{pairing.low.replace('_', '-')} {small}"
    high = f"--{pairing.high.replace('_', '-')} {large}"
    unset = "" if both else " (its default)"
    if pairing.given == pairing.high:
        return f"`{high}` is below `{low}`{unset}"
    return f"`{low}` is above `{high}`{unset}"


def _refused(pairing: Pairing, settings: dict[str, Setting],
             ) -> tuple[int, int, int, int | None] | None:
    """``(low value, high value, index to report, index of the other value or None)``
    when ``settings`` break ``pairing``, else ``None``."""
    given = settings.get(pairing.given)
    if given is None or (pairing.switch is not None and not _on(settings.get(pairing.switch))):
        return None
    low, high = settings.get(pairing.low), settings.get(pairing.high)
    low_n, high_n = _number(low, pairing.default), _number(high, pairing.default)
    if low_n is None or high_n is None or low_n <= high_n:
        return None
    if pairing.given == pairing.high and high_n <= 0:
        return None  # EngineArgs passes no value of at most 0: it defaults to the other
    other = low if given is high else high
    if other is None:
        return low_n, high_n, given.index, None
    return low_n, high_n, max(given.index, other.index), min(given.index, other.index)


def _on(setting: Setting | None) -> bool:
    """Whether a switch's last occurrence leaves it on."""
    return setting is not None and not setting.written.startswith(_OFF)


def _number(setting: Setting | None, default: int) -> int | None:
    """The integer value of ``setting`` (``default`` when unset; ``None`` when it is not a
    decimal integer, such as ``$DP_SIZE``: the value's own rules judge it)."""
    if setting is None:
        return default
    text = (setting.value or "").strip()
    return int(text) if text.isdecimal() else None
