"""New, existing and fixed findings: the head's findings against the merge base's.

PR mode checks the selected files twice, at the head and at the merge base (each with its
own taxonomy and strategies, exactly as ``check`` at that revision would), and compares
the two per file. Findings are the same finding when their
:meth:`~validator.findings.Finding.key` is equal (rule, JSON pointer and message with line
references blanked, as ``history`` compares revisions), counted as a multiset: an edit
above a finding moves its line but does not make it new.

Each head finding gets ``baseline`` ``"new"`` or ``"unchanged"``; findings of the base
that the head no longer has are kept in :attr:`DocumentResult.fixed` with ``"absent"``
(the three words are SARIF 2.1.0's ``baselineState`` values, section 3.27.24).

The rendered configurations a finding names (``(on h200 · fp8 · multi_node_tp and 11
more)``, ``(in no command the site renders)``) are left out of the comparison: a change
that adds a hardware profile or a variant changes which configurations an existing
problem reaches, not whether the problem is new (:func:`baseline_key`).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping

from validator.checker import DocumentResult, RunResult
from validator.findings import Finding, finding_key


def baseline_key(rule: str, pointer: str, message: str) -> tuple[str, str, str]:
    """What is compared between base and head: :func:`~validator.findings.finding_key`,
    which leaves out the rendered configurations a message names."""
    return finding_key(rule, pointer, message)


def _key(finding: Finding) -> tuple[str, str, str]:
    return baseline_key(finding.rule, finding.pointer, finding.message)


def mark(head: RunResult, base: RunResult, base_path: Mapping[str, str]) -> None:
    """Set ``baseline`` on every finding of ``head`` and fill each document's ``fixed``
    list, comparing with ``base``.

    Args:
        head: the result at the head (changed in place).
        base: the result at the merge base, of the same selection.
        base_path: head path -> path at the base, for renamed files (others: same path).
    """
    at_base: dict[str, DocumentResult] = {d.path: d for d in base.documents}
    for doc in head.documents:
        old = at_base.get(base_path.get(doc.path, doc.path))
        doc.findings, doc.fixed = compare(old.findings if old else [], doc.findings)
    head.context["baseline"] = {"compared_with": "merge base",
                                "documents_at_base": len(base.documents),
                                **head.baseline_counts()}


def compare(old: list[Finding], new: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """``(new findings marked "new"/"unchanged", old findings gone, marked "absent")``.

    Findings are matched by key as a multiset, in order: of three equal findings at the
    base and two at the head, both at the head are unchanged and the third is fixed.
    """
    old_keys = Counter(_key(f) for f in old)
    new_keys = Counter(_key(f) for f in new)
    marked = [dataclasses.replace(f, baseline="unchanged" if kept else "new")
              for f, kept in zip(new, _first(new, old_keys & new_keys), strict=True)]
    fixed = [dataclasses.replace(f, baseline="absent")
             for f, gone in zip(old, _first(old, old_keys - new_keys), strict=True) if gone]
    return marked, fixed


def _first(findings: list[Finding], counts: Counter[tuple[str, str, str]]) -> list[bool]:
    """For each finding, whether it is among the first ``counts[key]`` of its key."""
    left = Counter(counts)
    out = []
    for f in findings:
        k = _key(f)
        out.append(left[k] > 0)
        left[k] -= 1
    return out
