"""The loaded document: a YAML file's text, data and source map, and the findings of
loading it (:func:`validator.load.load_yaml` makes it). Its own module, importing none of
the loader's, so that the loader's parts can name it without importing the loader.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from validator.findings import Finding
from validator.load.lines import text_lines, value_column
from validator.rules.metadata import Hit, Rule
from validator.sourcemap import SourceMap


@dataclass
class LoadedDocument:
    """A YAML file turned into data.

    Attributes:
        path: display path (repository-relative where known).
        text: the decoded text (BOM removed, line endings as in the file).
        data: plain JSON-compatible data (dict/list/str/int/float/bool/None), or ``None``
            when the file could not be loaded (see ``findings``).
        source_map: JSON Pointer -> positions.
        findings: ``YAML`` findings raised while loading.
        sha256: hex SHA-256 of the exact bytes read.
    """

    path: str
    text: str
    data: Any
    source_map: SourceMap
    findings: list[Finding] = field(default_factory=list)
    sha256: str = ""

    @property
    def ok(self) -> bool:
        """True when the file parsed into a mapping (checks can run)."""
        return isinstance(self.data, dict)

    def lines(self) -> list[str]:
        """The file's lines without line terminators (index 0 is line 1), as GitHub
        counts them (:func:`validator.load.lines.text_lines`)."""
        return text_lines(self.text)

    def finding(self, rule: Rule, hit: Hit, *, strict: bool = False) -> Finding:
        """Resolve ``hit`` of ``rule`` against this document's source map into a
        :class:`Finding`."""
        smap = self.source_map
        end_line: int | None = None
        end_col: int | None = None
        if hit.block_index is not None:
            line, col = smap.block_line(hit.pointer, hit.block_index)
        elif hit.on_key:
            line, col = smap.key_position(hit.pointer)
        else:
            span = smap.span(hit.pointer)
            if span is None:
                line, col = 1, 1
            else:
                line, col = span.line, span.column
                end_line, end_col = span.end_line, span.end_column
                if hit.value_after:
                    col = value_column(self.lines(), line, col, hit.value_after)
        return Finding(rule=rule.id, severity=rule.effective_severity(strict, hit.severity),
                       path=self.path, pointer=hit.pointer, line=line, column=col,
                       message=hit.message, hint=hit.hint, end_line=end_line, end_column=end_col,
                       related=hit.related, reason=hit.reason,
                       unchosen=hit.unchosen)

    def finding_at(self, rule: Rule, pointer: str, position: tuple[int, int], message: str,
                   hint: str | None = None, *, strict: bool = False) -> Finding:
        """A finding of ``rule`` at an explicit 1-based ``(line, column)`` (e.g. a parser
        error mark)."""
        return Finding(rule=rule.id, severity=rule.effective_severity(strict), path=self.path,
                       pointer=pointer, line=position[0], column=position[1],
                       message=message, hint=hint)
