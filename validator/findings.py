"""The unit of output: a :class:`Finding` about one node of one document.

Rule ids are a family prefix plus a number (``FLAG001``) and never change meaning once
released; see :mod:`validator.rules.api` for the catalogue.
"""

from __future__ import annotations

import enum
import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import orjson

MAX_FINDINGS_PER_RULE = 100
"""Findings one rule may report on one document; one more says the rest are not shown
(:class:`validator.checker.Checker` keeps that many and one; a rule may stop computing
hits past it)."""


FLOOR = "floor"
"""The :attr:`Finding.reason` of a finding that a token is accepted only from a later
release than its configuration's minimum (``FLAG002``, ``GUIDE004``, the ``FLAG006`` and
``GUIDE006`` of a value accepted later): raising the minimum fixes every copy of it."""

PAIR = "pair"
"""The :attr:`Finding.reason` of a finding that a recipe and a context file it selects do
not fit together (``REF033``: a strategy meant for another model architecture), reported
at the recipe line that selects the file."""

MADE_BY_PAIR = frozenset({FLOOR, PAIR})
"""Reasons of a finding about a recipe and a context file together: ``pr`` counts a new
one as new also when the context file is unchanged (the change made the pair:
:func:`validator.pr.baseline.mark`)."""


class Severity(enum.StrEnum):
    """How bad a finding is. ``error`` fails a run; ``warning``/``info`` never do
    (unless ``--strict``, which turns warnings into errors)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Related:
    """A second location a finding refers to (e.g. the other line of a disagreement).

    ``line`` is 1-based; ``path`` is ``None`` for the same document; ``pointer``: the
    JSON Pointer of the node there, when known (a context file's list item, where
    :func:`validator.context_findings.relocate` reports what it causes). Not part of
    equality, nor of any report.
    """

    line: int
    message: str
    path: str | None = None
    pointer: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Finding:
    """One problem found at one place.

    Attributes:
        rule: stable rule id, e.g. ``"REF001"``.
        severity: effective severity (after ``--strict``).
        path: document path as shown to the user (repository-relative when known).
        pointer: RFC 6901 JSON Pointer of the offending node (``""`` = whole document).
        line, column: 1-based position of that node in the file (0 when unknown).
        message: one sentence saying what is wrong.
        hint: what would be right, or ``None``.
        end_line, end_column: 1-based end of the node's span, when known.
        related: other locations the message names.
        baseline: in PR mode, the finding's state against the merge base, in SARIF's
            ``baselineState`` words: ``"new"``, ``"unchanged"`` (existing at the base) or
            ``"absent"`` (fixed: at the base only); ``None`` outside PR mode.
        identity: ``(rule group, subject, content anchor)``, what makes it the same
            finding at another revision (:mod:`validator.identity`), set where the
            document's data is at hand; ``None`` when it was made without it. Not part
            of equality, nor of any report but SARIF's fingerprints.
        aliases: the content anchors (as in ``identity``) of the other paths that reach
            the finding's node through a YAML alias or merge key (``blackwell: *nv``):
            one finding there stands for the defect at each of them, as many findings
            would for explicit copies (:func:`validator.identity.match`). Set with
            ``identity``; not part of equality nor of any report.
        reason: which kind of defect of its rule this is, when the rule reports several
            (``"floor"``: the token is accepted only from a later release than the
            configuration's minimum, :data:`FLOOR`; ``"pair"``: a recipe and a context
            file it selects do not fit together, :data:`PAIR`); ``None`` otherwise.
            Set by the rule, never read from the message; not part of equality nor of any
            report.
        unchosen: the finding is about a list no line of the recipe chose (a KV offload
            option the site offers the recipe unlisted), so its rule's error is reported
            as a warning; ``pr`` gives it back its rule's severity when the change adds or
            edits that option, which chooses it for every recipe
            (:func:`validator.pr.offload_choice.chosen_by_change`). Set by the rule; kept
            by the unit cache (a field of its rows); not part of equality nor of any
            report.
    """

    rule: str
    severity: Severity
    path: str
    pointer: str
    line: int
    column: int
    message: str
    hint: str | None = None
    end_line: int | None = None
    end_column: int | None = None
    related: tuple[Related, ...] = field(default=())
    baseline: str | None = None
    identity: tuple[str, str, str] | None = field(default=None, compare=False)
    reason: str | None = field(default=None, compare=False)
    aliases: tuple[str, ...] = field(default=(), compare=False)
    unchosen: bool = field(default=False, compare=False)

    def key(self) -> tuple[str, str, str]:
        """Identity of the finding across revisions: rule, JSON pointer and message with
        line references blanked (:func:`finding_key`); independent of the line it is on,
        so an edit above a finding does not make it new."""
        return finding_key(self.rule, self.pointer, self.message)

    def sort_key(self) -> tuple[str, int, int, str, str, str]:
        """Contract order: path, line, column, rule (then pointer and message for ties)."""
        return (self.path, self.line, self.column, self.rule, self.pointer, self.message)


_LINE_REF = re.compile(r"\b(line|lines|L)\s*\d+", re.IGNORECASE)


_CONFIGURATIONS = re.compile(r" \((?:on .+|in no command the site renders)\)$")
"""The suffix a rendered-command check appends to its message: the configurations the
problem reaches (``(on h200 ... and 191 more)``)."""


def normalise_message(message: str) -> str:
    """``message`` with runs of whitespace collapsed, line references (``line 12``)
    blanked and the rendered configurations it names dropped, so that it does not change
    when lines above what it names move, or when a change adds configurations that the
    same problem reaches (that is not a new problem)."""
    text = _CONFIGURATIONS.sub("", message.rstrip())
    return " ".join(_LINE_REF.sub(r"\1 N", text).split())


def finding_key(rule: str, pointer: str, message: str) -> tuple[str, str, str]:
    """``(rule, pointer, normalised message)``: what makes two findings at two revisions
    the same finding for ``history``. PR mode's baseline and SARIF fingerprints use the
    content identity of :mod:`validator.identity` instead (list items by content, rules
    of one defect grouped)."""
    return (rule, pointer, normalise_message(message))


def printable(text: str, keep: str = "") -> str:
    """``text`` with control and invisible format characters (Unicode categories Cc, Cf,
    Zl and Zp: newlines, escapes, NEL, bidi overrides, zero-width spaces, U+2028 and
    U+2029 line and paragraph separators) written as ``\\uXXXX``, so
    that a file name or value quoted in a message cannot fake output lines or hide text
    (Trojan Source, CVE-2021-42574). A lone surrogate (Cs: a byte of a file name that
    is not UTF-8, ``surrogateescape``) is written ``\\xff``, as ``PROV006`` names such a
    file, so no report writer meets text UTF-8 cannot hold. Characters in ``keep``
    (``"\\n"`` for a format that escapes line breaks itself) are left as they are."""
    if text.isascii() and text.isprintable():  # ASCII has no Cf/Zl/Zp; Cc = non-printable
        return text
    return _NOT_PLAIN.sub(lambda m: _printable(m.group(), keep), text)


_NOT_PLAIN = re.compile(r"[^\x20-\x7e]")
"""Characters that may need escaping: printable ASCII never does (only ASCII controls are
Cc there, and ASCII has no Cf, Zl or Zp), so only the others are looked up."""
_HIDDEN = ("Cc", "Cf", "Zl", "Zp")


def _escaped(ch: str, keep: str = "") -> str:
    return f"\\u{ord(ch):04x}" if ch not in keep and unicodedata.category(ch) in _HIDDEN \
        else ch


def _printable(ch: str, keep: str = "") -> str:
    """:func:`_escaped`, and a lone surrogate (no UTF-8 report could hold it) escaped: a
    byte of a file name that is not UTF-8 (``surrogateescape``) as ``\\xff``, as
    ``PROV006`` writes the name (:func:`validator.paths.undecodable_name`)."""
    if ch not in keep and unicodedata.category(ch) == "Cs":
        code = ord(ch)
        return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"
    return _escaped(ch, keep)


def json_text(value: object) -> str:
    """``value`` as indented JSON, non-ASCII kept readable, but every control, format and
    line/paragraph-separator character (bidi overrides, U+2028, NEL) written as a
    ``\\uXXXX`` escape: the same JSON value, with nothing in the text that a terminal or
    log viewer would act on (they can only occur inside JSON strings, where the escape
    means the same character)."""
    if _orjson_writes_as_json_does(value):
        try:
            text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode("utf-8")
        except orjson.JSONEncodeError:  # a lone surrogate: json writes it as it is
            text = json.dumps(value, indent=2, ensure_ascii=False)
    else:
        text = json.dumps(value, indent=2, ensure_ascii=False)
    return json_printable(text)


def json_printable(text: str) -> str:
    """``text``, a JSON document ``json`` wrote with ``ensure_ascii=False``, with every
    control, format and line/paragraph-separator character it left raw (C1 controls such
    as NEL, bidi overrides, U+2028) written as a ``\\uXXXX`` escape: the same JSON value,
    as :func:`printable` would show it (such characters can only occur inside JSON
    strings, where the escape means the same character; line breaks between tokens stay)."""
    hidden = {ord(ch): _escaped(ch, "\n") for ch in set(_NOT_PLAIN.findall(text))}
    return text.translate({k: v for k, v in hidden.items() if len(v) > 1})


def _orjson_writes_as_json_does(value: object) -> bool:
    """Whether ``orjson`` (OPT_INDENT_2) writes ``value`` byte for byte as
    ``json.dumps(indent=2, ensure_ascii=False)`` does, ten times faster: plain strings,
    booleans, null, 64-bit integers, lists, tuples and string-keyed mappings. A float
    (``1e-05`` against ``1e-5``, ``NaN``), a larger integer or a subclass goes to ``json``."""
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is dict:
            if not all(type(k) is str for k in item):
                return False
            stack.extend(item.values())
        elif kind is list or kind is tuple:
            stack.extend(item)
        elif kind is not int or not -2**63 <= item < 2**64:
            return False
    return True


def count_by_severity(findings: list[Finding]) -> dict[str, int]:
    """Return ``{"errors": n, "warnings": n, "infos": n}`` for ``findings``."""
    counts = {"errors": 0, "warnings": 0, "infos": 0}
    for f in findings:
        counts[f.severity.value + "s"] += 1
    return counts
