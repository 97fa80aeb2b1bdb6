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
(the three words are SARIF 2.1.0's ``baselineState`` values, section 3.27.24) -- unless
the head only hides them: a suppression comment of the head names the rule, the head's
file does not load, or the head removes a file or folder the site's build reads
(``taxonomy.yaml``, ``strategies/``, ``kv_store/``: reported itself as ``REF030``) and the
rule reads the context files or looks names up in the root; those are
:attr:`DocumentResult.hidden`, not counted fixed.

Symmetrically, a file that does not load at the merge base (:data:`UNLOADED`) was not
judged there, so its findings cannot be matched with the base's: the head's findings are
placed by the lines of the text, which the base still has even though it does not load
(:func:`not_judged_at_base`). A finding on lines the change leaves as they were is
``"unchanged"``, its message saying it was not judged at the merge base: the change that
makes the file load shows the defects the loader's error hid, it does not introduce them.
A finding on a line the change adds or edits (a line diff of the base's bytes to the
head's, :func:`edited_lines`) is ``"new"``: the change wrote it. A finding of a rule no
suppression comment silences (:func:`validator.suppress.suppressible`: shell code in a
command, a script fetched over plain HTTP, a context file or quickstart writing over
another's) is ``"new"`` wherever it is: the base's file did not load, so the site never
rendered it, and the change that makes it load is what publishes it (a file broken by one
change and given shell code by a second would otherwise let a third, repairing only the
syntax, through). The head's own loader errors, when it does not load either, stay
``"unchanged"``: the file did not load before the change.

A finding below a mapping key the change renames (a variant, a feature) is matched with
the base's under the old key (:func:`validator.pr.renamed_keys.carry_renamed`): existing,
and not fixed.

The rendered configurations a finding names (``(on h200 · fp8 · multi_node_tp and 11
more)``, ``(in no command the site renders)``) are left out of the comparison, and copies
of one finding at one line count once: a change that adds a hardware profile or a
variant changes which configurations an existing problem reaches, not whether the
problem is new.

A finding whose cause is the argument list of a context file (a strategy's
``vllm_args``, a taxonomy KV offload option: the finding's related location is in that
file) belongs to that file. When the change edits that file, the file is checked and the
finding is reported on it (:func:`validator.context_findings.relocate`), new when the
file's line is. When the change leaves that file alone, the finding stays on the recipe
and is ``"unchanged"`` even on a recipe the change adds or edits: the recipe reaches a
defect the file already has, and the file's author, not the recipe's, fixes it
(:func:`context_caused`) -- unless the finding says the file's token needs a release above
the recipe's minimum (:data:`~validator.findings.FLOOR`). Such a finding is about the pair,
not the file: a new one (the recipe at the base did not have that defect,
:func:`compare`) means the change made the pair -- it added the recipe, selected the
strategy, opted into the KV offload option or lowered the recipe's minimum -- so it is
new. So is a new finding that the recipe and the file do not fit together at all
(:data:`~validator.findings.PAIR`: ``REF033``, a strategy meant for another model
architecture): the change added the recipe, selected the strategy or changed the recipe's
architecture.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Collection, Mapping, Sequence

from validator.checker import DocumentResult, RunResult
from validator.config import matches
from validator.context_findings import context_cause
from validator.findings import MADE_BY_PAIR, Finding, Severity
from validator.identity import Defect, defect_of, match
from validator.pr.renamed_keys import carry_renamed
from validator.pr.select import context_kind
from validator.rules.metadata import CONTEXT_FILES, RULES
from validator.rules.ref.removed_inputs import describe as describe_removed
from validator.suppress import directives, suppressible


def mark(head: RunResult, base: RunResult, base_path: Mapping[str, str],
         changed: Collection[str] | None = None,
         head_bytes: Mapping[str, bytes] | None = None,
         removed: Sequence[str] = (), base_bytes: Mapping[str, bytes] | None = None
         ) -> None:
    """Set ``baseline`` on every finding of ``head`` and fill each document's ``fixed``
    list, comparing with ``base``.

    Args:
        head: the result at the head (changed in place).
        base: the result at the merge base, of the same selection.
        base_path: head path -> path at the base, for renamed files (others: same path).
        changed: every path the change touches (head and base names); a new finding
            caused by a context file not among them is ``"unchanged"``
            (:func:`context_caused`). ``None``: no base to compare with, none is.
        head_bytes: path -> the head's bytes of each checked file: a finding gone at the
            head that a suppression comment there names is ``hidden``, not fixed
            (:func:`not_fixed`).
        removed: the files and folders the site's build reads that the head removes
            (``REF030``): a base finding of a rule reading them that the head no longer
            makes is ``hidden``, not fixed (:func:`reads_context`).
        base_bytes: path at the base -> the base's bytes of each checked file: a head
            finding of a file that does not load at the base is new when it is on a line
            the change adds or edits (:func:`not_judged_at_base`).
    """
    at_base: dict[str, DocumentResult] = {d.path: d for d in base.documents}
    base_bytes = base_bytes or {}
    for doc in head.documents:
        base_name = base_path.get(doc.path, doc.path)
        old = at_base.get(base_name)
        doc.findings, gone = compare(old.findings if old else [], doc.findings,
                                     doc.path)
        doc.findings, gone = carry_renamed(doc.findings, gone, base_bytes.get(base_name),
                                           (head_bytes or {}).get(doc.path), doc.path)
        if old is not None and any(f.rule in UNLOADED for f in old.findings):
            edited = edited_lines(base_bytes.get(base_name), (head_bytes or {}).get(doc.path))
            doc.findings = [not_judged_at_base(f, edited) for f in doc.findings]
        why = not_fixed(doc, (head_bytes or {}).get(doc.path), removed)
        reasons = [(f, why(f)) for f in gone]
        doc.fixed = [f for f, reason in reasons if reason is None]
        doc.hidden = [dataclasses.replace(f, message=f"{f.message} [{reason}]")
                      for f, reason in reasons if reason is not None]
        if changed is not None:
            doc.findings = [dataclasses.replace(f, baseline="unchanged")
                            if f.baseline == "new" and f.reason not in MADE_BY_PAIR
                            and context_caused(f, changed) else f
                            for f in doc.findings]
    head.context["baseline"] = {"compared_with": "merge base",
                                "documents_at_base": len(base.documents),
                                **head.baseline_counts()}


def compare(old: list[Finding], new: list[Finding],
            path: str | None = None) -> tuple[list[Finding], list[Finding]]:
    """``(new findings marked "new"/"unchanged", old findings gone, marked "absent")``.

    Findings are matched by identity as a multiset (:func:`validator.identity.match`): of
    one defect at three places at the base and two at the head, both at the head are
    unchanged and the third is fixed. A finding whose rule says the token needs a release
    above the configuration's minimum (reason :data:`~validator.findings.FLOOR`) is about
    the minimum: another copy of one the base has (the same rule group and token in the
    same document, :func:`validator.identity.defect_of`: in another argument list,
    whatever releases its message names; not in another guide command, which a reader
    copies on its own) is that defect, not a new one --
    when the base's copy was at least as severe: an error whose token the base had only
    in warnings (a KV offload option the recipe now opts into, where the base reached the
    token only through options it never chose) is new.
    ``path``: the head's path of the document (a renamed file keeps its defects).
    """
    kept, gone = match(old, new)
    floors: dict[Defect | None, int] = {}  # a defect -> its most severe rank at the base
    for f in old:
        if (defect := defect_of(f, path)) is not None:
            floors[defect] = max(floors.get(defect, -1), _RANK[f.severity])
    marked = [dataclasses.replace(f, baseline="unchanged" if k or (
                  floors.get(defect_of(f, path), -1) >= _RANK[f.severity]) else "new")
              for f, k in zip(new, kept, strict=True)]
    fixed = [dataclasses.replace(f, baseline="absent")
             for f, g in zip(old, gone, strict=True) if g]
    return marked, fixed


_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}
"""Severities in order: a base copy of a defect makes a head copy existing only when it
was at least as severe (:func:`compare`)."""

UNLOADED = frozenset({"YAML001", "YAML005", "YAML006"})
"""Loader findings of a file that does not load (not YAML, not one mapping, not UTF-8):
no rule judged it, so a finding the merge base had is not fixed there."""


NOT_JUDGED_AT_BASE = ("not judged at the merge base, where the file does not load: counted "
                      "existing, not new")
EDITED_AT_HEAD = ("not judged at the merge base, where the file does not load: new, on a "
                  "line the change adds or edits")
NEVER_EXISTING = ("not judged at the merge base, where the file does not load: new, as a "
                  "rule no suppression comment silences")


def not_judged_at_base(finding: Finding, edited: Collection[int] | None) -> Finding:
    """``finding`` (marked by :func:`compare`) of a file that did not load at the merge
    base (:data:`UNLOADED`), where no rule judged it. ``edited``: the head's 1-based
    lines the change adds or edits (:func:`edited_lines`; ``None``: the base's or the
    head's text is not at hand, and every line counts as edited).

    A new finding stays ``"new"`` when its rule cannot be suppressed
    (:func:`~validator.suppress.suppressible`) or it is on an edited line (its line span,
    or a related line of the same file); the head's own loader error stays
    ``"unchanged"`` (the file did not load before either), as does a finding on lines
    the change leaves as they were, or with no line (0): the defects were there, hidden by
    the loader's error. Each says so in its message."""
    if finding.baseline != "new":
        return finding
    if not suppressible(finding.rule):
        note, state = NEVER_EXISTING, "new"
    elif finding.rule not in UNLOADED and _on_edited_line(finding, edited):
        note, state = EDITED_AT_HEAD, "new"
    else:
        note, state = NOT_JUDGED_AT_BASE, "unchanged"
    return dataclasses.replace(finding, baseline=state, message=f"{finding.message} [{note}]")


def _on_edited_line(finding: Finding, edited: Collection[int] | None) -> bool:
    if finding.line <= 0:
        return False
    if edited is None:
        return True
    last = max(finding.line, finding.end_line or 0)
    lines = [*range(finding.line, last + 1), *(r.line for r in finding.related
                                                if r.path is None)]
    return any(line in edited for line in lines)


def edited_lines(base: bytes | None, head: bytes | None) -> frozenset[int] | None:
    """The 1-based lines of ``head`` that a line diff of ``base`` to ``head`` adds or
    replaces (lines broken at LF, CR LF and CR, as findings count them), or ``None`` when
    either text is missing. The lines both texts start and end with are kept as they
    are; between them, past :data:`DIFF_CELLS` (line pairs a diff of both middles would
    weigh: a hostile file of repeated lines makes a diff quadratic), every line of the
    head's middle counts as edited."""
    if base is None or head is None:
        return None
    old, new = base.splitlines(), head.splitlines()
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end = 0
    while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    old, new = old[start:len(old) - end], new[start:len(new) - end]
    if len(old) * len(new) > DIFF_CELLS:
        return frozenset(range(start + 1, start + len(new) + 1))
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return frozenset(start + line + 1 for tag, _i1, _i2, j1, j2 in matcher.get_opcodes()
                     if tag in ("replace", "insert") for line in range(j1, j2))


DIFF_CELLS = 1_000_000
"""Past this product of the two texts' differing middles (in lines), :func:`edited_lines`
counts the head's whole middle as edited rather than diffing it."""


def not_fixed(doc: DocumentResult, data: bytes | None,
              removed: Sequence[str] = ()) -> Callable[[Finding], str | None]:
    """Why a finding of the merge base that ``doc`` (the head's result, of bytes ``data``)
    no longer reports is not fixed, or ``None`` when it is: the head's file does not load
    (:data:`UNLOADED`), the head removes a file or folder the site's build reads
    (``removed``) and the finding's rule reads the context files, or a suppression
    comment of the head names its rule."""
    if any(f.rule in UNLOADED for f in doc.findings):
        return lambda _f: "not judged: the file does not load at the head"
    comments = directives(data) if data else []
    named = [s for d in comments for s in d.selectors]

    def why(finding: Finding) -> str | None:
        if removed and reads_context(finding.rule):
            return describe_removed(removed)
        if suppressible(finding.rule) and any(matches(s, finding.rule) for s in named):
            return "suppressed at the head, not fixed"
        return None
    return why


def reads_context(rule_id: str) -> bool:
    """Whether rule ``rule_id`` reads the taxonomy, the strategies or the kv-store files,
    or looks names up in the recipes root (skipped without a taxonomy); an unknown rule
    is taken to."""
    found = RULES.get(rule_id)
    return found is None or found.needs_root or bool(found.reads & CONTEXT_FILES)


def context_caused(finding: Finding, changed: Collection[str]) -> str | None:
    """The context file (a strategy, the taxonomy, a kv-store deployment) whose list
    causes ``finding`` (:func:`validator.context_findings.context_cause`), when the change
    leaves every context file it names alone, else ``None``. (A changed context file is
    checked, and the findings it causes are reported on it:
    :func:`validator.context_findings.relocate`.)"""
    cause = context_cause(finding, lambda p: context_kind(p) is not None and p not in changed)
    return None if cause is None else str(cause.path)
