"""Where a fix may edit: the exact source span of a scalar, of a list item, of a guide line.

Every helper reads the span from the loaded document's source map
(:class:`validator.sourcemap.SourceMap`), checks that the text there is what the data
says (so that an anchor, a tag, an escape sequence or a multi-line scalar is never
half-edited) and returns :class:`~validator.fix.model.Edit` s with the
:class:`~validator.fix.model.DataChange` they make, or the reason they cannot.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from validator.fix.model import Edit, ReplaceItem, ReplaceLine, SetValue, TextIndex
from validator.load import LoadedDocument, resolve_plain
from validator.sourcemap import pointer_value

GUIDE = "/guide"


_NOTHING = object()
"""What :func:`value_at` is given back where there is no value."""


class NotApplicable(Exception):
    """The fix cannot guarantee that only its own span changes; the message says why."""


@dataclass(frozen=True)
class ScalarSpan:
    """A one-line scalar: its offsets, its style (``"plain"``, ``'"'``, ``"'"``) and its
    inner text (between the quotes)."""

    start: int
    end: int
    style: str
    inner: str
    line: int


def value_at(doc: LoadedDocument, pointer: str) -> Any:
    """The loaded value at ``pointer`` (``NotApplicable`` when absent)."""
    node = pointer_value(doc.data, pointer, _NOTHING)
    if node is _NOTHING:
        raise NotApplicable(f"nothing at {pointer}")
    return node


def scalar_span(doc: LoadedDocument, index: TextIndex, pointer: str) -> ScalarSpan:
    """The span of the one-line scalar at ``pointer`` whose source text is exactly its
    value (plain), or its value between quotes without escapes.

    Raises:
        NotApplicable: no such scalar, or it spans lines, or its text is not its value.
    """
    span = doc.source_map.values.get(pointer)
    if span is None:
        raise NotApplicable(f"no node at {pointer}")
    if span.end_line != span.line:
        raise NotApplicable("the value spans several lines")
    value = value_at(doc, pointer)
    start = index.offset(span.line, span.column)
    end = index.offset(span.end_line, span.end_column)
    source = index.text[start:end]
    text = value if isinstance(value, str) else None
    if source[:1] == '"' and source[-1:] == '"' and len(source) >= 2:
        inner = source[1:-1]
        if "\\" in inner or inner != text:
            raise NotApplicable("the quoted value has escape sequences")
        return ScalarSpan(start, end, '"', inner, span.line)
    if source[:1] == "'" and source[-1:] == "'" and len(source) >= 2:
        inner = source[1:-1]
        if "'" in inner or inner != text:
            raise NotApplicable("the quoted value has escaped quotes")
        return ScalarSpan(start, end, "'", inner, span.line)
    if source[:1] in ("&", "!", "*", "|", ">"):
        raise NotApplicable("the value has an anchor, a tag or is an alias or block scalar")
    if resolve_plain(source) != value and source != value:
        raise NotApplicable("the source text is not the value")
    return ScalarSpan(start, end, "plain", source, span.line)


_PLAIN_SAFE = re.compile(r"[A-Za-z0-9_/.+~-][A-Za-z0-9_/.+~=@-]*")


def render_string(value: str, style: str) -> str:
    """``value`` as a YAML scalar that loads as that string: in ``style`` when it can
    hold it, else double-quoted (JSON escaping, a subset of YAML's)."""
    if style == "'" and "'" not in value and value.isprintable():
        return f"'{value}'"
    if style == "plain" and _PLAIN_SAFE.fullmatch(value) and resolve_plain(value) == value \
            and value != "-":
        return value
    return json.dumps(value, ensure_ascii=False)


def replace_scalar(doc: LoadedDocument, index: TextIndex, pointer: str,
                   new_value: str) -> tuple[Edit, SetValue]:
    """Replace the string at ``pointer`` by ``new_value``, keeping its quoting style
    (a plain scalar is quoted when ``new_value`` would not load as that string)."""
    span = scalar_span(doc, index, pointer)
    return (Edit(span.start, span.end, render_string(new_value, span.style)),
            SetValue(pointer, new_value))


def replace_in_scalar(doc: LoadedDocument, index: TextIndex, pointer: str, old: str,
                      new: str) -> tuple[Edit, SetValue]:
    """Replace the leading ``old`` of the string at ``pointer`` by ``new``: only those
    characters are edited (the quotes and the rest stay)."""
    span = scalar_span(doc, index, pointer)
    if not span.inner.startswith(old):
        raise NotApplicable(f"the value does not start with `{old}`")
    inner_start = span.start + (0 if span.style == "plain" else 1)
    return (Edit(inner_start, inner_start + len(old), new),
            SetValue(pointer, new + span.inner[len(old):]))


_BLOCK_ITEM = re.compile(r"[ \t]*-[ \t]+")


def split_item(doc: LoadedDocument, index: TextIndex, pointer: str,
               parts: tuple[str, ...]) -> tuple[Edit, ReplaceItem]:
    """Replace the list item at ``pointer`` by one item per string of ``parts``: in a block
    sequence each on its own ``- `` line with the item's indentation, in a flow sequence
    comma-separated in place. ``parts == ()`` removes the item (block sequences only: its
    whole line)."""
    list_pointer, _, item = pointer.rpartition("/")
    if not item.isdigit():
        raise NotApplicable("not a list item")
    span = scalar_span(doc, index, pointer)
    line_start, line_end = index.line_span(span.line)
    prefix = index.text[line_start:span.start]
    rendered = [render_string(p, span.style) for p in parts]
    change = ReplaceItem(list_pointer, int(item), parts)
    if _BLOCK_ITEM.fullmatch(prefix):
        rest = index.text[span.end:line_end]
        if rest.strip() and not rest.lstrip().startswith("#"):
            raise NotApplicable("other text follows the item on its line")
        eol = index.line_break(span.line)
        if not parts:
            if rest.strip():
                raise NotApplicable("a comment follows the item on its line")
            next_start = index.starts[span.line] if span.line < index.line_count else line_end
            return Edit(line_start, next_start, ""), change
        return Edit(span.start, span.end, (eol + prefix).join(rendered)), change
    before = prefix.rstrip()
    if before.endswith(("[", ",")) and parts:
        return Edit(span.start, span.end, ", ".join(rendered)), change
    raise NotApplicable("the item is not alone on a block-sequence line nor in a flow list")


@dataclass(frozen=True)
class GuideLine:
    """One line of the literal-block guide: 1-based file ``line``, the offsets of its
    content (after the block's indentation, without the line break) and that content."""

    index: int
    line: int
    start: int
    end: int
    content: str


def guide_line(doc: LoadedDocument, index: TextIndex, block_index: int) -> GuideLine:
    """Line ``block_index`` (0-based) of the guide, checked against the loaded value.

    Raises:
        NotApplicable: the guide is not a literal block scalar, or its lines do not map one
            to one onto the file's lines here.
    """
    block = doc.source_map.blocks.get(GUIDE)
    guide = value_at(doc, GUIDE)
    if block is None or not isinstance(guide, str):
        raise NotApplicable("the guide is not a literal block scalar (`guide: |`)")
    lines = guide.split("\n")
    if block_index >= len(lines):
        raise NotApplicable("the guide has no such line")
    file_line = block.first_line + block_index
    if file_line > index.line_count:
        raise NotApplicable("the guide line is outside the file")
    start, end = index.line_span(file_line)
    text = index.text[start:end]
    content = text[block.indent:]
    if content != lines[block_index] or text[:block.indent].strip():
        raise NotApplicable("the guide's lines do not map one to one onto the file here")
    return GuideLine(block_index, file_line, start + block.indent, end, content)


def edit_guide_line(doc: LoadedDocument, index: TextIndex, block_index: int,
                    new_lines: tuple[str, ...]) -> tuple[Edit, ReplaceLine]:
    """Replace guide line ``block_index`` by ``new_lines`` (each written with the block's
    indentation and the file's line break); only that line's content is edited."""
    gl = guide_line(doc, index, block_index)
    block = doc.source_map.blocks[GUIDE]
    if not new_lines or any(not ln.strip() for ln in new_lines[1:]):
        raise NotApplicable("a guide line can only be replaced by non-blank lines")
    eol = index.line_break(gl.line)
    indent = " " * block.indent
    replacement = (eol + indent).join(new_lines)
    if replacement == gl.content:
        raise NotApplicable("the line is already as the fix would write it")
    return Edit(gl.start, gl.end, replacement), ReplaceLine(GUIDE, block_index, new_lines)


def drop_guide_line(doc: LoadedDocument, index: TextIndex,
                    block_index: int) -> tuple[Edit, ReplaceLine]:
    """Delete guide line ``block_index`` with its indentation and line break."""
    gl = guide_line(doc, index, block_index)
    if gl.line >= index.line_count:
        raise NotApplicable("the guide line is the file's last line")
    return Edit(index.starts[gl.line - 1], index.starts[gl.line], ""), \
        ReplaceLine(GUIDE, block_index, ())
