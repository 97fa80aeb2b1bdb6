"""``--format text``: findings grouped by file, ``path:line:col severity RULE message``
with a hint line; ANSI colour only when the stream is a terminal (and ``NO_COLOR`` is
unset, https://no-color.org)."""

from __future__ import annotations

from typing import TextIO

from validator.checker import RunResult
from validator.findings import Finding, Severity, printable
from validator.report.environment import NO_COLOR, report_environment

_COLOURS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.INFO: "\033[36m"}
_RESET = "\033[0m"
_DIM = "\033[2m"


def counts_line(result: RunResult) -> str:
    """``N file(s) checked: E error(s), W warning(s), I info(s)``; in PR mode the errors
    also say how many are new, and the line ends with the verdict and why, so that
    errors that are all at the merge base read as a pass (``--fail-on new``) and not
    as a failure the exit code contradicts."""
    s = result.summary()
    errors = f"{s['errors']} error(s)"
    if result.has_baseline():
        new = sum(f.severity is Severity.ERROR and f.baseline != "unchanged"
                  for f in result.all_findings())
        errors += f" ({new} new)"
    line = (f"{s['documents']} file(s) checked: {errors}, {s['warnings']} warning(s), "
            f"{s['infos']} info(s)")
    return line + (f": {verdict(result, s['errors'])}" if result.has_baseline() else "")


def verdict(result: RunResult, errors: int) -> str:
    """``passing``/``failing``/``crashed`` with the reason, under the run's ``fail_on``."""
    if result.internal_errors:
        return "crashed (a check raised an internal error)"
    failing = len(result.failing())
    if result.fail_on != "new":
        return f"failing (--fail-on {result.fail_on})" if failing else "passing"
    if failing:
        return f"failing (--fail-on new: {failing} error(s) this change introduces)"
    if errors:
        return (f"passing (--fail-on new: the {errors} error(s) were at the merge base "
                "already)")
    return "passing"


class TextReporter:
    """Human-readable report for terminals and logs."""

    def __init__(self, colour: bool | None = None) -> None:
        self.colour = colour

    def write(self, result: RunResult, stream: TextIO) -> None:
        """Write every document's findings, then a one-line summary."""
        colour = self.colour
        if colour is None:
            colour = stream.isatty() and NO_COLOR not in report_environment()
        for doc in result.documents:
            if not doc.findings and not doc.fixed and not doc.hidden:
                continue
            rev = doc.provenance.commit
            header = printable(doc.path) + (f" @ {rev}" if rev else "")
            if doc.provenance.resolved_from:
                header += f" (resolved from {printable(doc.provenance.resolved_from)})"
            stream.write(header + "\n")
            for f in doc.findings:
                sev = f.severity.value
                if colour:
                    sev = f"{_COLOURS[f.severity]}{sev}{_RESET}"
                existing = " (existing at the base)" if f.baseline == "unchanged" else ""
                stream.write(f"{printable(f.path)}:{f.line}:{f.column}: {sev} {f.rule}"
                             f"{existing} {printable(f.message)}\n")
                for rel in f.related:
                    where = printable(f"{rel.path or f.path}:{rel.line}")
                    stream.write(f"    see {where}: {printable(rel.message)}\n")
                if f.hint:
                    hint = f"    hint: {printable(f.hint)}"
                    stream.write((f"{_DIM}{hint}{_RESET}" if colour else hint) + "\n")
            self._write_fixed(doc.fixed, stream)
            self._write_hidden(doc.hidden, stream)
        stream.write(counts_line(result) + "\n")
        if result.has_baseline():
            b = result.baseline_counts()
            hidden = (f", {b['hidden']} hidden at the head (suppressed, not loaded or "
                      "context removed), not fixed") if b.get("hidden") else ""
            stream.write(f"against the merge base: {b['new']} new, {b['existing']} existing, "
                         f"{b['fixed']} fixed{hidden}\n")
        for msg in result.internal_errors:
            stream.write(f"internal error: {printable(msg)}\n")

    @staticmethod
    def _write_hidden(hidden: list[Finding], stream: TextIO) -> None:
        """PR mode: findings of the merge base the head hides without fixing them."""
        if not hidden:
            return
        stream.write(f"not reported at the head, not fixed ({len(hidden)}; lines as at the "
                     "base):\n")
        for f in hidden:
            stream.write(f"{printable(f.path)}:{f.line}:{f.column}: hidden {f.rule} "
                         f"(was {f.severity.value}) {printable(f.message)}\n")

    @staticmethod
    def _write_fixed(fixed: list[Finding], stream: TextIO) -> None:
        """PR mode: the findings of the merge base the head no longer has, at their line
        in the base's file, each with the severity it had there."""
        if not fixed:
            return
        stream.write(f"fixed since the merge base ({len(fixed)}; lines as at the base):\n")
        for f in fixed:
            stream.write(f"{printable(f.path)}:{f.line}:{f.column}: fixed {f.rule} "
                         f"(was {f.severity.value}) {printable(f.message)}\n")
