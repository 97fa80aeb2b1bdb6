"""Inline suppression comments in recipes, and the ``RC`` rules about them.

``# recipe-check: ignore[FLAG013]`` at the end of a line suppresses findings of the
listed rules on that line; on a line of its own it suppresses them on the next line
(so it can sit above the key it is about). ``# recipe-check: ignore-file[FLAG012, GUIDE]``
anywhere suppresses them in the whole file. Inside the brackets: rule ids, id prefixes or
family prefixes, any case, separated by commas or spaces.

A suppression that suppresses nothing is itself a finding (``RC001``, like ruff's
``RUF100`` for an unused ``noqa``), as is one naming an unknown rule (``RC002``) or a
directive that is not written as one of the two forms (``RC003``). Shell code in a
command users copy (``REF018``, ``FLAG027``), a plain-HTTP script run (``REF022``) and a
context file claiming another's name (``REF027``) are never suppressed by a comment: a
directive naming one is ``RC005`` and a prefix covering it silences only the other rules.

Only YAML comments count: a ``#`` at the start of a line or after whitespace that is not
inside a scalar (libyaml's token stream gives the scalars' spans: block scalars, quoted
and multi-line strings). A directive-looking line inside a string (a ``guide: |`` line) is
text that js-yaml keeps in the value; it suppresses nothing and is ``RC004``, as its
writer meant a suppression that does not happen. As in ruff, a directive may follow other
comment text (``# see docs # recipe-check: ignore[REF004]``); unlike ruff, which reads
only the first ``# noqa`` of a comment, every directive of a comment counts, each ending
at the next ``#`` and each with its own ``RC001`` when unused.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field

from validator.rules.rc.suppression_comments import IN_TEXT, MALFORMED, UNKNOWN, UNUSED
from validator.rules.rc.unsuppressible import (
    NOT_SUPPRESSIBLE,
    NOT_SUPPRESSIBLE_IDS,
    WHY_NOT_SUPPRESSIBLE,
)

_DIRECTIVE = re.compile(r"#\s*recipe-check\s*:(?P<rest>.*)$", re.IGNORECASE)
_NOQA = re.compile(r"#\s*noqa\s*:\s*(?P<ids>[A-Za-z0-9_]+(?:[\s,]+[A-Za-z0-9_]+)*)",
                   re.IGNORECASE)
_SHOWN = 60
"""Characters of the comment's own text an RC002/RC003 message quotes (the rest elided)."""
_FORM = re.compile(r"^\s*(?P<kind>ignore-file|ignore)\s*\[(?P<ids>[^\]]*)\]", re.IGNORECASE)

__all__ = ["IN_TEXT", "MALFORMED", "NOT_SUPPRESSIBLE", "UNKNOWN", "UNUSED", "Directive",
           "directives", "suppressible"]


def suppressible(rule_id: str) -> bool:
    """Whether a ``# recipe-check:`` comment can silence findings of ``rule_id``."""
    return rule_id not in NOT_SUPPRESSIBLE_IDS and rule_id != NOT_SUPPRESSIBLE.id


@dataclass
class Directive:
    """One suppression comment.

    Attributes:
        line, column: 1-based position of the ``#``.
        covers: the line it suppresses on (``0`` for the whole file).
        selectors: normalised ids/prefixes in the brackets, as written order.
        bad: what is wrong with it (an RC002/RC003 message), if anything.
        used: selectors that suppressed at least one finding.
        covered: the text of the line it suppresses on, stripped (``""`` for the whole
            file), as :func:`directives` read it.
    """

    line: int
    column: int
    covers: int
    selectors: list[str]
    bad: list[tuple[str, str]] = field(default_factory=list)
    used: set[str] = field(default_factory=set)
    covered: str = ""

    @property
    def file_wide(self) -> bool:
        """Whether it is ``ignore-file``."""
        return self.covers == 0

    @property
    def key(self) -> DirectiveKey:
        """What this comment is, wherever its lines moved (:data:`DirectiveKey`)."""
        return self.file_wide, frozenset(self.selectors), self.covered


def directives(data: bytes) -> list[Directive]:
    """Every ``# recipe-check:`` directive in the YAML comments of a document's bytes,
    and every one written in the text of a scalar (``RC004``: it suppresses nothing)."""
    from validator.config import known_ids
    from validator.load import scalar_spans
    from validator.load.lines import text_lines

    text = data.decode("utf-8", errors="replace")
    lowered = text.lower()
    if "recipe-check" not in lowered and "noqa" not in lowered:
        return []
    ids = known_ids()
    content = ScalarContent(*scalar_spans(text))
    out: list[Directive] = []
    lines = text_lines(text)
    for number, line in enumerate(lines, 1):
        if "#" not in line:
            continue
        hashes = comment_hashes(line)
        comment = content.comment_start(line, number, hashes)
        for h in hashes if comment is None else [h for h in hashes if h < comment]:
            if _DIRECTIVE.match(line, h):
                out.append(_in_text(line, number, h, content.scalar_at((number, h + 1))))
        if comment is None:
            continue
        alone = not line[:comment].strip()
        # every hash of the comment may start a directive (ruff reads its directive after
        # other comment text too); each directive ends at the next hash
        parts = [h for h in hashes if h >= comment] + [len(line)]
        for h, stop in itertools.pairwise(parts):
            segment = line[h:stop]
            m = _DIRECTIVE.match(segment)
            if m is None:
                noqa = _noqa(segment, number, h, ids)
                if noqa is not None:
                    out.append(noqa)
                continue
            out.append(_directive(m.group("rest"), number, h + 1, alone, ids))
    for d in out:
        if 0 < d.covers <= len(lines):
            d.covered = lines[d.covers - 1].strip()
    return out


DirectiveKey = tuple[bool, frozenset[str], str]
"""What one suppression comment is, wherever its lines moved: file-wide or not, the ids it
names, and the text of the line it covers (``""`` for a file-wide one)."""


def directive_keys(data: bytes) -> frozenset[DirectiveKey]:
    """The :attr:`Directive.key` of every suppression comment of a document's bytes."""
    return frozenset(d.key for d in directives(data))


def comment_hashes(line: str) -> list[int]:
    """Indexes of the ``#`` of ``line`` that can start a YAML comment: at the start of
    the line or after whitespace (found with :meth:`str.find`, fast on a long line)."""
    out = []
    at = line.find("#")
    while at >= 0:
        if at == 0 or line[at - 1].isspace():
            out.append(at)
        at = line.find("#", at + 1)
    return out


class ScalarContent:
    """Which positions of the text are inside a scalar (:func:`validator.load.scalar_spans`):
    ``(line, column)`` pairs, 1-based. Past a syntax error nothing is known, and a ``#``
    there is taken for a comment (as the error's own finding is all the file reports)."""

    def __init__(self, spans: list[tuple[tuple[int, int], tuple[int, int]]],
                 stopped: tuple[int, int] | None) -> None:
        self.spans = [s for s in spans if s[0] < s[1]]
        self.stopped = stopped

    def scalar_at(self, pos: tuple[int, int]) -> tuple[int, int] | None:
        """The start of the scalar holding ``pos``, if one does."""
        if self.stopped is not None and pos >= self.stopped:
            return None
        index = bisect.bisect_right(self.spans, (pos, (10**12, 0))) - 1
        if index >= 0 and self.spans[index][0] <= pos < self.spans[index][1]:
            return self.spans[index][0]
        return None

    def holds(self, pos: tuple[int, int]) -> bool:
        return self.scalar_at(pos) is not None

    def comment_start(self, line: str, number: int, hashes: list[int] | None = None) -> int | None:
        """0-based index of the ``#`` that starts a comment on 1-based line ``number``
        (``hashes``: the indexes of the ``#`` that could, if already found), or ``None``."""
        if hashes is None:
            hashes = comment_hashes(line)
        return next((h for h in hashes if not self.holds((number, h + 1))), None)


def _in_text(line: str, number: int, h: int, scalar: tuple[int, int] | None) -> Directive:
    """``RC004``: a directive-looking ``# recipe-check:`` inside a scalar's text."""
    shown = _quoted(line[h:].rstrip())
    where = f", whose text starts on line {scalar[0]}" if scalar else ""
    return Directive(number, h + 1, number, [], [(IN_TEXT.id, (
        f"{shown} is text inside a string value (a block scalar such as `guide: |` or a "
        f"quoted string{where}), not a YAML comment: it suppresses nothing, and js-yaml "
        "keeps it in the value the site shows"))])


def _directive(rest: str, number: int, column: int, alone: bool,
               ids: list[str]) -> Directive:
    """The directive whose text after ``# recipe-check:`` is ``rest``, written at 1-based
    ``column`` of line ``number`` (``alone``: in a comment on a line of its own)."""
    from validator.config import is_known_selector, normalise_selector

    form = _FORM.match(rest)
    if form is None:
        return Directive(number, column, number, [],
                         [(MALFORMED.id, _quoted("# recipe-check:" + rest.rstrip())
                           + " is not ignore[IDS] or ignore-file[IDS]; it suppresses "
                           "nothing")])
    covers = 0 if form.group("kind").lower() == "ignore-file" else (
        number + 1 if alone else number)
    d = Directive(number, column, covers, [])
    names = [n for n in re.split(r"[\s,]+", form.group("ids")) if n]
    if not names:
        d.bad.append((UNKNOWN.id, "the suppression names no rule"))
    for name in names:
        sel = normalise_selector(name)
        if sel == "ALL":
            d.bad.append((UNKNOWN.id, "'ALL' is not a rule id or family prefix: a "
                          "suppression names the rules it silences (ALL belongs in "
                          "select/ignore of the configuration)"))
        elif not is_known_selector(sel, ids):
            d.bad.append((UNKNOWN.id, f"{_quoted(name)} is not a rule id or family prefix"))
        elif not suppressible(sel):
            d.bad.append((NOT_SUPPRESSIBLE.id, f"{sel} ({WHY_NOT_SUPPRESSIBLE[sel]}) cannot "
                          "be suppressed by a comment: this mention of it is ignored and its "
                          "findings are reported"))
        else:
            d.selectors.append(sel)
    return d


def _quoted(text: str) -> str:
    """``text`` in quotes, elided in the middle past :data:`_SHOWN` characters."""
    if len(text) <= _SHOWN:
        return repr(text)
    half = _SHOWN // 2
    return repr(text[:half] + "…" + text[-half:]) + f" ({len(text)} characters)"


def _noqa(segment: str, number: int, offset: int, ids: list[str]) -> Directive | None:
    """A ruff/flake8 ``# noqa: IDS`` comment naming only recipe-check rules: it was meant
    for recipe-check, which does not read that form (``RC003``, with the form to write).
    One naming anything else (``E501`` in a guide's Python) belongs to another tool."""
    from validator.config import is_known_selector, normalise_selector

    m = _NOQA.match(segment)
    if m is None:
        return None
    names = [n for n in re.split(r"[\s,]+", m.group("ids")) if n]
    if not all(normalise_selector(n) != "ALL" and is_known_selector(normalise_selector(n), ids)
               for n in names):
        return None
    written = ", ".join(normalise_selector(n) for n in names)
    return Directive(number, offset + 1, number, [],
                     [(MALFORMED.id, f"{_quoted(m.group(0).strip())} is the form ruff and "
                       f"flake8 read, not recipe-check: write '# recipe-check: "
                       f"ignore[{written}]'; it suppresses nothing")])
