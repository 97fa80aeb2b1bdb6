"""New, existing and fixed findings: the head's findings against the merge base's.

PR mode checks the selected files twice, at the head and at the merge base (each with its
own taxonomy and strategies, exactly as ``check`` at that revision would), and compares
the two per file. Findings are the same finding when their identity is equal
(:mod:`validator.identity`: the rule or its group, what the finding is about, and where
by content: list items by what they hold, not their index), counted as a multiset: an
edit above a finding moves its line, an inserted or reordered list item moves its index,
a raised minimum rewords its message, and none of them makes it new.

Each head finding gets ``baseline`` ``"new"`` or ``"unchanged"``; findings of the base
that the head no longer has are kept in :attr:`DocumentResult.fixed` with ``"absent"``
(the three words are SARIF 2.1.0's ``baselineState`` values, section 3.27.24).

The rendered configurations a finding names (``(on h200 · fp8 · multi_node_tp and 11
more)``, ``(in no command the site renders)``) are left out of the comparison, and copies
of one finding at one line count once: a change that adds a hardware profile or a
variant changes which configurations an existing problem reaches, not whether the
problem is new.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from validator.checker import DocumentResult, RunResult
from validator.findings import Finding
from validator.identity import match


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

    Findings are matched by identity as a multiset (:func:`validator.identity.match`): of
    one defect at three places at the base and two at the head, both at the head are
    unchanged and the third is fixed.
    """
    kept, gone = match(old, new)
    marked = [dataclasses.replace(f, baseline="unchanged" if k else "new")
              for f, k in zip(new, kept, strict=True)]
    fixed = [dataclasses.replace(f, baseline="absent")
             for f, g in zip(old, gone, strict=True) if g]
    return marked, fixed
