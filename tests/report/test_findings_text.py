"""``printable`` and ``json_text`` escape exactly the Cc, Cf, Zl and Zp characters (the
fast paths give what a per-character category test gives, over all of Unicode)."""

from __future__ import annotations

import enum
import json
import unicodedata

from validator.findings import json_text, printable

HIDDEN = ("Cc", "Cf", "Zl", "Zp")


def _per_character(text: str, keep: str = "") -> str:
    return "".join(f"\\u{ord(ch):04x}" if ch not in keep and unicodedata.category(ch) in HIDDEN
                   else ch for ch in text)


def test_printable_escapes_exactly_the_hidden_categories() -> None:
    every = "".join(chr(i) for i in range(0x110000) if not 0xD800 <= i < 0xE000)
    for keep in ("", "\n"):
        assert printable(every, keep) == _per_character(every, keep)
    assert printable("--tensor-parallel-size 8") == "--tensor-parallel-size 8"
    assert printable("a\u202eb\nc", keep="\n") == "a\\u202eb\nc"


def test_json_text_keeps_line_breaks_and_escapes_the_rest() -> None:
    value = {"message": "x\u2028y\u200bz \u2192 é", "list": ["\x7f", "plain"]}
    text = json_text(value)
    assert text == _per_character(json.dumps(value, indent=2, ensure_ascii=False), "\n")
    assert "\\u2028" in text and "\\u200b" in text and "\u2192" in text and "\n" in text
    assert json.loads(text) == value


def test_json_text_is_what_json_dumps_writes_for_every_kind_of_value() -> None:
    # orjson writes the plain values, json the rest (floats, big integers, other keys,
    # subclasses, lone surrogates): the text is the same either way
    every = "".join(chr(i) for i in range(0, 0x3000) if not 0xD800 <= i < 0xE000)
    values: list[object] = [
        {"a": [], "b": {}, "c": [[], [{}]], "d": None, "e": True, "f": False, "g": 0},
        {"ints": [-2**63, 2**64 - 1, 2**64, -2**63 - 1, 10**30]},
        {"floats": [0.1, 1e-05, 1e16, 1.5e300, float("nan"), float("inf"), -0.0, 141.0]},
        {1: "int key", "s": "str key"}, ("a", ("b", ["c"])), {"text": every},
        {"severity": _Kind.ERROR, "lone": "\ud800"}, [], {}, "", 7,
    ]
    for value in values:
        expected = _per_character(json.dumps(value, indent=2, ensure_ascii=False), "\n")
        assert json_text(value) == expected, value


class _Kind(enum.StrEnum):
    ERROR = "error"
