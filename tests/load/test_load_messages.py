"""Loader messages point at the exact cause: a tab in the indentation is named, and an
undecodable byte is reported at its own line and column (not at 1:1)."""

from __future__ import annotations

import pytest

from validator.load import load_yaml


def only(raw: bytes) -> tuple[str, int, int, str]:
    doc = load_yaml(raw, "models/example-org/Example-Chat-8B.yaml")
    assert doc.data is None
    assert len(doc.findings) == 1
    f = doc.findings[0]
    return f.rule, f.line, f.column, f.message


@pytest.mark.parametrize(("raw", "line", "column"), [
    (b"model:\n\tmodel_id: example-org/Example-Chat-8B\n", 2, 1),
    (b"model:\n  base_args:\n    - --max-model-len\n\t- '8192'\n", 4, 1),
    (b"meta:\n  title: x\nmodel:\n  \tmodel_id: a/b\n", 4, 3),
])
def test_a_tab_in_the_indentation_is_named_at_its_position(raw: bytes, line: int,
                                                           column: int) -> None:
    rule, got_line, got_column, message = only(raw)
    assert (rule, got_line, got_column) == ("YAML001", line, column)
    assert f"tab character at line {line}, column {column}" in message
    assert "spaces" in message


def test_other_syntax_errors_do_not_mention_a_tab() -> None:
    rule, line, _column, message = only(b"model:\n  base_args: [\"--max-model-len\"\n")
    assert rule == "YAML001" and "tab" not in message and line == 3


@pytest.mark.parametrize(("raw", "line", "column", "byte"), [
    (b"meta:\n  title: ok\n  description: \"caf\xe9\"\n", 3, 20, "0xe9"),
    (b"a: 1\nb: \"\xc3\xa9\xc3\xa9\xff\"\n", 2, 7, "0xff"),  # column counts characters
    (b"\xef\xbb\xbfab\xffc: 1\n", 1, 3, "0xff"),  # the BOM is no column
    (b"meta:\n  title: \"x\x00y\"\n", 2, 12, "NUL"),
])
def test_an_undecodable_byte_is_reported_at_its_line_and_column(raw: bytes, line: int,
                                                               column: int, byte: str) -> None:
    rule, got_line, got_column, message = only(raw)
    assert (rule, got_line, got_column) == ("YAML006", line, column)
    assert byte in message
