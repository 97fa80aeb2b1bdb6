"""``--format text``: findings grouped by file, ``path:line:col severity RULE message``
with a hint line; ANSI colour only when the stream is a terminal (and ``NO_COLOR`` is
unset, https://no-color.org)."""

from __future__ import annotations

import os
from typing import TextIO

from validator.checker import RunResult
from validator.findings import Finding, Severity, printable

_COLOURS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.INFO: "\033[36m"}
_RESET = "\033[0m"
_DIM = "\033[2m"


class TextReporter:
    """Human-readable report for terminals and logs."""

    def __init__(self, colour: bool | None = None) -> None:
        self.colour = colour

    def write(self, result: RunResult, stream: TextIO) -> None:
        """Write every document's findings, then a one-line summary."""
        colour = self.colour
        if colour is None:
            colour = stream.isatty() and "NO_COLOR" not in os.environ
        for doc in result.documents:
            if not doc.findings and not doc.fixed:
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
        s = result.summary()
        stream.write(
            f"{s['documents']} file(s) checked: {s['errors']} error(s), "
            f"{s['warnings']} warning(s), {s['infos']} info(s)\n"
        )
        if result.has_baseline():
            b = result.baseline_counts()
            stream.write(f"against the merge base: {b['new']} new, {b['existing']} existing, "
                         f"{b['fixed']} fixed\n")
        for msg in result.internal_errors:
            stream.write(f"internal error: {printable(msg)}\n")

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
