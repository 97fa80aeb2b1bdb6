"""Look-alike characters (``YAML013``, declared in
:mod:`validator.rules.yaml.hidden_characters`): which characters look like ASCII ones,
and whether one at a position of a line lands in a command-line flag. Pure text
functions; the loader's walk over a document's lines and the findings are in
:mod:`validator.load.hidden`."""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

SPACES = "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
    "\u202f\u205f\u3000"
"""Unicode spaces that look like U+0020 (the zero-width ones are YAML010's)."""
DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d"
"""Dashes and minus signs that look like U+002D HYPHEN-MINUS."""
_LETTERS = {
    # Cyrillic
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i",
    "ј": "j", "ѕ": "s", "ԁ": "d", "һ": "h", "ӏ": "l", "ԛ": "q", "ԝ": "w", "ь": "b",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "Х": "X", "У": "Y", "І": "I", "Ј": "J", "Ѕ": "S", "Ԛ": "Q",
    "Ԝ": "W",
    # Greek
    "ο": "o", "ν": "v", "ι": "i", "κ": "k", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z",
    "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T",
    "Υ": "Y", "Χ": "X",
}
LOOKS_LIKE: dict[str, str] = {
    **dict.fromkeys(SPACES, " "), **dict.fromkeys(DASHES, "-"), **_LETTERS,
    **{chr(c): chr(c - 0xFEE0) for c in [*range(0xFF21, 0xFF3B), *range(0xFF41, 0xFF5B)]},
}
"""Look-alike character -> the ASCII character it is taken for."""
LOOKALIKE = re.compile("[" + "".join(map(re.escape, LOOKS_LIKE)) + "]")
"""One look-alike character."""

_DELIMITERS = frozenset(" \t\"'[]{},")
"""Characters that end a token of a YAML line (a flow list's punctuation, quotes)."""
_FLAG = re.compile(r"--?[A-Za-z]")
_LONG_DASHES = "\u2013\u2014\u2015"
"""En dash, em dash, horizontal bar: what autocorrect makes of ``--``."""
_SPLIT = " (in an argument list: two items, the flag, then its value)"


class Lookalike(NamedTuple):
    """A look-alike character in a flag or key: what it is taken for, the token as it is
    (look-alikes escaped) and as it reads in ASCII."""

    ascii: str
    shown: str
    fixed: str
    note: str = ""


def to_ascii(text: str) -> str:
    """``text`` with every look-alike character replaced by its ASCII character."""
    return LOOKALIKE.sub(lambda m: LOOKS_LIKE[m[0]], text)


def escape_lookalikes(text: str) -> str:
    """``text`` with every look-alike character written as ``\\uXXXX``."""
    return LOOKALIKE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def ascii_name(char: str) -> str:
    """``'-' (U+002D HYPHEN-MINUS)``: the ASCII character ``char`` is taken for."""
    plain = LOOKS_LIKE[char]
    return f"{plain!r} (U+{ord(plain):04X} {unicodedata.name(plain)})"


def _token(line: str, index: int) -> tuple[int, int]:
    start = index
    while start > 0 and line[start - 1] not in _DELIMITERS:
        start -= 1
    end = index + 1
    while end < len(line) and line[end] not in _DELIMITERS:
        end += 1
    return start, end


def in_flag(line: str, index: int) -> Lookalike | None:
    """The look-alike at ``line[index]`` when it lands in a command-line flag: a token
    that reads, in ASCII, as ``-`` or ``--`` and a letter (a Unicode space joining a flag
    and its value counts: the two are then one argument). ``None`` otherwise."""
    start, end = _token(line, index)
    token = line[start:end]
    parts, offset = [], 0
    for part in re.split(f"[{SPACES}]", token):  # a Unicode space splits nothing for argv
        parts.append((offset, part))
        offset += len(part) + 1
    at = index - start
    if line[index] in SPACES:
        hit = any(_FLAG.match(to_ascii(part)) for _, part in parts)
    else:
        hit = any(o <= at < o + len(part) and _FLAG.match(to_ascii(part)) is not None
                  for o, part in parts)
    if not hit:
        return None
    char, fixed = line[index], to_ascii(token)
    if at == 0 and char in _LONG_DASHES and _FLAG.match(fixed) and fixed[1:3].isalpha():
        # one en or em dash before a long name: an editor's autocorrect of "--"
        return Lookalike("--", escape_lookalikes(token), "-" + fixed)
    if char in SPACES:
        return Lookalike(" ", escape_lookalikes(token), fixed, _SPLIT)
    return Lookalike(LOOKS_LIKE[char], escape_lookalikes(token), fixed)


def in_key(key: str, char: str) -> Lookalike | None:
    """The look-alike ``char`` of mapping key ``key`` when it makes the key another name
    than it shows: a space or dash always, a letter when the key holds ASCII letters too
    (a key wholly in Cyrillic or Greek is a word, not a disguised name)."""
    if char not in SPACES and char not in DASHES and not re.search("[A-Za-z]", key):
        return None
    return Lookalike(LOOKS_LIKE[char], escape_lookalikes(key), to_ascii(key))
