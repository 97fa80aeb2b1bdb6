"""Inline suppression comments in recipes, and the ``RC`` rules about them.

``# recipe-check: ignore[FLAG013]`` at the end of a line suppresses findings of the
listed rules on that line; on a line of its own it suppresses them on the next line
(so it can sit above the key it is about). ``# recipe-check: ignore-file[FLAG012, GUIDE]``
anywhere suppresses them in the whole file. Inside the brackets: rule ids, id prefixes or
family prefixes, any case, separated by commas or spaces.

A suppression that suppresses nothing is itself a finding (``RC001``, like ruff's
``RUF100`` for an unused ``noqa``), as is one naming an unknown rule (``RC002``) or a
directive that is not written as one of the two forms (``RC003``). Only YAML comments
count: the text is searched for ``#`` preceded by the start of the line or whitespace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from validator.stage_rules import MALFORMED, UNKNOWN, UNUSED

_DIRECTIVE = re.compile(r"(?:^|(?<=\s))#\s*recipe-check\s*:(?P<rest>.*)$", re.IGNORECASE)
_NOQA = re.compile(r"(?:^|(?<=\s))#\s*noqa\s*:\s*(?P<ids>[A-Za-z0-9_]+(?:[\s,]+[A-Za-z0-9_]+)*)",
                   re.IGNORECASE)
_SHOWN = 60
"""Characters of the comment's own text an RC002/RC003 message quotes (the rest elided)."""
_FORM = re.compile(r"^\s*(?P<kind>ignore-file|ignore)\s*\[(?P<ids>[^\]]*)\]", re.IGNORECASE)

__all__ = ["MALFORMED", "UNKNOWN", "UNUSED", "Directive", "directives"]


@dataclass
class Directive:
    """One suppression comment.

    Attributes:
        line, column: 1-based position of the ``#``.
        covers: the line it suppresses on (``0`` for the whole file).
        selectors: normalised ids/prefixes in the brackets, as written order.
        bad: what is wrong with it (an RC002/RC003 message), if anything.
        used: selectors that suppressed at least one finding.
    """

    line: int
    column: int
    covers: int
    selectors: list[str]
    bad: list[tuple[str, str]] = field(default_factory=list)
    used: set[str] = field(default_factory=set)

    @property
    def file_wide(self) -> bool:
        """Whether it is ``ignore-file``."""
        return self.covers == 0


def directives(data: bytes) -> list[Directive]:
    """Every ``# recipe-check:`` comment in a document's bytes."""
    from validator.config import is_known_selector, known_ids, normalise_selector

    text = data.decode("utf-8", errors="replace")
    lowered = text.lower()
    if "recipe-check" not in lowered and "noqa" not in lowered:
        return []
    ids = known_ids()
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        m = _DIRECTIVE.search(line)
        if m is None:
            noqa = _noqa(line, number, ids)
            if noqa is not None:
                out.append(noqa)
            continue
        column = m.start() + 1
        form = _FORM.match(m.group("rest"))
        if form is None:
            out.append(Directive(number, column, number, [],
                                 [(MALFORMED.id, _quoted("# recipe-check:"
                                                         + m.group("rest").rstrip())
                                   + " is not ignore[IDS] or ignore-file[IDS]; it "
                                   "suppresses nothing")]))
            continue
        alone = not line[:m.start()].strip()
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
            else:
                d.selectors.append(sel)
        out.append(d)
    return out


def _quoted(text: str) -> str:
    """``text`` in quotes, elided in the middle past :data:`_SHOWN` characters."""
    if len(text) <= _SHOWN:
        return repr(text)
    half = _SHOWN // 2
    return repr(text[:half] + "…" + text[-half:]) + f" ({len(text)} characters)"


def _noqa(line: str, number: int, ids: list[str]) -> Directive | None:
    """A ruff/flake8 ``# noqa: IDS`` comment naming only recipe-check rules: it was meant
    for recipe-check, which does not read that form (``RC003``, with the form to write).
    One naming anything else (``E501`` in a guide's Python) belongs to another tool."""
    from validator.config import is_known_selector, normalise_selector

    m = _NOQA.search(line)
    if m is None:
        return None
    names = [n for n in re.split(r"[\s,]+", m.group("ids")) if n]
    if not all(normalise_selector(n) != "ALL" and is_known_selector(normalise_selector(n), ids)
               for n in names):
        return None
    written = ", ".join(normalise_selector(n) for n in names)
    return Directive(number, m.start() + 1, number, [],
                     [(MALFORMED.id, f"{_quoted(m.group(0).strip())} is the form ruff and "
                       f"flake8 read, not recipe-check: write '# recipe-check: "
                       f"ignore[{written}]'; it suppresses nothing")])
