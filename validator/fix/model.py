"""What a fix is: byte-span edits of the file's text plus the change they must make to
the loaded data.

A :class:`Fix` never rewrites a document: it replaces spans of its text (``Edit``) and
states, as :class:`DataChange` operations, what the loaded data must become. The engine
applies the edits, loads the result with the same YAML 1.2 loader every check uses, and
keeps the fix only when the new data equals the old data with exactly those changes (the
same data everywhere else). Outside the edited spans the text is untouched, so comments,
blank lines, quoting, key order, line endings, a BOM and the guide's block scalar stay
as they were.
"""

from __future__ import annotations

import copy
import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from validator.sourcemap import split_pointer

if TYPE_CHECKING:
    from validator.load import LoadedDocument


class Applicability(enum.StrEnum):
    """ruff's vocabulary: a *safe* fix keeps what the author clearly meant and is applied
    by ``--fix``; an *unsafe* fix changes what users get (a higher minimum vLLM, another
    image, a dropped flag) and needs ``--unsafe-fixes`` as well."""

    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` by ``replacement`` (offsets into the decoded text)."""

    start: int
    end: int
    replacement: str


@dataclass(frozen=True)
class SetValue:
    """The value at ``pointer`` becomes ``value``."""

    pointer: str
    value: Any

    def apply(self, data: Any) -> None:
        """Make the change on ``data`` in place."""
        *parents, last = split_pointer(self.pointer)
        container = _walk(data, parents)
        container[int(last) if isinstance(container, list) else last] = self.value


@dataclass(frozen=True)
class ReplaceItem:
    """Item ``index`` of the list at ``pointer`` is replaced by ``items`` (two items for a
    split, none for a removal)."""

    pointer: str
    index: int
    items: tuple[Any, ...]

    def apply(self, data: Any) -> None:
        """Make the change on ``data`` in place."""
        target = _walk(data, split_pointer(self.pointer))
        target[self.index:self.index + 1] = list(self.items)


@dataclass(frozen=True)
class ReplaceLine:
    """Line ``index`` (0-based, ``\\n``-separated) of the string at ``pointer`` (the
    guide) is replaced by ``lines``."""

    pointer: str
    index: int
    lines: tuple[str, ...]

    def apply(self, data: Any) -> None:
        """Make the change on ``data`` in place."""
        *parents, last = split_pointer(self.pointer)
        container = _walk(data, parents)
        lines = container[last].split("\n")
        lines[self.index:self.index + 1] = list(self.lines)
        container[last] = "\n".join(lines)


DataChange = SetValue | ReplaceItem | ReplaceLine


def through_aliases(doc: LoadedDocument, changes: Sequence[DataChange]) -> list[DataChange]:
    """``changes`` and, for each, the same change at every other pointer that reaches its
    YAML node through an alias (an edit of ``base_args: &ba [...]`` also changes what
    ``args: *ba`` loads as)."""
    spans = doc.source_map.values
    out = list(changes)
    for change in changes:
        span = spans.get(change.pointer)
        out += [replace(change, pointer=other) for other, at in spans.items()
                if at == span and other != change.pointer] if span is not None else []
    return out


def _walk(data: Any, tokens: Sequence[str]) -> Any:
    node = data
    for token in tokens:
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


def expected_data(data: Any, changes: Sequence[DataChange]) -> Any:
    """A deep copy of ``data`` with ``changes`` made, later positions first (so that a
    split or an inserted line does not move the index of an earlier change)."""
    out = copy.deepcopy(data)
    ordered = sorted(changes, key=lambda c: (c.pointer, getattr(c, "index", -1)), reverse=True)
    for change in ordered:
        change.apply(out)
    return out


@dataclass(frozen=True)
class Fix:
    """One fix of one finding.

    Attributes:
        rule: the rule whose finding it fixes.
        line: 1-based line of that finding.
        applicability: safe or unsafe.
        title: what it does, for the report ("quote `0.10`").
        edits: the text edits (never overlapping).
        changes: what the loaded data must become.
    """

    rule: str
    line: int
    applicability: Applicability
    title: str
    edits: tuple[Edit, ...]
    changes: tuple[DataChange, ...]

    @property
    def key(self) -> tuple[tuple[int, int, str], ...]:
        """Identity of the edits (two findings fixed by the same edit are one fix)."""
        return tuple((e.start, e.end, e.replacement) for e in self.edits)


@dataclass(frozen=True)
class Skip:
    """A finding whose rule has a fix that does not apply here, and why."""

    rule: str
    line: int
    reason: str


@dataclass
class DocumentFixes:
    """The outcome of fixing one document.

    Attributes:
        path: display path.
        original: the bytes read.
        fixed: the bytes after every fix applied (``original`` when nothing applied).
        applied: the fixes applied, in the order of the passes.
        skipped: fixable findings left as they are, with the reason.
        error: why the document was not fixed at all (does not parse, changed on disk).
        resolved: how many findings of the document as read are gone after the fixes
            (one fix can resolve several: a raised minimum).
    """

    path: str
    original: bytes
    fixed: bytes
    applied: list[Fix] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    error: str | None = None
    resolved: int = 0
    checked: Any = None
    """The check of ``fixed`` (:class:`validator.fix.engine.Checked`: its findings and
    install ranges, as ``check`` finds them in those bytes), when the loop made it;
    ``--fix``'s final check takes it rather than checking the bytes again."""

    @property
    def changed(self) -> bool:
        """Whether the fixes changed the bytes."""
        return self.fixed != self.original


_BREAK = re.compile(r"\r\n|[\r\n\x85\u2028\u2029]")


class TextIndex:
    """1-based ``(line, column)`` <-> offsets in a decoded text, with libyaml's line
    breaks (CR LF, CR, LF, NEL, LS, PS), as the source map's positions count them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        self.ends: list[int] = []
        for m in _BREAK.finditer(text):
            self.ends.append(m.start())
            self.starts.append(m.end())
        self.ends.append(len(text))

    def offset(self, line: int, column: int) -> int:
        """Offset of 1-based ``(line, column)``."""
        return self.starts[line - 1] + column - 1

    def line_span(self, line: int) -> tuple[int, int]:
        """(start, end) offsets of 1-based ``line`` without its line break."""
        return self.starts[line - 1], self.ends[line - 1]

    def line_text(self, line: int) -> str:
        """Text of 1-based ``line`` without its line break."""
        start, end = self.line_span(line)
        return self.text[start:end]

    def line_break(self, line: int) -> str:
        """The line break that ends ``line`` (the file's style: ``\\r\\n`` or ``\\n``)."""
        end = self.ends[line - 1]
        m = _BREAK.match(self.text, end)
        if m is not None:
            return m.group(0)
        return "\r\n" if "\r\n" in self.text else "\n"

    @property
    def line_count(self) -> int:
        """Number of lines (a final line break does not start a counted line)."""
        return len(self.starts)


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """``text`` with ``edits`` made (they must not overlap)."""
    out: list[str] = []
    pos = 0
    for edit in sorted(edits, key=lambda e: e.start):
        if edit.start < pos:
            raise ValueError("overlapping edits")
        out += [text[pos:edit.start], edit.replacement]
        pos = edit.end
    out.append(text[pos:])
    return "".join(out)
