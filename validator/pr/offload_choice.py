"""A KV offload option a pull request adds or edits is chosen by the change.

``check`` reports a defect of a taxonomy KV offload option's ``args`` that only a
recipe's release range shows (a flag newer than the recipe's minimum) as a warning when
the recipe does not list the option: the site offers it there (no ``requires_opt_in``),
but no line of the recipe chose it (:attr:`validator.findings.Finding.unchosen`). A
change that adds or edits the option chose it, for every recipe the site offers it to, as
a change to a strategy's or a kv-store deployment's list does; ``pr`` checks the changed
taxonomy and reports those findings on it (:func:`validator.context_findings.relocate`),
and :func:`chosen_by_change` gives them back their rule's severity there, at the head and
at the merge base alike, before the two are compared: a flag the change adds is a new
error, one the option had already is an existing one (and an option the change leaves
alone keeps its warnings).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

from validator.checker import RunResult
from validator.context import TAXONOMY
from validator.findings import Finding
from validator.policy import Policy
from validator.pr.entry_changes import SECTION_KINDS, EntryChange
from validator.rules.metadata import RULES
from validator.sourcemap import split_pointer

OPTION = SECTION_KINDS["kv_offload"]
"""The :attr:`EntryChange.kind` of a taxonomy KV offload option."""


def chosen_options(entries: Sequence[EntryChange]) -> frozenset[str]:
    """The keys of the taxonomy KV offload options a change adds or edits."""
    return frozenset(e.name for e in entries if e.kind == OPTION and e.source == TAXONOMY
                     and e.change in ("added", "changed"))


def chosen_by_change(result: RunResult, options: Collection[str], policy: Policy) -> None:
    """Give every :attr:`~validator.findings.Finding.unchosen` finding that ``result``
    reports on the taxonomy at one of ``options`` (its pointer is under
    ``/kv_offload/<key>/``) the severity its rule gives it (after ``--strict`` and the
    configuration's severities, ``policy``), in place."""
    if not options:
        return
    for doc in result.documents:
        if doc.path == TAXONOMY:
            doc.findings = [_chosen(f, policy) if f.unchosen and _option(f) in options
                            else f for f in doc.findings]


def _option(finding: Finding) -> str | None:
    """The KV offload option ``finding`` is on, else ``None``."""
    steps = split_pointer(finding.pointer) if finding.pointer.startswith("/") else []
    return steps[1] if len(steps) > 1 and steps[0] == "kv_offload" else None


def _chosen(finding: Finding, policy: Policy) -> Finding:
    rule = RULES[finding.rule]
    own = dataclasses.replace(finding, severity=rule.effective_severity(policy.strict),
                              unchosen=False)
    return dataclasses.replace(own, severity=policy.severity(own))
