"""A value error (FLAG006 bad choice, FLAG007 bad JSON) points at the value token: the
value's own line and column, also where the value is a block scalar on the lines after
its ``>-``/``|`` indicator, and in a flow list."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import check_tree, line_of
from tests.tiny_recipe import PATH, write_tiny

BLOCK_ARGS = ('    - "--tool-call-parser"\n    - >-\n      hermess\n'
              '    - "--compilation-config"\n    - |\n      {"level": 3,}\n')


def _value_findings(root: Path) -> list[tuple[str, int, int]]:
    return sorted((f.rule, f.line, f.column) for f in check_tree(root, PATH)
                  if f.rule in ("FLAG006", "FLAG007"))


def test_a_block_scalar_value_is_reported_on_its_content_line(corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, BLOCK_ARGS)
    assert _value_findings(corpus_copy) == [
        ("FLAG006", line_of(text, "hermess"), 7),
        ("FLAG007", line_of(text, '{"level": 3,}'), 7)]


def test_a_flow_list_value_is_reported_at_its_column(corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, '["--tool-call-parser", "hermess", "--compilation-config", '
                      "'{\"level\": 3,}']")
    line = line_of(text, "base_args")
    row = text.splitlines()[line - 1]
    assert _value_findings(corpus_copy) == [
        ("FLAG006", line, row.index('"hermess"') + 1),
        ("FLAG007", line, row.index("'{") + 1)]


def test_valid_values_in_block_scalars_pass(corpus_copy: Path) -> None:
    write_tiny(corpus_copy, BLOCK_ARGS.replace("hermess", "hermes").replace("3,}", "3}"))
    assert _value_findings(corpus_copy) == []
