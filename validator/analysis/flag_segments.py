"""A whole ``vllm serve`` command's words judged option by option.

The commands the site renders for one corpus differ in few ways: 6,507 distinct argument
lists hold 124,546 words but only 343 distinct ones. vLLM's parser reads a list left to
right, and an option takes as values only the words after it that do not look like an
option (:func:`~validator.vllm_cli.argv.looks_like_option`), so a list parses as its
*segments* parse alone: each option word with the words up to the next option word.
:func:`command_issues` judges each segment once per plan
(:func:`~validator.analysis.flag_engine.judged_tokens`, memoised on the run's data
source) and puts the verdicts of a list together, shifted to the segment's place.

What only the whole list shows is judged on the whole list
(:func:`~validator.analysis.flag_engine.check_tokens`, as before) wherever it may
matter: a dotted key without a value (it takes the next word, an option, as its value), two
occurrences of one option other than distinct dotted keys (duplicates),
``--enable-auto-tool-choice`` without ``--tool-call-parser``, more than one
``--speculative-config`` (vLLM merges them), a parser plugin option (it changes how
another option's value is judged), and a verdict that points at another word (a
consequence, a related word). Every other verdict of a list is the verdicts of its
segments: the same issues, in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

from validator.analysis.cli_plan import VersionPlan
from validator.analysis.flag_engine import FlagIssue, check_tokens, judged_tokens, plan_key
from validator.analysis.flag_values import plugged
from validator.analysis.paired_values import (
    PAIRED_DESTS,
    pairing_issues,
    segment_settings,
)
from validator.analysis.release_range import LISTS_KEPT
from validator.vllm_cli.argv import looks_like_option

SEGMENTS_KEPT = 64 * LISTS_KEPT
"""How many (segment, plan) verdicts :func:`command_issues` keeps (a corpus run meets a few
thousand)."""

#: ``--enable-auto-tool-choice`` and the option it needs beside it in one command, and
#: the option whose dotted keys' merged value the engine judges (``num_speculative_tokens``).
AUTO_TOOL, TOOL_PARSER, SPECULATIVE = ("enable_auto_tool_choice", "tool_call_parser",
                                       "speculative_config")
#: ``--enable-eplb``, which needs expert parallelism left on by the whole command (its
#: switches' last occurrences): a list holding it is judged whole.
EPLB = "enable_eplb"


class SegmentVerdict(NamedTuple):
    """What one segment, judged alone, says inside any list."""

    issues: tuple[FlagIssue, ...]
    """Its issues, indexes relative to the segment's first word."""
    options: tuple[tuple[str, str, bool], ...]
    """The destination of its option (at the plan's minimum), what makes two occurrences
    of it the same (:attr:`~validator.vllm_cli.parsed_args.ParsedOption.ident`: the
    destination and dotted keys) and whether it sets dotted keys, when the option is
    known."""
    alone: bool
    """Whether its verdict holds inside any list: no parser plugin option, no issue that
    points at another word."""


def command_issues(words: Sequence[str], plan: VersionPlan,
                   expansions: frozenset[int] = frozenset(),
                   literals: frozenset[int] = frozenset()) -> list[FlagIssue]:
    """The issues :func:`~validator.analysis.flag_engine.check_tokens` gives for ``words``,
    one whole command (``auto_tool=True``), at ``plan`` (``expansions``: the words a shell
    expands; ``literals``: the words holding a ``$`` that reach vLLM as written);
    computed from the verdicts of its segments wherever they decide it."""
    reg = plan.minimum
    if reg is None:
        return []
    spans = segment_spans(words)
    if spans is not None:
        token = plan_token(plan)
        verdicts = [verdict(tuple(words[start:end]), frozenset(
            i - start for i in expansions if start <= i < end), plan, token, frozenset(
            i - start for i in literals if start <= i < end)) for start, end in spans]
        if segments_decide(verdicts) and not refused_pair(words, spans, verdicts, plan):
            out: list[FlagIssue] = []
            for (start, _end), found in zip(spans, verdicts, strict=True):
                out += found.issues if not start else [
                    replace(i, index=i.index + start) for i in found.issues]
            return out
    return check_tokens(words, plan, expansions=expansions, auto_tool=True,
                        literals=literals)[1]


def refused_pair(words: Sequence[str], spans: Sequence[tuple[int, int]],
                verdicts: Sequence[SegmentVerdict], plan: VersionPlan) -> bool:
    """Whether the command of these segments holds two values vLLM refuses together
    (:mod:`validator.analysis.paired_values`): only its whole judgement says where."""
    dests = [[d for d, _, dotted in v.options if not dotted] for v in verdicts]
    if not any(d in PAIRED_DESTS for found in dests for d in found):
        return False
    return any(True for _ in pairing_issues(segment_settings(words, spans, dests), plan))


def segment_starts(words: Sequence[str]) -> list[int] | None:
    """Where each segment of ``words`` starts (the first at 0, each other at an option
    word); ``None`` when a dotted key without a value is a segment of its own (it takes
    the next word, an option, as its value). Otherwise the options of ``words`` and their
    values are those of its segments parsed alone (at every release: no other word is
    taken across an option word)."""
    starts = [0]
    for index, word in enumerate(words):
        if index and looks_like_option(word):
            starts.append(index)
    for at, start in enumerate(starts):
        word = words[start] if start < len(words) else ""
        single = (starts[at + 1] if at + 1 < len(starts) else len(words)) - start == 1
        if single and "." in word and "=" not in word:
            return None
    return starts


def segment_spans(words: Sequence[str]) -> list[tuple[int, int]] | None:
    """``(start, end)`` of each segment of ``words`` (:func:`segment_starts`; ``None``
    where it gives ``None``)."""
    starts = segment_starts(words)
    return None if starts is None else list(zip(starts, [*starts[1:], len(words)],
                                                strict=True))


def segments_decide(verdicts: Sequence[SegmentVerdict]) -> bool:
    """Whether the list of these segments has exactly their verdicts: each holds alone,
    an option occurs twice only as distinct dotted keys (``--attention-config.a 1
    --attention-config.b 2``: no duplicate; but vLLM merges ``--speculative-config``'s, whose
    merged value the whole list judges), and an ``--enable-auto-tool-choice`` has its
    ``--tool-call-parser`` (a list with ``--enable-eplb`` is judged whole: whether expert
    parallelism is on depends on every switch of it)."""
    if not all(v.alone for v in verdicts):
        return False
    by_dest: dict[str, list[tuple[str, bool]]] = {}
    for verdict in verdicts:
        for dest, ident, dotted in verdict.options:
            by_dest.setdefault(dest, []).append((ident, dotted))
    for dest, seen in by_dest.items():
        if len(seen) > 1 and (dest == SPECULATIVE or not all(dotted for _, dotted in seen)
                              or len({ident for ident, _ in seen}) < len(seen)):
            return False
    return (AUTO_TOOL not in by_dest or TOOL_PARSER in by_dest) and EPLB not in by_dest


def plan_token(plan: VersionPlan) -> object:
    """One object per :func:`~validator.analysis.flag_engine.plan_key` of ``plan`` (its
    minimum set) on the plan's data source: what the memos of verdicts key a plan by."""
    assert plan.minimum is not None
    return plan.cli.memoised(("flag:plan", plan_key(plan, plan.minimum)), object)


def verdict(segment: tuple[str, ...], expansions: frozenset[int], plan: VersionPlan,
            token: object, literals: frozenset[int] = frozenset()) -> SegmentVerdict:
    """The :class:`SegmentVerdict` of ``segment`` at ``plan`` (``token``: its
    :func:`plan_token`), once per run."""
    def compute() -> SegmentVerdict:
        assert plan.minimum is not None
        parsed, issues = judged_tokens(segment, plan, plan.minimum, 0, True, expansions,
                                       False, literals)
        known = [o for o in parsed.options if o.option is not None or o.spec is not None]
        alone = not plugged(parsed) and all(
            i.related_index is None and not i.consequences for i in issues)
        return SegmentVerdict(issues, tuple((o.dest, o.ident, bool(o.keys)) for o in known),
                              alone)

    return plan.cli.bounded("flag:segments", (segment, expansions, token, literals), compute,
                            limit=SEGMENTS_KEPT)
