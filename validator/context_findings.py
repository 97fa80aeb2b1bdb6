"""A finding that a context file causes belongs to that file.

A strategy's ``vllm_args``, a taxonomy KV offload option's ``args`` (the lists of a
kv-store deployment alike) go into the commands of every recipe that selects them. What
only a recipe's release range shows of such a list (a flag newer than that recipe's
minimum) is found while the recipe is checked, and written at the recipe line that selects
the list, with a related location at the list's item in the context file
(:func:`context_cause` tells such a finding by where it is and what it names, never by its
message).

When the run checks that context file itself (``check`` names it, ``pr`` changes it), the
finding is reported there, at the item's own file and line, naming the recipe
(:func:`relocate`): the file's author fixes it, and SARIF, JSON and text show it on the
file. When the run does not check the file, the finding stays on the recipe, where ``pr``
counts it as existing unless the change edits the file
(:func:`validator.pr.baseline.context_caused`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping

from validator.checker import DocumentResult, RunResult
from validator.config import matches
from validator.findings import Finding, Related
from validator.identity import with_identities
from validator.load import LoadedDocument

SELECTORS = ("/compatible_strategies/", "/kv_offload_support/", "/model/min_vllm_version")
"""Pointers of the recipe lines that pull a context file's lists into its commands (or,
for a KV offload option the site offers the recipe unlisted, the minimum its flags are
newer than): a finding there (or on the whole document) with a related location in that
file is about what the file puts into the command, not about something the recipe
wrote."""

SELECTS = "the recipe line that selects this list"
"""The message of the related location a relocated finding keeps of the recipe."""

SETS_MINIMUM = "the recipe's minimum vLLM version, older than these flags"
"""That message for a KV offload option the site offers the recipe unlisted (the finding
sits at ``/model/min_vllm_version``)."""


def context_cause(finding: Finding, is_context: Callable[[str], bool]) -> Related | None:
    """The related location in a context file whose list causes ``finding`` (the first
    by path and line), else ``None``: the finding is on a line that selects a context
    file (:data:`SELECTORS`) or on the whole document, and every related location in
    another file is in a context file (``is_context`` of its path)."""
    if finding.pointer and not finding.pointer.startswith(SELECTORS):
        return None
    causes = [r for r in finding.related if r.path and r.path != finding.path]
    if not causes or not all(is_context(str(r.path)) for r in causes):
        return None
    return min(causes, key=lambda r: (str(r.path), r.line))


CheckedContext = Mapping[tuple[str | None, str | None], Mapping[str, LoadedDocument]]
"""(repository, commit) of a tree -> path -> the context documents the run checked as
files of that tree (named by ``check``, changed in ``pr``)."""


def relocate(result: RunResult, checked: CheckedContext) -> None:
    """Move every finding of a recipe that a context file of its tree causes
    (:func:`context_cause`) onto that file's document, when the run checked the file
    (``checked``); other findings stay where they are."""
    targets = {(_tree(d), d.path): d for d in result.documents
               if d.path in checked.get(_tree(d), {})}
    moved: dict[int, list[Finding]] = {}
    for doc in result.documents:
        files = checked.get(_tree(doc), {})
        if not files or doc.path in files:
            continue
        kept = []
        for finding in doc.findings:
            cause = context_cause(finding, files.__contains__)
            target = targets.get((_tree(doc), str(cause.path))) if cause else None
            if cause is None or target is None:
                kept.append(finding)
                continue
            moved.setdefault(id(target), []).append(
                on_context_file(finding, cause, files[target.path]))
        doc.findings = kept
    for target in targets.values():
        if id(target) in moved:
            target.findings = sorted(
                [explain_unused(f, moved[id(target)]) for f in target.findings]
                + with_identities(moved[id(target)], target_data(checked, target)),
                key=Finding.sort_key)


_UNUSED_FILE_WIDE = re.compile(r"suppression of (.+) suppresses nothing in this file$")


def explain_unused(finding: Finding, moved: list[Finding]) -> Finding:
    """``finding`` -- an ``RC001`` of a context file whose rule a finding moved onto the
    file (``moved``) has -- with the reason the comment suppresses nothing there: those
    findings are the recipes' (found and filtered while each recipe is checked, where a
    comment in this file does not reach). Any other finding as it is."""
    match = _UNUSED_FILE_WIDE.match(finding.message) if finding.rule == "RC001" else None
    if match is None:
        return finding
    reached = sorted({f.rule for f in moved for selector in match.group(1).split(", ")
                      if matches(selector, f.rule)})
    if not reached:
        return finding
    return dataclasses.replace(
        finding, message=f"{finding.message}: the {', '.join(reached)} finding(s) shown on "
        "this file are findings of the recipes whose commands use its lists (each is "
        "checked as part of its recipe), and a comment in this file does not suppress a "
        "recipe's findings", hint="fix the list item the finding names (a comment in the "
        "recipe that selects it, on its line, would suppress it there)")


def _tree(doc: DocumentResult) -> tuple[str | None, str | None]:
    return doc.provenance.repository, doc.provenance.commit


def target_data(checked: CheckedContext, doc: DocumentResult) -> object:
    """The data of context document ``doc`` (for the identities of what moves there)."""
    return checked[_tree(doc)][doc.path].data


def on_context_file(finding: Finding, cause: Related, doc: LoadedDocument) -> Finding:
    """``finding`` of a recipe, reported at ``cause`` in the context file ``doc``: at the
    list item, its message led by the recipe's path (instead of the file's, which the
    layer's label names), with the recipe's selecting line as a related location."""
    pointer = cause.pointer or ""
    span = doc.source_map.span(pointer) if pointer else None
    line, column = (span.line, span.column) if span else (cause.line, 1)
    why = SETS_MINIMUM if finding.pointer == "/model/min_vllm_version" else SELECTS
    related = (Related(finding.line, why, finding.path),
               *(r if r.path else dataclasses.replace(r, path=finding.path)
                 for r in finding.related if r is not cause))
    return dataclasses.replace(
        finding, path=doc.path, pointer=pointer, line=line, column=column,
        end_line=span.end_line if span else None, end_column=span.end_column if span else None,
        message=f"{finding.path}: {finding.message.removeprefix(doc.path + ' ')}",
        related=related, identity=None, aliases=())
