"""``--format github``: GitHub Actions workflow commands, so findings show as annotations
on the pull request's diff.

Each finding becomes ``::error file=F,line=L,col=C,endLine=E,endColumn=K,title=T::MESSAGE``
(``warning`` for warnings, ``notice`` for infos), grouped per file with
``::group::``/``::endgroup::``.

Escaping follows the Actions toolkit (``@actions/core`` ``command.ts``, ``escapeData`` and
``escapeProperty``): in the message ``%`` -> ``%25``, ``\\r`` -> ``%0D``, ``\\n`` -> ``%0A``;
in property values additionally ``:`` -> ``%3A`` and ``,`` -> ``%2C``. Every line this
reporter writes starts with text it chose, so nothing taken from a recipe (a value quoted
in a message, a file name) can start a workflow command of its own.

GitHub shows at most 10 error, 10 warning and 10 notice annotations per step
(docs.github.com, "Workflow commands for GitHub Actions", and the runner's annotation
limits); findings past those caps are written as plain log lines, and a closing line says
how many were not annotated and that the job summary (``--format markdown``) lists all.
``col``/``endColumn`` are only sent for single-line regions: the toolkit's
``AnnotationProperties`` forbids columns when ``line`` and ``endLine`` differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TextIO

from validator.checker import RunResult
from validator.findings import Finding, Severity, printable
from validator.report.text import counts_line

ANNOTATION_LIMIT = 10
"""Annotations of one kind (error, warning, notice) GitHub displays per step."""

COMMANDS: Mapping[Severity, str] = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "notice",
}
"""Severity -> workflow command name."""


def escape_data(text: str) -> str:
    """Escape a workflow command's message (toolkit ``escapeData``); other control and
    format characters (ESC, NUL, bidi overrides) are written as ``\\uXXXX`` first
    (:func:`validator.findings.printable`)."""
    text = printable(text, keep="\r\n")
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command's property value (toolkit ``escapeProperty``)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation_properties(finding: Finding, path: str, title: str) -> dict[str, str]:
    """The ``file``/``line``/``col``/``endLine``/``endColumn``/``title`` properties of
    ``finding`` (unescaped; ``path`` as GitHub should resolve it, relative to the
    repository root). Unknown positions (line 0) are left out; columns are only given for
    regions on one line."""
    props: dict[str, str] = {"file": path}
    if finding.line > 0:
        props["line"] = str(finding.line)
        end_line = finding.end_line
        one_line = end_line is None or end_line == finding.line
        if end_line is not None and end_line > finding.line:
            # libyaml ends a block at the start of the next line: that line is not part of it
            last = end_line - 1 if finding.end_column == 1 else end_line
            if last > finding.line:
                props["endLine"] = str(last)
            else:
                one_line = True
        if one_line and finding.column > 0:
            props["col"] = str(finding.column)
            if end_line == finding.line and finding.end_column:
                props["endLine"] = str(finding.line)
                # SARIF/libyaml ends are exclusive, the toolkit's endColumn is the last
                # column of the highlight
                props["endColumn"] = str(max(finding.column, finding.end_column - 1))
    props["title"] = title
    return props


def workflow_command(command: str, properties: Mapping[str, str], message: str) -> str:
    """One escaped ``::command k=v,...::message`` line (no trailing newline)."""
    props = ",".join(f"{k}={escape_property(v)}" for k, v in properties.items())
    return f"::{command} {props}::{escape_data(message)}" if props else \
        f"::{command}::{escape_data(message)}"


def finding_text(finding: Finding) -> str:
    """Message and hint of ``finding`` as one text (hint on its own line)."""
    text = finding.message
    for rel in finding.related:
        text += f"\nsee {rel.path or finding.path}:{rel.line}: {rel.message}"
    if finding.hint:
        text += f"\nhint: {finding.hint}"
    return text


def plain_text(text: str) -> str:
    """``text`` on one log line: line breaks become ``"; "``, so that text quoted from a
    recipe can never begin a line (and so never a workflow command), and every other
    control or invisible character (ESC, BEL, BS, NEL, U+2028, bidi overrides) is written
    as ``\\uXXXX`` (:func:`validator.findings.printable`)."""
    return printable("; ".join(text.replace("\r\n", "\n").replace("\r", "\n").split("\n")))


class GithubReporter:
    """Workflow-command annotations, capped per kind as GitHub displays them.

    Args:
        path_prefix: prepended to every document path so that ``file=`` is relative to
            the repository root (``GITHUB_WORKSPACE``) when the recipes are checked in a
            sub-folder; ``""`` when they are the repository root.
        limit: annotations per kind (default :data:`ANNOTATION_LIMIT`).
        titles: rule id -> rule summary, for annotation titles (default: the registry).
        summary: whether the run writes a job summary, where the note on findings past
            the limit sends the reader (else: to the plain lines of this log).
    """

    def __init__(self, path_prefix: str = "", limit: int = ANNOTATION_LIMIT,
                 titles: Mapping[str, str] | None = None, *, summary: bool = True) -> None:
        self.path_prefix = path_prefix.strip("/") + "/" if path_prefix.strip("/") else ""
        self.limit = limit
        self._titles = titles
        self.summary = summary

    def _title(self, rule_id: str) -> str:
        if self._titles is None:
            from validator.rule_index import all_rules

            self._titles = {r.id: r.summary for r in all_rules()}
        summary = self._titles.get(rule_id)
        return f"{rule_id}: {summary}" if summary else rule_id

    def write(self, result: RunResult, stream: TextIO) -> None:
        """Write one group per document with findings, then the overflow note."""
        shown = dict.fromkeys(COMMANDS.values(), 0)
        hidden = dict.fromkeys(COMMANDS.values(), 0)
        for doc in sorted(result.documents, key=lambda d: d.path):
            if not doc.findings:
                continue
            path = self.path_prefix + doc.path
            stream.write(f"::group::{escape_data(path)}\n")
            for f in sorted(doc.findings, key=Finding.sort_key):
                command = COMMANDS[f.severity]
                if f.baseline == "unchanged":  # PR mode: already at the base, not annotated
                    stream.write(f"{escape_data(path)}:{f.line}:{f.column}: {f.severity.value}"
                                 f" {f.rule} (existing at the base) "
                                 f"{plain_text(finding_text(f))}\n")
                elif shown[command] < self.limit:
                    shown[command] += 1
                    props = annotation_properties(f, path, self._title(f.rule))
                    stream.write(workflow_command(command, props, finding_text(f)) + "\n")
                else:
                    hidden[command] += 1
                    stream.write(f"{escape_data(path)}:{f.line}:{f.column}: "
                                 f"{f.severity.value} {f.rule} {plain_text(finding_text(f))}\n")
            stream.write("::endgroup::\n")
        stream.write(f"recipe-check: {counts_line(result)}\n")
        if result.has_baseline():
            b = result.baseline_counts()
            stream.write(f"recipe-check: against the merge base: {b['new']} new, "
                         f"{b['existing']} existing (not annotated), {b['fixed']} fixed\n")
        more = [f"{n} {kind}(s)" for kind, n in hidden.items() if n]
        if more:
            where = ("see the job summary for every finding" if self.summary else
                     "each is a plain line of this log (no job summary is written: "
                     "--summary FILE or $GITHUB_STEP_SUMMARY)")
            stream.write(f"recipe-check: {', '.join(more)} more not annotated (GitHub shows "
                         f"{self.limit} of each kind per step); {where}\n")
        for msg in result.internal_errors:
            stream.write(f"::error title=recipe-check internal error::{escape_data(msg)}\n")
