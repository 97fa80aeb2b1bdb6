"""One defect, one finding: an argv defect that makes vLLM's parser consume the next
token, and what that does to the tokens after it.

A dotted key written without its value (``--attention-config.use_x`` then
``--tool-call-parser``, ``kimi_k2``) takes the next token as its value even when that is a
flag (``FlexibleArgumentParser``): the swallowed flag is gone, its own value becomes a stray
argument, and an option that needs the swallowed one (``--enable-auto-tool-choice``) now
lacks it. Each of those is reported by some check at an innocent line. This module names
the defects that swallow (:func:`swallowers`), builds the argument list with each one given
its value (:func:`repaired`), and, from the issues of both lists, folds every issue that
only the defect causes into the defect's own issue as a consequence
(:func:`collapse`); the rules then report it once, at the defect's line, with the
consequences as related locations.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from validator.analysis.flag_values import FlagIssue
from validator.vllm_cli.parsed_args import ArgProblem, ParsedArgs, Problem

#: How the message of a consequence (a related location of the defect) begins.
CONSEQUENCE = "consequence: "
#: Problems whose option consumed a token that is not its value.
SWALLOWING = frozenset({Problem.DOTTED_NO_VALUE})


def swallowers(parsed: ParsedArgs) -> list[ArgProblem]:
    """The problems of ``parsed`` whose option took the next token (a flag) as its value."""
    return [p for p in parsed.problems if p.kind in SWALLOWING and p.value_index is not None]


def repaired(tokens: Sequence[str], roots: Sequence[ArgProblem]) -> tuple[str, ...]:
    """``tokens`` with each of ``roots`` given an empty value of its own (``--a.b=``), so
    the token it swallowed is read as what it is; every index stays where it was."""
    out = list(tokens)
    for p in roots:
        out[p.index] = tokens[p.index] + "="
    return tuple(out)


def collapse(issues: Sequence[FlagIssue], fixed: Sequence[FlagIssue],
             roots: Sequence[ArgProblem], tokens: Sequence[str]) -> list[FlagIssue]:
    """``issues`` (of ``tokens``) without those the repaired list (``fixed`` are its
    issues) does not have at other tokens than a root's: each of those is a consequence
    of the last root before it, and the root's own issue lists it in
    :attr:`FlagIssue.consequences` (after the token the root swallowed)."""
    left = Counter((i.code, i.index) for i in fixed)
    at_root = {p.index for p in roots}
    kept: list[FlagIssue] = []
    caused: dict[int, list[tuple[int, str]]] = {
        p.index: [(p.value_index, _swallowed(tokens, p))] for p in roots
        if p.value_index is not None}
    for issue in issues:
        key = (issue.code, issue.index)
        if issue.index in at_root or left[key] > 0:
            left[key] -= 1
            kept.append(issue)
            continue
        cause = max((r for r in at_root if r < issue.index), default=min(at_root))
        caused[cause].append((issue.index, CONSEQUENCE + issue.message))
    root_messages = {p.index: p.message for p in roots}
    return [replace(i, consequences=tuple(caused[i.index]))
            if i.index in caused and i.message == root_messages[i.index] else i
            for i in kept]


def _swallowed(tokens: Sequence[str], root: ArgProblem) -> str:
    assert root.value_index is not None
    return (f"{CONSEQUENCE}`{tokens[root.value_index]}` is read as the value of "
            f"`{tokens[root.index]}`, so vLLM never sees it as an option")
