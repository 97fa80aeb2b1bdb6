"""YAML013: look-alike characters in flags and keys, at line:column, naming the character
and the ASCII one it is taken for; typographic dashes and spaces in prose pass."""

from __future__ import annotations

import pytest

from validator.findings import Finding, Severity
from validator.load import load_yaml

NBSP, EN, EM, HYPHEN, CYR_O, CYR_A = "\u00a0", "\u2013", "\u2014", "\u2010", "\u043e", "\u0430"


def lookalikes(text: str) -> list[Finding]:
    doc = load_yaml(text.encode("utf-8"), "models/org/Name.yaml")
    assert doc.ok
    return [f for f in doc.findings if f.rule == "YAML013"]


@pytest.mark.parametrize(("arg", "column", "char", "ascii_char", "fixed"), [
    (f"{EN}max-model-len", 16, "U+2013 EN DASH", "'-' (U+002D HYPHEN-MINUS)",
     "--max-model-len"),
    (f"--max{HYPHEN}num-seqs", 21, "U+2010 HYPHEN", "'-' (U+002D HYPHEN-MINUS)",
     "--max-num-seqs"),
    (f"--gpu-mem{CYR_O}ry", 25, "U+043E CYRILLIC SMALL LETTER O",
     "'o' (U+006F LATIN SMALL LETTER O)", "--gpu-memory"),
    (f"--port{NBSP}8000", 22, "U+00A0 NO-BREAK SPACE", "' ' (U+0020 SPACE)", "--port 8000"),
    (f"-{CYR_A}sync", 17, "U+0430 CYRILLIC SMALL LETTER A",
     "'a' (U+0061 LATIN SMALL LETTER A)", "-async"),
])
def test_a_lookalike_in_a_flag_is_an_error_at_its_column(
        arg: str, column: int, char: str, ascii_char: str, fixed: str) -> None:
    [finding] = lookalikes(f'model:\n  model_id: "org/Name"\n  base_args: ["{arg}", "8"]\n')
    assert (finding.line, finding.column) == (3, column)
    assert finding.severity is Severity.ERROR and finding.pointer == "/model/base_args/0"
    assert f"look-alike character {char} at line 3, column {column}" in finding.message
    assert f"it looks like {ascii_char} but is not ASCII" in finding.message
    assert finding.hint is not None and f": {fixed}" in finding.hint


def test_a_lookalike_letter_in_a_key_names_the_key_it_imitates() -> None:
    [finding] = lookalikes(f"features:\n  t{CYR_O}ol_calling:\n    args: []\n")
    assert (finding.line, finding.column) == (2, 4)
    assert "the key 't\\u043eol_calling' is not 'tool_calling'" in finding.message
    assert finding.hint == "replace it with 'o': tool_calling"


def test_a_dash_in_a_guide_command_is_found_and_in_its_prose_is_not() -> None:
    text = (f"guide: |\n  Run it {EN} then wait{NBSP}a bit {EM}really.\n  ```\n"
            f"  vllm serve org/Name {EM}tensor-parallel-size 8\n  ```\n")
    [finding] = lookalikes(text)
    assert (finding.line, finding.column) == (4, 23)
    assert "in a command in a code block of /guide" in finding.message
    assert finding.hint == "replace it with '--': --tensor-parallel-size"


def test_an_escape_sequence_writing_a_dash_into_a_flag_is_found() -> None:
    [finding] = lookalikes('model:\n  base_args: ["\\u2013max-model-len", "4096"]\n')
    assert (finding.line, finding.column) == (2, 15)
    assert "(written as an escape sequence)" in finding.message


@pytest.mark.parametrize("text", [
    f'meta:\n  description: "fast {EN} and{NBSP}small {EM}really"\n',
    f'model:\n  base_args: ["--served-model-name", "GLM{EN}5", "a{NBSP}b"]\n',
    f"# a comment {EN}max-model-len\nmodel: {{}}\n",
    "features:\n  \u0440\u0443\u0441:\n    args: []\n",  # a key wholly in Cyrillic is a word
    'model:\n  base_args: ["--max-model-len", "4096"]\n',
])
def test_prose_values_comments_and_plain_ascii_pass(text: str) -> None:
    assert lookalikes(text) == []
