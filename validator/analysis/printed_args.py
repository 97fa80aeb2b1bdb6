"""A ``vllm serve`` argument list as the site prints it, judged chunk by chunk.

The site prints a flag item raw and quotes the value item after it
(:func:`~validator.analysis.shell_words.printed_raw`); bash then splits a raw item of
plain words at whitespace (:func:`~validator.analysis.shell_words.shell_words`).
:func:`judged_items` gives the issues of the words bash passes, each at the index of the
item it comes from.

The argument lists of one corpus differ in few items, so a list is judged from its
*chunks*: an item that starts with ``-`` and the items up to the next such item. Which
items print raw, the words of each item, which words bash expands and where each
segment of :mod:`validator.analysis.flag_segments` starts depend on the chunk alone (a
flag pairs with its value only when the value does not start with ``-``), as long as the
first word of each chunk but the first is an option word: then the segments of the list
are those of its chunks. Each distinct chunk is read once per run, whatever the plan
(:func:`_reading`: the reading depends on its items alone), and its segments judged once
per plan (:func:`_chunk`). Wherever that does not hold, or the segments do not decide the list
(:func:`~validator.analysis.flag_segments.segments_decide`), the list is judged whole as
before (:func:`whole_items`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any, NamedTuple

from validator.analysis.cli_plan import VersionPlan
from validator.analysis.flag_engine import FlagIssue
from validator.analysis.flag_segments import (
    SegmentVerdict,
    command_issues,
    plan_token,
    segment_spans,
    segments_decide,
    verdict,
)
from validator.analysis.paired_values import PAIRED_DESTS, pairing_issues, segment_settings
from validator.analysis.release_range import LISTS_KEPT
from validator.analysis.shell_words import printed_expansions, printed_literals, shell_words
from validator.vllm_cli.argv import looks_like_option

CHUNKS_KEPT = 64 * LISTS_KEPT
"""How many (chunk, plan) verdicts :func:`judged_items` keeps, and how many chunk readings
(:func:`_reading`)."""


_ABSENT: Any = object()
"""What a memo look-up finds for a key it does not hold (a chunk's value may be ``None``)."""


class Chunk(NamedTuple):
    """One chunk of items read and its segments judged at one plan."""

    opens: bool
    """Whether its first word is an option word (a segment of the list starts there)."""
    verdicts: tuple[SegmentVerdict, ...]
    """The verdict of each of its segments, in order."""
    issues: tuple[FlagIssue, ...]
    """The issues of its segments, each at the index of its item in the chunk."""


def judged_items(args: tuple[str, ...], plan: VersionPlan) -> list[FlagIssue]:
    """The issues of the words bash gives for the printed command of ``args`` (an argument
    list after the model), each at the index of the item it comes from: what
    :func:`whole_items` gives, from the chunks' memoised verdicts where they decide it."""
    if plan.minimum is None:
        return []
    if not args:
        return whole_items(args, plan)
    token = plan_token(plan)
    starts = [i for i, item in enumerate(args) if i == 0 or item.startswith("-")]
    chunks: list[Chunk] = []
    memo = plan.cli.space("flag:chunks")  # CliRegistries.bounded, looked up inline
    for at, (start, end) in enumerate(zip(starts, [*starts[1:], len(args)], strict=True)):
        items = args[start:end]
        found = memo.get((items, token), _ABSENT)
        if found is _ABSENT:
            found = plan.cli.remember("flag:chunks", (items, token),
                                      _chunk(items, plan, token), CHUNKS_KEPT)
        if found is None or (at and not found.opens):
            return whole_items(args, plan)
        chunks.append(found)
    if not segments_decide([v for chunk in chunks for v in chunk.verdicts]) \
            or _refused_pair(args, starts, chunks, plan):
        return whole_items(args, plan)
    out: list[FlagIssue] = []
    for start, chunk in zip(starts, chunks, strict=True):
        out += chunk.issues if not start else [
            replace(i, index=i.index + start) for i in chunk.issues]
    return out


class Reading(NamedTuple):
    """What the printed command makes of one chunk of items, whatever the plan."""

    segments: tuple[tuple[int, tuple[str, ...], frozenset[int], frozenset[int]], ...]
    """Each segment of its words: where it starts, its words, and the words of it (from
    its start) that bash expands and that hold a ``$`` reaching vLLM as written."""
    where: tuple[int, ...]
    """The item of the chunk each word comes from."""
    split: frozenset[int]
    """The items of more than one word (:func:`_split_items`)."""
    opens: bool
    """Whether its first word is an option word."""


def _chunk(items: tuple[str, ...], plan: VersionPlan, token: object) -> Chunk | None:
    """``items`` (one chunk) read (:func:`_reading`) and its segments judged at ``plan``;
    ``None`` when a segment of it is a dotted key without a value (then only the whole
    list tells)."""
    read = plan.cli.bounded("flag:chunk_readings", items, partial(_reading, items),
                            limit=CHUNKS_KEPT)
    if read is None:
        return None
    verdicts = tuple(verdict(words, expansions, plan, token, literals)
                     for _start, words, expansions, literals in read.segments)
    issues = []
    for (start, *_), found in zip(read.segments, verdicts, strict=True):
        for issue in found.issues:
            item = read.where[issue.index + start]
            if issue.code == "duplicate" and item in read.split:
                continue  # as whole_items: the site's de-duplication reads the item whole
            issues.append(replace(issue, index=item))
    return Chunk(read.opens, verdicts, tuple(issues))


def _refused_pair(args: tuple[str, ...], starts: Sequence[int], chunks: Sequence[Chunk],
                  plan: VersionPlan) -> bool:
    """Whether ``args`` (its chunks at ``starts``) may hold two values vLLM refuses
    together (:mod:`validator.analysis.paired_values`), which only the whole list's
    judgement places: read from the chunks' items when each such option is a chunk of
    its own (an option item of one word and its value items), else assumed."""
    dests = [[d for v in chunk.verdicts for d, _, dotted in v.options if not dotted]
             for chunk in chunks]
    if not any(d in PAIRED_DESTS for found in dests for d in found):
        return False
    if any((len(chunk.verdicts) > 1 or len(args[start].split()) > 1)
           and any(d in PAIRED_DESTS for d in found)
           for start, chunk, found in zip(starts, chunks, dests, strict=True)):
        return True
    spans = list(zip(starts, [*starts[1:], len(args)], strict=True))
    return any(True for _ in pairing_issues(segment_settings(args, spans, dests), plan))


def _reading(items: tuple[str, ...]) -> Reading | None:
    """The :class:`Reading` of ``items`` (one chunk), which depends on them alone: once per
    run for each distinct chunk, whichever plans judge it (``None`` when a segment of it
    is a dotted key without a value)."""
    words, where = shell_words(items)
    spans = segment_spans(words)
    if spans is None:
        return None
    expansions = printed_expansions(items, words, where)
    literals = printed_literals(items, words, where)
    segments = tuple((start, words[start:end], frozenset(
        i - start for i in expansions if start <= i < end), frozenset(
        i - start for i in literals if start <= i < end)) for start, end in spans)
    return Reading(segments, where, frozenset(_split_items(where)),
                   looks_like_option(words[0]))


def _split_items(where: Sequence[int]) -> set[int]:
    """The items of more than one word (``where``: the item of each word, ascending)."""
    return {item for at, item in enumerate(where) if at and where[at - 1] == item}


def whole_items(args: tuple[str, ...], plan: VersionPlan) -> list[FlagIssue]:
    """The issues of the words bash gives for the printed command of ``args``
    (:func:`~validator.analysis.shell_words.shell_words`: a ``"--flag value"`` item is two
    words there), each at the index of the item it comes from, the whole list judged at
    once (:func:`~validator.analysis.flag_segments.command_issues`)."""
    words, where = shell_words(args)
    issues = command_issues(words, plan, printed_expansions(args, words, where),
                            printed_literals(args, words, where))
    split = _split_items(where)
    out = []
    for issue in issues:
        item = where[issue.index]
        related = None if issue.related_index is None else where[issue.related_index]
        if issue.code == "duplicate" and (item in split or related in split):
            continue  # the site's de-duplication reads the item whole: FLAG020 is the fix
        out.append(replace(issue, index=item, related_index=related, consequences=tuple(
            (where[at], what) for at, what in issue.consequences)))
    return out
