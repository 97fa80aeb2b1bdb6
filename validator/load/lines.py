"""Line numbers as GitHub, git and js-yaml (the site's YAML 1.2 reader) count them.

YAML 1.2, js-yaml and GitHub break lines at LF, CR LF and CR only. libyaml (a YAML 1.1
reader) also breaks at U+0085 NEXT LINE, U+2028 LINE SEPARATOR and U+2029 PARAGRAPH
SEPARATOR, and Python's :meth:`str.splitlines` at those and at U+000B, U+000C and
U+001C-U+001E too. One such character in a comment would shift every later line number
by one (and make the rest of its line look like a line of its own). Every line a finding
names is counted here: :func:`text_lines` splits a text as GitHub does, :func:`libyaml_lines`
as libyaml's marks count, and :class:`LineMap` turns a libyaml position into a GitHub one.
"""

from __future__ import annotations

import bisect
import dataclasses
import re

from validator.findings import Finding
from validator.sourcemap import SourceMap, Span

LIBYAML_ONLY_BREAKS = "\x85\u2028\u2029"
"""Characters libyaml reads as line breaks and YAML 1.2, js-yaml and GitHub do not."""

_BREAK = re.compile(r"\r\n|\r|\n")
_LIBYAML_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_SPLITLINES_ONLY = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
"""What :meth:`str.splitlines` breaks at besides LF, CR LF and CR."""


def text_lines(text: str) -> list[str]:
    """``text``'s lines without terminators, broken at LF, CR LF and CR only."""
    if _SPLITLINES_ONLY.search(text) is None:
        return text.splitlines()
    return _split(_BREAK, text)


def libyaml_lines(text: str) -> list[str]:
    """``text``'s lines as libyaml's marks number them (0-based ``mark.line``)."""
    if _SPLITLINES_ONLY.search(text) is None:
        return text.splitlines()
    return _split(_LIBYAML_BREAK, text)


def _split(pattern: re.Pattern[str], text: str) -> list[str]:
    parts = pattern.split(text)
    if parts and parts[-1] == "":
        parts.pop()  # as str.splitlines: a final terminator opens no line
    return parts


def replace_libyaml_line(text: str, index: int, new: str) -> str:
    """``text`` with libyaml's 0-based line ``index`` (without its terminator) replaced."""
    parts = re.split(f"({_LIBYAML_BREAK.pattern})", text)
    parts[2 * index] = new
    return "".join(parts)


class LineMap:
    """1-based libyaml ``(line, column)`` -> 1-based ``(line, column)`` of
    :func:`text_lines` (the identity for a text without :data:`LIBYAML_ONLY_BREAKS`)."""

    def __init__(self, text: str) -> None:
        self.active = any(ch in text for ch in LIBYAML_ONLY_BREAKS)
        self._libyaml = [0] + [m.end() for m in _LIBYAML_BREAK.finditer(text)] \
            if self.active else []
        self._github = [0] + [m.end() for m in _BREAK.finditer(text)] if self.active else []

    def position(self, line: int, column: int) -> tuple[int, int]:
        """Where libyaml's ``(line, column)`` stands in GitHub's lines."""
        if not self.active:
            return line, column
        start = self._libyaml[max(0, min(line, len(self._libyaml)) - 1)]
        index = start + column - 1
        number = bisect.bisect_right(self._github, index)
        return number, index - self._github[number - 1] + 1

    def finding(self, finding: Finding) -> Finding:
        """``finding`` with its positions moved to GitHub's lines."""
        if not self.active:
            return finding
        line, column = self.position(finding.line, finding.column)
        end: tuple[int | None, int | None] = (finding.end_line, finding.end_column)
        if finding.end_line is not None and finding.end_column is not None:
            end = self.position(finding.end_line, finding.end_column)
        return dataclasses.replace(finding, line=line, column=column, end_line=end[0],
                                   end_column=end[1])

    def source_map(self, source_map: SourceMap) -> None:
        """Move every span of ``source_map`` to GitHub's lines, in place."""
        if not self.active:
            return
        for spans in (source_map.values, source_map.keys):
            for pointer, span in spans.items():
                spans[pointer] = Span(*self.position(span.line, span.column),
                                      *self.position(span.end_line, span.end_column))
        for pointer, block in source_map.blocks.items():
            source_map.blocks[pointer] = dataclasses.replace(
                block, first_line=self.position(block.first_line, block.indent + 1)[0])


def value_column(lines: list[str], line: int, column: int, before: str) -> int:
    """The 1-based column of the first character after ``before`` in the scalar that
    starts at ``(line, column)`` of ``lines``: plain (or a block scalar's content line),
    single-quoted (``'`` doubled) or double-quoted (``before`` without escapes). When the
    file does not spell ``before`` there (an escape, a line break), ``column``."""
    if not before or not 1 <= line <= len(lines) or column < 1:
        return column
    raw = lines[line - 1][column - 1:]
    if raw.startswith(before) and not raw.startswith(("'", '"')):
        return column + len(before)
    single = "'" + before.replace("'", "''")
    if raw.startswith(single):
        return column + len(single)
    if raw.startswith('"' + before) and not any(c in before for c in '\\"'):
        return column + 1 + len(before)
    return column


def libyaml_offset_position(text: str, offset: int) -> tuple[int, int]:
    """1-based libyaml ``(line, column)`` of the UTF-8 byte ``offset`` of ``text`` (a
    libyaml reader error gives no mark, only the byte offset of the character it
    refused)."""
    before = text.encode("utf-8")[:offset].decode("utf-8", errors="replace")
    starts = [0] + [m.end() for m in _LIBYAML_BREAK.finditer(before)]
    return len(starts), len(before) - starts[-1] + 1
