"""``YAML010``: Unicode bidirectional controls and invisible characters ("Trojan Source",
CVE-2021-42574) in a recipe, found in the text and in the loaded strings; ``YAML013``:
look-alike characters (no-break spaces, Unicode dashes, Cyrillic, Greek or full-width
letters) in a command-line flag or a key, where they make another name than the one shown.

A bidi control reorders what an editor or a terminal shows, and an invisible character
shows nothing at all, so a reviewer reads one command and a user who copies it runs
another. Each character is reported at its exact line and column with its code point
and Unicode name: an error where it lands in something executed or copied (an argument,
an environment variable, a model id, a command in the guide), a warning in prose. A
zero-width non-joiner or joiner that joins letters or emoji is not hidden: it changes
what is shown (:mod:`validator.load.joiners`).
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from validator.findings import Finding, Severity
from validator.load.joiners import shows_as_spelling
from validator.load.lines import LIBYAML_ONLY_BREAKS
from validator.load.lookalike import LOOKALIKE as _LOOKALIKE_CHAR
from validator.load.lookalike import Lookalike, ascii_name, in_flag, in_key
from validator.rules.yaml.hidden_characters import HIDDEN_CHARACTER, LOOKALIKE
from validator.sourcemap import Span, join_pointer, split_pointer

if TYPE_CHECKING:
    from validator.load.document import LoadedDocument


_HIDDEN_CLASS = ("\u0085\u00ad\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e"
                 "\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f")
HIDDEN = re.compile(f"[{_HIDDEN_CLASS}]")

"""One bidi control or invisible character."""

PROSE_KEYS = frozenset({"description", "title", "notes", "note", "summary", "guide"})
"""Keys whose strings are read, not run or copied (``guide`` outside its code blocks)."""

_JOINER_HINT = ("; it changes what is shown only between two letters of one joining script "
                "(Arabic, Indic ...) or, U+200D, between two emoji")
_FENCE = re.compile(r"^\s*(```|~~~)")
_ESCAPE = re.compile(r"\\[xuU]")
"""A YAML double-quoted escape that can write a hidden character (``\\u202e``)."""


def code_point(char: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE`` (the name as Unicode gives it)."""
    return f"U+{ord(char):04X} {unicodedata.name(char, 'UNNAMED CHARACTER')}"


def escape_hidden(text: str) -> str:
    """``text`` with each hidden character written as a visible ``\\u202e`` escape
    (``\\U000e0041`` beyond the BMP)."""
    return HIDDEN.sub(lambda m: f"\\u{ord(m[0]):04x}" if ord(m[0]) <= 0xFFFF
                      else f"\\U{ord(m[0]):08x}", text)


def hidden_character_findings(doc: LoadedDocument) -> list[Finding]:
    """``YAML010`` findings of ``doc`` (loaded, ``doc.ok``): every hidden character of
    its text, then every one in a loaded string that its text writes as an escape; then
    the ``YAML013`` findings (:func:`lookalike_findings`)."""
    return _hidden_findings(doc) + lookalike_findings(doc)


def _hidden_findings(doc: LoadedDocument) -> list[Finding]:
    escapes = _ESCAPE.search(doc.text) is not None  # only these can write one unseen
    if HIDDEN.search(doc.text) is None and not (escapes and _has_hidden(doc.data)):
        return []
    lines = doc.lines()
    scalars = {p for p, _ in _scalars(doc.data, "")}
    spans = sorted(((s, p) for p, s in doc.source_map.values.items() if p in scalars),
                   key=lambda sp: (sp[0].line, sp[0].column))
    keys = _keys_by_line(doc.source_map.keys)
    findings: list[Finding] = []
    found_in: set[str] = set()
    for number, line in enumerate(lines, 1):
        for match in HIDDEN.finditer(line):
            if number == 1 and match.start() == 0 and match[0] == "\ufeff":
                continue  # a byte-order mark is dropped by the decoder; never here
            if shows_as_spelling(line, match.start()):
                continue  # a ZWNJ or ZWJ that joins letters or emoji: it shows
            pos = (number, match.start() + 1)
            pointer, is_key = _innermost(spans, keys, pos)
            if pointer is not None:
                found_in.add(pointer)
            findings.append(_finding(doc, lines, pointer, is_key, pos, match[0], ""))
    for pointer, value in _scalars(doc.data, "") if escapes else ():
        if pointer in found_in or not isinstance(value, str) or not HIDDEN.search(value):
            continue
        span = doc.source_map.span(pointer)
        pos = (span.line, span.column) if span else (1, 1)
        for char in dict.fromkeys(m[0] for m in HIDDEN.finditer(value)
                                  if not shows_as_spelling(value, m.start())):
            findings.append(_finding(doc, lines, pointer, False, pos, char,
                                     " (written as an escape sequence)"))
    return findings


def lookalike_findings(doc: LoadedDocument) -> list[Finding]:
    """``YAML013`` findings of ``doc``: each look-alike character of its text that lands
    in a key, or in a flag of a string that is not prose (:func:`_where`), then each one
    that a string's escape sequence writes into a flag. Where a character lands is looked
    up only for one in a key or in a token that reads as a flag (most are dashes of
    prose: nothing to report wherever they land)."""
    escapes = _ESCAPE.search(doc.text) is not None
    if _LOOKALIKE_CHAR.search(doc.text) is None and not escapes:
        return []
    lines = doc.lines()
    places = _Places(doc)
    findings: list[Finding] = []
    found_in: set[str] = set()
    for number, line in enumerate(lines, 1):
        if line.isascii():
            continue  # every look-alike character is outside ASCII
        for match in _LOOKALIKE_CHAR.finditer(line):
            pos = (number, match.start() + 1)
            key = places.key_at(pos)
            flag = in_flag(line, match.start()) if key is None else None
            if key is None and flag is None:
                continue  # in no key and no flag: no finding, whatever holds it
            pointer = key if key is not None else places.value_at(pos)
            if pointer is None:
                continue  # a comment
            where, prose = _where(doc, lines, pointer, key is not None, number)
            names = split_pointer(pointer)
            found = in_key(names[-1] if names else "", match[0]) if key is not None else \
                None if prose else flag
            if found is not None:
                found_in.add(pointer)
                findings.append(_lookalike(doc, pointer, pos, where, match[0], found,
                                           key is not None))
    for pointer, value in places.scalars.items() if escapes else ():
        if pointer in found_in or not isinstance(value, str) or \
                _LOOKALIKE_CHAR.search(value) is None:
            continue
        span = doc.source_map.span(pointer)
        pos = (span.line, span.column) if span else (1, 1)
        where, prose = _where(doc, lines, pointer, False, pos[0])
        for match in [] if prose else _LOOKALIKE_CHAR.finditer(value):
            found = in_flag(value, match.start())
            if found is not None:
                findings.append(_lookalike(doc, pointer, pos, where + " (written as an "
                                           "escape sequence)", match[0], found, False))
    return findings


class _Places:
    """Where a position of ``doc``'s text lands (:func:`_innermost`, in two steps), each
    table built at its first use."""

    def __init__(self, doc: LoadedDocument) -> None:
        self.doc = doc
        self._scalars: dict[str, Any] | None = None
        self._spans: list[tuple[Span, str]] | None = None
        self._keys: dict[int, list[tuple[str, Span]]] | None = None

    @property
    def scalars(self) -> dict[str, Any]:
        """Pointer -> value of every scalar value of the document."""
        if self._scalars is None:
            self._scalars = dict(_scalars(self.doc.data, ""))
        return self._scalars

    def key_at(self, pos: tuple[int, int]) -> str | None:
        """The pointer of the first key (in the source map's order) whose span holds
        ``pos``, as :func:`_innermost` finds it."""
        if self._keys is None:
            self._keys = _keys_by_line(self.doc.source_map.keys)
        return next((p for p, span in self._keys.get(pos[0], ()) if _holds(span, pos)), None)

    def value_at(self, pos: tuple[int, int]) -> str | None:
        """The pointer of the innermost scalar value whose span holds ``pos`` (``None``:
        none does, e.g. a comment), when no key holds it (:func:`_innermost`)."""
        if self._spans is None:
            scalars = self.scalars
            self._spans = sorted(((s, p) for p, s in self.doc.source_map.values.items()
                                  if p in scalars), key=lambda sp: (sp[0].line, sp[0].column))
        return _innermost(self._spans, {}, pos)[0]


def _lookalike(doc: LoadedDocument, pointer: str, pos: tuple[int, int], where: str,
               char: str, found: Lookalike, is_key: bool) -> Finding:
    what = f"the key '{found.shown}'" if is_key else f"the flag '{found.shown}'"
    return doc.finding_at(
        LOOKALIKE, pointer, pos,
        f"look-alike character {code_point(char)} at line {pos[0]}, column {pos[1]} in "
        f"{where}: it looks like {ascii_name(char)} but is not ASCII, so {what} is not "
        f"'{found.fixed}' as it reads" + ("" if is_key else "; vLLM does not take it for "
                                          "that flag"),
        f"replace it with {found.ascii!r}: {found.fixed}{found.note}")


def _finding(doc: LoadedDocument, lines: list[str], pointer: str | None, is_key: bool,
             pos: tuple[int, int], char: str, how: str) -> Finding:
    where, prose = _where(doc, lines, pointer, is_key, pos[0])
    kind = "bidirectional control" if unicodedata.bidirectional(char) in (
        "LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI", "LRM", "RLM", "AL",
        "ALM") or char in "\u200e\u200f\u061c" else "invisible character"
    effect = ("reorders what is shown" if kind.startswith("bidi") else "shows nothing")
    if char in LIBYAML_ONLY_BREAKS:
        kind, effect = "line separator", ("breaks the line in libyaml and in editors but "
                                          "not on GitHub or in js-yaml, so the lines shown "
                                          "differ from the lines read")
    tail = ("it is read, not run, but hides what the text says" if prose else
            "a user who copies the command runs other text than they see")
    finding = doc.finding_at(
        HIDDEN_CHARACTER, pointer or "", pos,
        f"{kind} {code_point(char)} at line {pos[0]}, column {pos[1]} in {where}{how}: it "
        f"{effect}; {tail}",
        (f"remove the escape sequence {escape_hidden(char)} from the value" if how else
         f"delete the character at line {pos[0]}, column {pos[1]} (shown escaped: "
         f"{escape_hidden(char)})") + (_JOINER_HINT if char in "\u200c\u200d" else ""))
    return dataclasses.replace(finding, severity=Severity.WARNING) if prose else finding


def _where(doc: LoadedDocument, lines: list[str], pointer: str | None, is_key: bool,
           line: int) -> tuple[str, bool]:
    """What the character lands in (for the message) and whether that is prose."""
    if pointer is None:
        return "a comment", True
    shown = pointer or "/"
    if is_key:
        return f"the key {shown}", False
    names = [t for t in split_pointer(pointer) if not t.isdigit()]
    last = names[-1] if names else ""
    if last == "guide":
        if _in_code_block(doc, lines, pointer, line):
            return f"a command in a code block of {shown}", False
        return f"the prose of {shown}", True
    return shown, last in PROSE_KEYS


def _in_code_block(doc: LoadedDocument, lines: list[str], pointer: str, line: int) -> bool:
    """Whether file ``line`` of the block scalar at ``pointer`` is inside a fenced code
    block of its markdown."""
    block = doc.source_map.blocks.get(pointer)
    first = block.first_line if block else line
    inside = False
    for text in lines[first - 1:line - 1]:
        if _FENCE.match(text):
            inside = not inside
    return inside


def _keys_by_line(keys: dict[str, Span]) -> dict[int, list[tuple[str, Span]]]:
    """File line -> the (pointer, span) of each key whose span meets that line, in the
    order of ``keys``: a character is looked for only among the keys on its line."""
    out: dict[int, list[tuple[str, Span]]] = {}
    for pointer, span in keys.items():
        for number in range(span.line, span.end_line + 1):
            out.setdefault(number, []).append((pointer, span))
    return out


def _innermost(spans: list[tuple[Span, str]], keys: dict[int, list[tuple[str, Span]]],
               pos: tuple[int, int]) -> tuple[str | None, bool]:
    """The pointer of the innermost key (``keys``: :func:`_keys_by_line`) or scalar value
    whose span holds ``pos`` (``None``: none does, e.g. a comment), and whether it is a
    key."""
    for pointer, span in keys.get(pos[0], ()):
        if _holds(span, pos):
            return pointer, True
    best: tuple[Span, str] | None = None
    for span, pointer in spans:
        if (span.line, span.column) > pos:
            break
        if _holds(span, pos) and (best is None or len(pointer) > len(best[1])):
            best = (span, pointer)
    if best is None:
        return None, False
    return best[1], False


def _holds(span: Span, pos: tuple[int, int]) -> bool:
    return (span.line, span.column) <= pos < (span.end_line, span.end_column)


def _scalars(data: Any, pointer: str) -> Iterator[tuple[str, Any]]:
    """(pointer, value) of every scalar value below ``data``."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _scalars(value, join_pointer(pointer, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _scalars(value, join_pointer(pointer, i))
    else:
        yield pointer, data


def _has_hidden(data: Any) -> bool:
    return any(isinstance(v, str) and HIDDEN.search(v) for _, v in _scalars(data, ""))
