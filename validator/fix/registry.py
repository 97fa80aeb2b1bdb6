"""The fix of each fixable rule, registered with :func:`fixer` next to the other fixes of
its rule, in the rule's module of ``validator/rules/<family>/``.

A fix function gets a :class:`FixRequest` (the loaded document, a position index of its
text, the finding, every finding of the document, the context) and returns the
:class:`~validator.fix.model.Fix` that removes the finding, or raises
:class:`~validator.fix.spans.NotApplicable` saying why it cannot do so safely.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from validator.findings import Finding
from validator.fix.model import Applicability, DataChange, Edit, Fix, TextIndex
from validator.rules.metadata import declare_fix

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


@dataclass(frozen=True)
class FixRequest:
    """What a fix function is given."""

    doc: LoadedDocument
    index: TextIndex
    finding: Finding
    findings: Sequence[Finding]
    context: Context


FixResult = tuple[str, Sequence[Edit], Sequence[DataChange]]
"""What a fix function returns: (title, edits, data changes)."""
FixFn = Callable[[FixRequest], FixResult]
"""Returns a :data:`FixResult`; raises ``NotApplicable``."""


@dataclass(frozen=True)
class FixSpec:
    """The registered fix of one rule."""

    rule: str
    applicability: Applicability
    summary: str
    fn: FixFn

    def make(self, request: FixRequest) -> Fix:
        """Run the fix function on one finding (``NotApplicable`` propagates)."""
        title, edits, changes = self.fn(request)
        return Fix(self.rule, request.finding.line, self.applicability, title, tuple(edits),
                   tuple(changes))


FIXES: dict[str, FixSpec] = {}


def fixer(*rule_ids: str, applicability: Applicability,
          summary: str) -> Callable[[FixFn], FixFn]:
    """Register ``fn`` as the fix of ``rule_ids`` (and declare them fixable in the rule
    catalogue, :data:`validator.rules.metadata.FIXABLE`)."""

    def wrap(fn: FixFn) -> FixFn:
        for rule_id in rule_ids:
            declare_fix(rule_id, applicability.value)
            FIXES[rule_id] = FixSpec(rule_id, applicability, summary, fn)
        return fn

    return wrap


_BACKTICKED = re.compile(r"`([^`]+)`")


def backticked(text: str) -> list[str]:
    """The ``code`` spans of a finding's message or hint, in order."""
    return _BACKTICKED.findall(text)
