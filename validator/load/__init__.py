"""YAML -> plain data + :class:`SourceMap`, with YAML 1.2 (js-yaml) semantics.

The recipes site reads recipes with js-yaml, a YAML 1.2 parser. PyYAML resolves plain
scalars with YAML 1.1 rules (``yes`` -> ``True``, ``0777`` -> 511) and silently keeps the
last of duplicate keys, so we do not use its constructor. Instead we let libyaml compose
the node graph (``yaml.compose(..., Loader=CSafeLoader)``: fast, every node carries its
marks, duplicate keys still visible) and build the data ourselves with the YAML 1.2 core
schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution), plus js-yaml's default-schema
extras: timestamps (kept as their source text so data stays JSON) and ``<<`` merge keys.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import TypeVar

import yaml

from validator.findings import Finding
from validator.load.builder import Builder, LimitExceeded
from validator.load.document import LoadedDocument
from validator.load.hidden import hidden_character_findings
from validator.load.lines import (
    LineMap,
    libyaml_lines,
    libyaml_offset_position,
    replace_libyaml_line,
)
from validator.load.scalars import MERGE_TAG, construct_tagged, resolve_plain
from validator.load.stand_ins import StandIns
from validator.rules.yaml.ambiguous_scalars import YAML_AMBIGUOUS_SCALAR, YAML_VERSION_FLOAT
from validator.rules.yaml.document_shape import YAML_SHAPE
from validator.rules.yaml.duplicate_keys import YAML_DUPLICATE_KEY
from validator.rules.yaml.encoding import YAML_ENCODING
from validator.rules.yaml.invalid_yaml import YAML_INVALID
from validator.rules.yaml.safety_limits import YAML_LIMIT
from validator.rules.yaml.tab_comments import YAML_TAB_COMMENT
from validator.rules.yaml.tags import YAML_BAD_TAG, YAML_UNKNOWN_TAG
from validator.sourcemap import SourceMap

__all__ = [
    "DEFAULT_MAX_BYTES", "DEFAULT_MAX_DEPTH", "DEFAULT_MAX_NODES", "MERGE_TAG",
    "YAML_AMBIGUOUS_SCALAR", "YAML_BAD_TAG", "YAML_DUPLICATE_KEY", "YAML_ENCODING",
    "YAML_INVALID", "YAML_LIMIT", "YAML_SHAPE", "YAML_UNKNOWN_TAG", "YAML_VERSION_FLOAT",
    "LoadedDocument", "construct_tagged", "decode_text", "load_yaml", "resolve_plain",
    "scalar_spans",
]

_T = TypeVar("_T")

DEFAULT_MAX_BYTES = 2 * 1024 * 1024
DEFAULT_MAX_DEPTH = 64
DEFAULT_MAX_NODES = 200_000

# libyaml's Cython composer (``yaml.compose`` with ``CSafeLoader``) recurses in C once per
# nesting level and crashes the interpreter (SIGSEGV, not RecursionError) somewhere past
# ~20,000 levels on an 8 MiB stack; composing also allocates every node of the file before
# our node limit can act (~350 MB for 1M nodes). So before composing, a file that *might*
# be deep or large is pre-scanned with the event API (flat, no recursion, constant memory),
# which enforces the depth and node limits. The cheap test below is an upper bound of the
# nesting depth: flow nesting needs a ``[``/``{`` per level, and block nesting needs more
# indentation or a ``- ``/``? `` indicator per level, so it is at most ~3 x the longest line.
_PRESCAN_DEPTH_BOUND = 4000
"""Files whose nesting bound exceeds this are pre-scanned (corpus maximum: ~2,200)."""
_PRESCAN_BYTES = 256 * 1024
"""Files larger than this are pre-scanned (largest recipe in the corpus history: 58 KiB)."""


def _nesting_bound(text: str, lines: list[str]) -> int:
    """An upper bound of the nesting depth of ``text`` (see ``_PRESCAN_DEPTH_BOUND``)."""
    longest = max(map(len, lines), default=0)
    return text.count("[") + text.count("{") + 3 * longest + 2


def _prescan(text: str, max_depth: int, max_nodes: int) -> None:
    """Walk the parser events of ``text`` enforcing ``max_depth`` and ``max_nodes``
    (nodes as written: aliases count once here; the builder counts their expansion).

    Raises:
        LimitExceeded: a limit is exceeded (the mark is where).
        yaml.YAMLError: the text is not YAML (reported as ``YAML001`` by the caller).
    """
    depth = 0
    nodes = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            nodes += 1
            if depth > max_depth + 1:
                raise LimitExceeded(f"document nests deeper than {max_depth} levels", None,
                                     event.start_mark)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        elif isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
            nodes += 1
        if nodes > max_nodes:
            raise LimitExceeded(f"document has more than {max_nodes} nodes", None,
                                 event.start_mark)



_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
              (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))
"""Byte order marks of the encodings an editor may save in instead of UTF-8 (the longer
UTF-32 marks first: the little-endian one starts like UTF-16's)."""


def decode_text(raw: bytes) -> tuple[str | None, str | None, tuple[int, int]]:
    """Decode ``raw`` as UTF-8 (a leading BOM is dropped).

    Returns ``(text, None, (1, 1))`` or ``(None, reason, (line, column))`` where ``reason``
    names the first NUL or undecodable byte and its offset, and ``(line, column)`` is its
    position (1-based; the column counts the characters before it on its line, as an
    editor does, the BOM not counted).
    """
    for bom, name in _WIDE_BOMS:
        if raw.startswith(bom):
            marks = " ".join(f"0x{b:02x}" for b in bom)
            return None, f"{name} text (byte order mark {marks}), not UTF-8", (1, 1)
    nul = raw.find(b"\x00")
    bad: int | None = nul if nul != -1 else None
    reason = f"binary content (NUL byte at offset {nul})"
    if bad is None:
        try:
            return raw.decode("utf-8-sig"), None, (1, 1)
        except UnicodeDecodeError as exc:
            bad = exc.start + (3 if raw.startswith(b"\xef\xbb\xbf") else 0)
            reason = f"not UTF-8 (byte 0x{raw[bad]:02x} at offset {bad})"
    return None, reason, byte_position(raw, bad)


def byte_position(raw: bytes, offset: int) -> tuple[int, int]:
    """1-based ``(line, column)`` of byte ``offset`` of ``raw``; the column counts the
    characters before it on its line (undecodable bytes one each, a leading BOM none)."""
    start = raw.rfind(b"\n", 0, offset) + 1
    line = raw.count(b"\n", 0, offset) + 1
    before = raw[start:offset]
    if start == 0 and before.startswith(b"\xef\xbb\xbf"):
        before = before[3:]
    return line, len(before.decode("utf-8", errors="replace")) + 1


def _syntax_finding(doc: LoadedDocument, exc: yaml.MarkedYAMLError,
                    lines: list[str], line_map: LineMap) -> Finding:
    """The finding of a libyaml syntax error: ``YAML001`` at its mark, naming a tab when
    one is the cause; ``YAML007`` for libyaml's own nesting limit."""
    mark = exc.problem_mark or exc.context_mark
    pos = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    what = " ".join(x for x in (exc.context, exc.problem) if x)
    if "maximum nesting depth" in what:
        # libyaml >= 0.2.6 (bundled with PyYAML 6.0.4 wheels) has its own nesting limit
        # (1000 levels) that can fire before ours: the same limit, so the same rule
        return doc.finding_at(YAML_LIMIT, "", pos, f"document nests deeper than libyaml's "
                                     f"limit ({what})", "simplify the document")
    tab = _tab_at(lines, pos)
    if tab is not None:
        pos, shown = tab, line_map.position(*tab)
        return doc.finding_at(
            YAML_INVALID, "", pos,
            f"invalid YAML: tab character at line {shown[0]}, column {shown[1]}: "
            f"YAML indents with spaces only, never tabs (libyaml: {what})",
            "replace the tab with spaces")
    return doc.finding_at(YAML_INVALID, "", pos, f"invalid YAML: {what}")


def _reader_finding(doc: LoadedDocument, exc: yaml.reader.ReaderError, text: str) -> Finding:
    """The finding of a character libyaml's reader refuses (a control character, a
    lone surrogate): ``YAML001`` at that character, naming it as U+XXXX."""
    char = exc.character
    code = char if isinstance(char, int) else ord(char) if char else 0
    return doc.finding_at(
        YAML_INVALID, "", libyaml_offset_position(text, exc.position),
        f"invalid YAML: the character U+{code:04X} is not allowed in a YAML file "
        f"({exc.reason})", "remove the character or write it as an escape (\\x.. or "
        "\\u....) in a double-quoted string")


def _tab_at(lines: list[str], pos: tuple[int, int]) -> tuple[int, int] | None:
    """The 1-based position of the tab that caused an error at ``pos``: the character at
    ``pos`` itself, or a tab in the indentation of that line."""
    line, column = pos
    if not 0 < line <= len(lines):
        return None
    text = lines[line - 1]
    if column <= len(text) and text[column - 1] == "\t":
        return pos
    indent = text[:len(text) - len(text.lstrip(" \t"))]
    return (line, indent.index("\t") + 1) if "\t" in indent else None


_TAB_COMMENT_LINE = re.compile(r"^[ \t]*\t[ \t]*(?:#.*)?$")
"""A comment or blank line whose indentation holds a tab."""


def _compose(text: str, lines: list[str], tabbed: list[tuple[int, int]]) -> list[yaml.Node]:
    """``yaml.compose_all`` of ``text``, read past tab-indented comment lines as js-yaml
    reads them (:func:`_tab_tolerant`)."""
    return _tab_tolerant(lambda t: list(yaml.compose_all(t, Loader=yaml.CSafeLoader)),
                         text, lines, tabbed)


def _tab_tolerant(run: Callable[[str], _T], text: str, lines: list[str],
                  tabbed: list[tuple[int, int]]) -> _T:
    """``run(text)`` (a libyaml reader); where libyaml stops at a tab that indents a
    comment or blank line (js-yaml, the site's reader, skips such a line), the line is
    rewritten as js-yaml reads it (the tab as a space; in a block scalar, a comment that
    ends the scalar) and ``run`` is retried. The 1-based position of
    each such tab is appended to ``tabbed`` (``YAML012``)."""
    while True:
        try:
            return run(text)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark
            if (mark is None or not 0 <= mark.line < len(lines)
                    or not _TAB_COMMENT_LINE.match(lines[mark.line])
                    or "\t" not in lines[mark.line][:mark.column + 1]):
                raise
            line = lines[mark.line]
            tab = line.index("\t")
            tabbed.append((mark.line + 1, tab + 1))
            if "block scalar" in str(exc.context):
                # js-yaml ends the block scalar at the tab (its indentation is the spaces
                # before it) and skips the line: a comment there does the same in libyaml
                fixed = line[:tab] + "#" + line[tab:].lstrip(" \t").lstrip("#")
            else:  # between nodes or in a plain scalar: the tab is separation space
                indent = len(line) - len(line.lstrip(" \t"))
                fixed = line[:indent].replace("\t", " ") + line[indent:]
            lines = [*lines[:mark.line], fixed, *lines[mark.line + 1:]]
            text = replace_libyaml_line(text, mark.line, fixed)


def scalar_spans(text: str) -> tuple[list[tuple[tuple[int, int], tuple[int, int]]],
                                     tuple[int, int] | None]:
    """Where the scalars of ``text`` stand, from libyaml's token stream (flat: no
    recursion, whatever the nesting): 1-based ``((line, column), (end_line, end_column))``
    per scalar, the end exclusive, for the text a ``#`` inside of is content, not a
    comment. A block scalar's span starts on the line after its header (``guide: |  #
    note``: the comment after the indicator is a comment). Tab-indented comment lines are
    read as js-yaml reads them. The second value is where the scanner stopped at a syntax
    error (spans past it are unknown), else ``None``."""
    spans: list[tuple[tuple[int, int], tuple[int, int]]] = []

    def run(source: str) -> None:
        spans.clear()
        for token in yaml.scan(source, Loader=yaml.CSafeLoader):
            # only a quoted or block scalar can hold a `#` after whitespace (one ends a
            # plain scalar), and only one holding a `#` matters: the rest are not kept
            if isinstance(token, yaml.ScalarToken) and token.style and "#" in token.value:
                start, end = token.start_mark, token.end_mark
                begin = (start.line + 2, 1) if token.style in ("|", ">") else \
                    (start.line + 1, start.column + 1)
                spans.append((begin, (end.line + 1, end.column + 1)))

    line_map = LineMap(text)
    stopped: tuple[int, int] | None = None
    try:
        _tab_tolerant(run, text, libyaml_lines(text), [])
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        stopped = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    except yaml.reader.ReaderError as exc:
        stopped = libyaml_offset_position(text, exc.position)
    except yaml.YAMLError:
        stopped = (1, 1)
    if line_map.active:
        spans = [(line_map.position(*a), line_map.position(*b)) for a, b in spans]
        stopped = line_map.position(*stopped) if stopped else None
    return spans, stopped


def load_yaml(
    raw: bytes,
    path: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_nodes: int = DEFAULT_MAX_NODES,
    characters: bool = True,
) -> LoadedDocument:
    """Load one YAML document from ``raw`` bytes.

    Never raises for bad input: every problem becomes a ``YAML`` finding on the returned
    document, whose ``data`` is then ``None`` (or the partial data for non-fatal ones).

    Args:
        raw: the exact file bytes.
        path: display path used in findings.
        max_bytes: size limit in bytes (``YAML007`` beyond it).
        max_depth: nesting limit in levels.
        max_nodes: limit on built nodes, counting each alias expansion.
        characters: look for hidden and look-alike characters (``YAML010``,
            ``YAML013``); they add findings only, the data is the same without.
    """
    doc = LoadedDocument(path, "", None, SourceMap(), sha256=hashlib.sha256(raw).hexdigest())
    if len(raw) > max_bytes:
        doc.findings.append(
            doc.finding_at(YAML_LIMIT, "", (1, 1),
                           f"file is {len(raw)} bytes, over the {max_bytes}-byte limit",
                           "raise --max-bytes if this file is legitimate")
        )
        return doc
    text, problem, where = decode_text(raw)
    if text is None:
        doc.findings.append(doc.finding_at(YAML_ENCODING, "", where, f"file is {problem}",
                                           "save the file as UTF-8 text"))
        return doc
    doc.text = text
    # libyaml also breaks lines at U+0085, U+2028 and U+2029; GitHub and js-yaml do not,
    # and js-yaml reads them as text in any scalar: libyaml reads stand-ins for them
    stand_ins = StandIns(text)
    line_map = LineMap(stand_ins.hide(text))
    built = _build(doc, stand_ins.hide(text), line_map, max_depth, max_nodes)
    doc.findings = [line_map.finding(f) for f in doc.findings]
    line_map.source_map(doc.source_map)
    stand_ins.restore(doc)
    if built and characters:
        doc.findings += hidden_character_findings(doc)
    return doc


def _build(doc: LoadedDocument, text: str, line_map: LineMap, max_depth: int,
           max_nodes: int) -> bool:
    """Compose ``text`` and build ``doc``'s data and source map (positions as libyaml
    counts lines); whether the data was built (else ``doc.findings`` says why)."""
    lines = libyaml_lines(text)
    tabbed: list[tuple[int, int]] = []
    try:
        if len(text) > _PRESCAN_BYTES or _nesting_bound(text, lines) > _PRESCAN_DEPTH_BOUND:
            _prescan(text, max_depth, max_nodes)
        nodes = _compose(text, lines, tabbed)
    except LimitExceeded as exc:
        mark = exc.mark
        pos = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        doc.findings.append(doc.finding_at(YAML_LIMIT, "", pos, str(exc),
                                           "simplify the document"))
        return False
    except yaml.MarkedYAMLError as exc:
        doc.findings.append(_syntax_finding(doc, exc, lines, line_map))
        return False
    except yaml.reader.ReaderError as exc:
        doc.findings.append(_reader_finding(doc, exc, text))
        return False
    except (yaml.YAMLError, RecursionError) as exc:
        doc.findings.append(doc.finding_at(YAML_INVALID, "", (1, 1), f"invalid YAML: {exc}"))
        return False
    if not _one_mapping(doc, nodes):
        return False
    for pos in tabbed:  # positions as libyaml counts; the message as GitHub does
        shown = line_map.position(*pos)
        doc.findings.append(doc.finding_at(
            YAML_TAB_COMMENT, "", pos,
            f"tab character at line {shown[0]}, column {shown[1]} indents a "
            "comment or blank line: js-yaml (the recipes site) reads the file, but libyaml "
            "(PyYAML and other YAML 1.1 readers) refuses it", "replace the tab with spaces"))
    builder = Builder(doc, lines, max_depth, max_nodes, line_map)
    try:
        doc.data = builder.build(nodes[0], "", 0)
    except (LimitExceeded, RecursionError) as exc:
        node = exc.node if isinstance(exc, LimitExceeded) and exc.node else nodes[0]
        doc.source_map = SourceMap()
        doc.findings = [f for f in doc.findings if f.rule not in ("YAML003", "YAML004")]
        doc.findings.append(
            doc.finding_at(YAML_LIMIT, "", (node.start_mark.line + 1, node.start_mark.column + 1),
                           str(exc), "simplify the document")
        )
        doc.data = None
        return False
    builder.summarise()
    return True


def _one_mapping(doc: LoadedDocument, nodes: list[yaml.Node]) -> bool:
    """Whether the first of the composed documents ``nodes`` is to be built: a ``YAML005``
    finding on ``doc`` unless the file holds exactly one mapping. With several documents
    the first is still built and checked (when it is a mapping), so that a ``YAML005``
    demoted by the configuration does not pass a recipe nobody has read."""
    if len(nodes) == 1 and isinstance(nodes[0], yaml.MappingNode):
        return True
    if not nodes:
        msg = "file holds no YAML document (it is empty or only comments)"
        pos = (1, 1)
    elif len(nodes) > 1:
        msg = f"file holds {len(nodes)} YAML documents; a recipe file holds exactly one"
        pos = (nodes[1].start_mark.line + 1, nodes[1].start_mark.column + 1)
    else:
        kind = "a sequence" if isinstance(nodes[0], yaml.SequenceNode) else "a scalar"
        msg = f"the document's root is {kind}, not a mapping"
        pos = (nodes[0].start_mark.line + 1, nodes[0].start_mark.column + 1)
    doc.findings.append(doc.finding_at(YAML_SHAPE, "", pos, msg))
    return len(nodes) >= 2 and isinstance(nodes[0], yaml.MappingNode)
