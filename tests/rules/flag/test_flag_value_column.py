"""A value error about a ``--flag=value`` item (FLAG006 bad choice, FLAG007 bad JSON)
points at the value after ``=``, not at the item's start: in a block list, in a flow list
and in every output format (text ``line:col``, JSON, SARIF region, GitHub annotation).
A finding about the flag itself (FLAG001) keeps the item's start."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.tiny_recipe import PATH, write_tiny
from validator.cli import main
from validator.load.lines import value_column

BLOCK = ('    - "--tool-call-parser=hermess"\n'
         "    - '--compilation-config={\"level\": 3,}'\n"
         "    - --limit-mm-per-prompt=image=4\n"
         "    - --max-num-seqz=8\n")


def _found(root: Path) -> list[tuple[str, int, int]]:
    return sorted((f.rule, f.line, f.column) for f in check_tree(root, PATH)
                  if f.rule in ("FLAG001", "FLAG006", "FLAG007"))


def _col(text: str, needle: str) -> int:
    row = text.splitlines()[line_of(text, needle) - 1]
    return row.index(needle) + 1


def test_block_list_values_are_reported_after_the_equals_sign(corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, BLOCK)
    assert _found(corpus_copy) == sorted([
        ("FLAG006", line_of(text, "hermess"), _col(text, "hermess")),
        ("FLAG007", line_of(text, "level"), _col(text, '{"level"')),
        ("FLAG007", line_of(text, "image=4"), _col(text, "image=4")),
        ("FLAG001", line_of(text, "--max-num-seqz"), _col(text, "--max-num-seqz"))])


def test_flow_list_values_are_reported_after_the_equals_sign(corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, '["--tool-call-parser=hermess", '
                      "'--compilation-config={\"level\": 3,}', --max-num-seqz=8]")
    line = line_of(text, "base_args")
    assert _found(corpus_copy) == sorted([
        ("FLAG006", line, _col(text, "hermess")),
        ("FLAG007", line, _col(text, '{"level"')),
        ("FLAG001", line, _col(text, "--max-num-seqz"))])


def test_a_block_scalar_item_is_reported_at_the_value_on_its_content_line(
        corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, "    - >-\n      --tool-call-parser=hermess\n")
    assert _found(corpus_copy) == [("FLAG006", line_of(text, "hermess"), _col(text, "hermess"))]


def test_a_valid_flag_equals_value_list_has_no_value_finding(corpus_copy: Path) -> None:
    write_tiny(corpus_copy, BLOCK.replace("hermess", "hermes").replace("3,}", "3}")
               .replace("image=4", '\'{"image": 4}\'').replace("    - --max-num-seqz=8\n", ""))
    assert _found(corpus_copy) == []


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_every_output_format_carries_the_value_column(
        corpus_copy: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = write_tiny(corpus_copy, BLOCK)
    line, col = line_of(text, "hermess"), _col(text, "hermess")
    assert main(["check", "--offline", "--format", fmt, str(corpus_copy / PATH)]) == 1
    out = capsys.readouterr().out
    if fmt == "text":
        assert any(f":{line}:{col}: error FLAG006" in row for row in out.splitlines()), out
    elif fmt == "json":
        found = [f for d in json.loads(out)["documents"] for f in d["findings"]
                 if f["rule"] == "FLAG006"]
        assert [(f["line"], f["column"]) for f in found] == [(line, col)]
    elif fmt == "sarif":
        results = [r for r in json.loads(out)["runs"][0]["results"] if r["ruleId"] == "FLAG006"]
        region = results[0]["locations"][0]["physicalLocation"]["region"]
        assert len(results) == 1 and (region["startLine"], region["startColumn"]) == (line, col)
        assert region["endColumn"] == _col(text, 'hermess"') + len('hermess"')
    else:
        rows = [r for r in out.splitlines() if "FLAG006" in r and r.startswith("::error")]
        assert len(rows) == 1 and f"line={line},col={col}," in rows[0], out


@pytest.mark.parametrize(("row", "column", "before", "expected"), [
    ("- --a=1", 3, "--a=", 7),              # plain
    ("- '--a=1'", 3, "--a=", 8),            # single-quoted: the quote is skipped
    ("- 'it''s=1'", 3, "it's=", 10),        # a doubled quote is two characters
    ('- "--a=1"', 3, "--a=", 8),            # double-quoted
    ('- "--\\x61=1"', 3, "--a=", 3),        # an escape before the value: the item's start
    ("- --b=1", 3, "--a=", 3),              # not what the file says: the item's start
    ("- --a=1", 3, "", 3),
])
def test_value_column(row: str, column: int, before: str, expected: int) -> None:
    assert value_column([row], 1, column, before) == expected


def test_value_column_outside_the_file_keeps_the_column() -> None:
    assert value_column(["- --a=1"], 2, 3, "--a=") == 3
    assert value_column([], 1, 3, "--a=") == 3
