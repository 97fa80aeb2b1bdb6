"""A run's :class:`~validator.config.Config` applied to the findings of one document.

:meth:`Policy.apply` is the one place where configuration and suppression comments change
findings; the checker calls it on every document it reports (recipes and context files).
In order: per-rule severity (then ``--strict``), ``select``/``ignore``, ``per-file-ignores``,
inline suppression comments (:mod:`validator.suppress`; never of the rules
:data:`~validator.rules.rc.unsuppressible.NOT_SUPPRESSIBLE_IDS` names),
then the ``RC`` findings about the comments themselves (subject to the same selection and
per-file ignores).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence

from validator.config import Config, matches, specificity
from validator.findings import Finding, Severity
from validator.globs import compile_glob
from validator.suppress import (
    IN_TEXT,
    MALFORMED,
    NOT_SUPPRESSIBLE,
    UNUSED,
    Directive,
    DirectiveKey,
    directives,
    suppressible,
)

_HINTS = {
    MALFORMED.id: "write ignore[ID, ...] or ignore-file[ID, ...]",
    IN_TEXT.id: "move it out of the string onto a comment line of its own (ignore-file[...] "
                "above the key for findings inside a block scalar)",
    NOT_SUPPRESSIBLE.id: "remove the rule from the comment and fix the value the finding "
                         "names",
}

ADDED_COMMENT = ("the change adds the comment that would silence it, and a pull request "
                 "does not silence its own findings: fix it, or a maintainer accepts it")
"""The hint a finding keeps in ``pr`` when only a suppression comment the change adds
would silence it (:class:`Policy`'s ``trusted``)."""


class Policy:
    """Applies one :class:`Config` (see the module docstring).

    Args:
        config: the run's configuration.
        strict: ``--strict`` (warnings count as errors, also after a severity override).
        trusted: ``pr``'s head: path -> the suppression comments the merge base's file
            has (:func:`~validator.suppress.directive_keys`). Only those silence
            findings; a finding only a comment the change adds would silence is kept, with
            the hint :data:`ADDED_COMMENT` (as ``.recipe-check.toml`` is read at the merge
            base, a pull request cannot switch checks off for itself). ``None``: every
            comment of the document applies.
    """

    def __init__(self, config: Config | None = None, *, strict: bool = False,
                 trusted: Callable[[str], frozenset[DirectiveKey]] | None = None) -> None:
        self.config = config or Config()
        self.strict = strict
        self.trusted = trusted
        self._select = ("ALL",) if self.config.select is None else self.config.select
        self._select += self.config.extend_select

    def selected(self, rule_id: str) -> bool:
        """Whether ``rule_id`` runs: its most specific match is a select, not an ignore."""
        s = specificity(self._select, rule_id)
        i = specificity(self.config.ignore, rule_id)
        return s is not None and (i is None or s > i)

    def severity(self, finding: Finding) -> Severity:
        """The finding's severity after the configured override and ``--strict``."""
        table = self.config.severity
        best = max((s for s in table if matches(s, finding.rule)), key=len, default=None)
        if best is None:
            return finding.severity
        sev = table[best]
        return Severity.ERROR if self.strict and sev is Severity.WARNING else sev

    def ignored_in(self, path: str, rule_id: str) -> bool:
        """Whether a ``per-file-ignores`` glob matching ``path`` names ``rule_id``."""
        return any(compile_glob(g).match(path) and any(matches(s, rule_id) for s in sels)
                   for g, sels in self.config.per_file_ignores)

    def keep(self, path: str, rule_id: str) -> bool:
        """Selected, and not ignored for ``path``."""
        return self.selected(rule_id) and not self.ignored_in(path, rule_id)

    def apply(self, path: str, findings: Iterable[Finding], data: bytes | None) -> list[Finding]:
        """The findings of document ``path`` as reported. ``data`` (the document's bytes)
        is searched for suppression comments; ``None`` for bytes not to be trusted."""
        out = []
        for f in findings:
            sev = self.severity(f)
            if self.keep(path, f.rule):
                out.append(f if sev is f.severity else dataclasses.replace(f, severity=sev))
        if not data:
            return out
        comments = directives(data)
        if not comments:
            return out
        applied, added = self._split(path, comments)
        kept = [f for f in out if not _suppressed(f, applied)]
        kept = [dataclasses.replace(f, hint=f"{ADDED_COMMENT}; {f.hint}" if f.hint
                                    else ADDED_COMMENT) if _suppressed(f, added) else f
                for f in kept]
        return kept + [f for f in self._comment_findings(path, comments)
                       if self.keep(path, f.rule) and not _suppressed(f, applied)]

    def _split(self, path: str, comments: list[Directive]
               ) -> tuple[list[Directive], list[Directive]]:
        """``(comments that apply, comments the change adds)`` (see ``trusted``)."""
        if self.trusted is None:
            return comments, []
        known = self.trusted(path)
        return ([d for d in comments if d.key in known],
                [d for d in comments if d.key not in known])

    def _comment_findings(self, path: str, comments: Sequence[Directive]) -> list[Finding]:
        out = []
        for d in comments:
            for rule_id, message in d.bad:
                hint = _HINTS.get(rule_id, "name the rule the finding shows (recipe-check "
                                  "rules)")
                out.append(self._finding(rule_id, path, d, message, hint))
            unused = [s for s in d.selectors if s not in d.used and self._ran(s, path)]
            if unused:
                where = "in this file" if d.file_wide else f"on line {d.covers}"
                out.append(self._finding(
                    UNUSED.id, path, d, f"suppression of {', '.join(unused)} suppresses "
                    f"nothing {where}", "remove it (or the ids that are no longer needed)"))
        return out

    def _finding(self, rule_id: str, path: str, d: Directive, message: str,
                 hint: str) -> Finding:
        """An ``RC`` finding at the comment, with its severity (``--strict`` and the
        configured override applied)."""
        from validator.rules.metadata import RULES

        base = Finding(rule_id, RULES[rule_id].effective_severity(self.strict), path, "",
                       d.line, d.column, message, hint)
        return dataclasses.replace(base, severity=self.severity(base))

    def _ran(self, selector: str, path: str) -> bool:
        """Whether some rule the selector names ran on ``path`` (otherwise a suppression of
        it cannot be known to be unused)."""
        from validator.rules.metadata import RULES

        return any(matches(selector, r) and self.keep(path, r) for r in RULES)


def _suppressed(finding: Finding, comments: Sequence[Directive]) -> bool:
    if not suppressible(finding.rule):
        return False
    hit = False
    for d in comments:
        if d.covers not in (0, finding.line):
            continue
        for s in d.selectors:
            if matches(s, finding.rule):
                d.used.add(s)
                hit = True
    return hit
