"""Where U+200C ZERO WIDTH NON-JOINER and U+200D ZERO WIDTH JOINER are spelling, not hidden
text (``YAML010``, :mod:`validator.load.hidden`): between two letters of a script whose
letters join or form conjuncts, where they change the letter forms shown (Persian and
Urdu write ZWNJ inside words; Devanagari's ZWJ after a virama makes a half form), and
ZWJ between two emoji, which makes them one glyph (woman, ZWJ, laptop: "woman
technologist"). There the character is visible in effect and deleting it would change
the text; anywhere else (next to ASCII, at the edge of a word, between Latin letters) it
shows nothing and stays a finding.

Python's :mod:`unicodedata` has no Script or Extended_Pictographic property, so both are
read from what it does have:

* the script of a letter or mark (general category ``L*`` or ``M*``) is the first word of
  its Unicode name: every letter, sign and vowel sign of these scripts is named after its
  script (``ARABIC LETTER FARSI YEH``, ``DEVANAGARI SIGN VIRAMA``, ``NKO LETTER A``), in
  every block of the script (Arabic Supplement, Extended-A, Presentation Forms ...);
* an emoji (Extended_Pictographic, approximately) is a symbol (``So``) in U+2100-U+2BFF
  (letterlike symbols to miscellaneous symbols and arrows: ♀ ♂ ⚕ ❤ ➡ ⬛ ...) or a symbol
  or a code point not yet assigned (``Cn``: an emoji newer than this Python's Unicode
  data) in U+1F000-U+1FAFF, less the regional indicators and the skin-tone modifiers;
  before the ZWJ one U+FE0F VARIATION SELECTOR-16 or one skin-tone modifier
  (U+1F3FB-U+1F3FF) may follow the emoji (🏳️‍🌈, 👩🏽‍💻).
"""

from __future__ import annotations

import unicodedata

ZWNJ, ZWJ = "\u200c", "\u200d"

JOINING_SCRIPTS = frozenset({
    # cursive scripts, whose letters join their neighbours
    "ARABIC", "SYRIAC", "NKO", "MONGOLIAN", "MANDAIC", "ADLAM", "HANIFI",
    # Brahmic scripts, whose consonants form conjuncts (ZWJ/ZWNJ after a virama)
    "DEVANAGARI", "BENGALI", "GURMUKHI", "GUJARATI", "ORIYA", "TAMIL", "TELUGU",
    "KANNADA", "MALAYALAM", "SINHALA", "MYANMAR", "KHMER",
})
"""First words of the Unicode names of the letters of the scripts in which ZWNJ and ZWJ
between two letters change what is shown (the Unicode Standard, 23.2 "Layout
Controls")."""

_VS16 = "\ufe0f"
_MODIFIERS = range(0x1F3FB, 0x1F400)
_REGIONAL_INDICATORS = range(0x1F1E6, 0x1F200)


def joining_script(char: str) -> str | None:
    """The script of ``char`` when it is a letter or a mark of a joining or
    conjunct-forming script (:data:`JOINING_SCRIPTS`), else ``None``."""
    if not unicodedata.category(char).startswith(("L", "M")):
        return None
    script = unicodedata.name(char, "").split(" ", 1)[0]
    return script if script in JOINING_SCRIPTS else None


def is_emoji(char: str) -> bool:
    """Whether ``char`` is a pictographic emoji (see the module's notes)."""
    cp, category = ord(char), unicodedata.category(char)
    if 0x2100 <= cp <= 0x2BFF:
        return category == "So"
    return 0x1F000 <= cp <= 0x1FAFF and category in ("So", "Cn") \
        and cp not in _MODIFIERS and cp not in _REGIONAL_INDICATORS


def shows_as_spelling(text: str, index: int) -> bool:
    """Whether the ZWNJ or ZWJ at ``text[index]`` changes what is shown: between two
    letters (or marks) of the same joining script, or (ZWJ only) between two emoji.
    ``False`` for every other character and context (a string's edge included)."""
    char = text[index]
    if char not in (ZWNJ, ZWJ) or index == 0 or index + 1 >= len(text):
        return False
    before, after = text[index - 1], text[index + 1]
    script = joining_script(before)
    if script is not None and joining_script(after) == script:
        return True
    if char != ZWJ or not is_emoji(after):
        return False
    if (before == _VS16 or ord(before) in _MODIFIERS) and index >= 2:
        before = text[index - 2]
    return is_emoji(before)
