"""YAML001 for a character libyaml's reader refuses (a control character): reported at
that character's line and column as GitHub counts them (libyaml's reader error has no
mark, only a byte offset), with a message naming the code point, never Python's
``"<unicode string>", position N`` or an escaped newline."""

from __future__ import annotations

import pytest

from validator.load import load_yaml

CASES = [
    ('meta:\n  title: "x"\n  slug: "y"\n  provider: "Preferred\x0cNetworks"\n', 4, 23, 0x0C),
    ('a: "\u00e9\u00e9"\nb: "\x01"\n', 2, 5, 0x01),
    ('a: 1\r\nb: "\u2028\u00e9x"\n c: "\x0c"\n', 3, 6, 0x0C),  # U+2028: not a line on GitHub
    ('a: "\u00e9"  # \u00e9\u00e9\u00e9\n\n\nz: "\x7f"\n', 4, 5, 0x7F),
]


@pytest.mark.parametrize(("text", "line", "column", "code"), CASES)
def test_a_refused_character_is_reported_where_it_stands(text: str, line: int, column: int,
                                                          code: int) -> None:
    doc = load_yaml(text.encode("utf-8"), "models/o/m.yaml")
    [finding] = [f for f in doc.findings if f.rule == "YAML001"]
    assert (finding.line, finding.column) == (line, column)
    assert f"U+{code:04X}" in finding.message
    assert "<unicode string>" not in finding.message and "\n" not in finding.message
    assert "position" not in finding.message

