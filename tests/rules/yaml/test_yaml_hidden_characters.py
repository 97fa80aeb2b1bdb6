"""YAML010: bidi controls and invisible characters ("Trojan Source") are reported at their
exact line:column with the code point; an error in what is run or copied, a warning in
prose; ``render`` prints them escaped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli_in_process import run_cli
from validator.findings import Finding
from validator.load import load_yaml
from validator.load.hidden import escape_hidden

PROJECT = Path(__file__).resolve().parents[3]
EXAMPLES = PROJECT / "examples" / "recipes"
PATH = "models/example-org/Example-Chat-8B.yaml"
RLO, ZWSP, LRI, ZWJ, SHY = "\u202e", "\u200b", "\u2066", "\u200d", "\u00ad"
TAG_A = "\U000e0041"

RECIPE = f"""meta:
  title: "Example {RLO}Chat"
  description: "soft{SHY}hyphen"
model:
  model_id: "example-org/Example{ZWSP}-Chat-8B"
  base_args: ["--served-model-name", "chat{LRI}8b", "--x", "a\\u202eb"]
  env:
    VLLM_X: "1{ZWJ}"
  # a comment {TAG_A} hidden
guide: |
  Some {RLO} prose.
  ```bash
  vllm serve x --flag {RLO}y
  ```
"""


def hidden(text: str) -> list[Finding]:
    doc = load_yaml(text.encode(), PATH)
    assert doc.ok
    return [f for f in doc.findings if f.rule == "YAML010"]


def test_each_character_is_reported_at_its_line_and_column_with_its_code_point() -> None:
    got = {(f.line, f.column, f.severity.value, f.pointer): f.message
           for f in hidden(RECIPE)}
    assert sorted(got) == [
        (2, 19, "warning", "/meta/title"),
        (3, 21, "warning", "/meta/description"),
        (5, 33, "error", "/model/model_id"),
        (6, 43, "error", "/model/base_args/1"),
        (6, 56, "error", "/model/base_args/3"),  # written as the escape \u202e
        (8, 15, "error", "/model/env/VLLM_X"),
        (9, 15, "warning", ""),  # a comment
        (11, 8, "warning", "/guide"),  # prose of the guide
        (13, 23, "error", "/guide"),  # a command in a code block of the guide
    ]
    assert "U+202E RIGHT-TO-LEFT OVERRIDE at line 2, column 19" in got[(2, 19, "warning",
                                                                       "/meta/title")]
    assert "U+200B ZERO WIDTH SPACE" in got[(5, 33, "error", "/model/model_id")]
    assert "U+E0041 TAG LATIN CAPITAL LETTER A" in got[(9, 15, "warning", "")]
    assert "escape sequence" in got[(6, 56, "error", "/model/base_args/3")]
    assert "code block" in got[(13, 23, "error", "/guide")]
    # the column is the character's own: the text there is that character
    lines = RECIPE.splitlines()
    for line, column, _, _ in got:
        if (line, column) != (6, 56):
            assert escape_hidden(lines[line - 1][column - 1]).startswith("\\")


@pytest.mark.parametrize("text", [
    "meta:\n  title: \"Example Chat\"\nmodel:\n  base_args: [\"--max-model-len\", \"8192\"]\n",
    # right-to-left script, emoji and non-breaking spaces are text, not hidden characters
    "meta:\n  title: \"\u05e9\u05dc\u05d5\u05dd \u00e9t\u00e9 \u00a0\U0001f600\"\n",
])
def test_ordinary_text_has_no_finding(text: str) -> None:
    assert hidden(text) == []


def test_a_leading_byte_order_mark_is_no_finding() -> None:
    doc = load_yaml(b"\xef\xbb\xbfmeta:\n  title: x\n", PATH)
    assert doc.ok and doc.findings == []


def test_render_prints_them_escaped_with_a_note_and_json_keeps_them(tmp_path: Path) -> None:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    recipe = root / PATH
    text = recipe.read_text()
    assert '    - "32768"\n' in text
    recipe.write_text(text.replace('    - "32768"\n',
                                   f'    - "32768"\n    - "--served-model-name"\n'
                                   f'    - "chat{RLO}8b"\n', 1))
    run = ["render", str(recipe)]
    proc = run_cli(*run, cwd=PROJECT)
    assert RLO not in proc.stdout
    assert "--served-model-name 'chat\\u202e8b'" in proc.stdout
    assert "escaped" in proc.stderr and "YAML010" in proc.stderr
    proc = run_cli(*run, "--format", "json", cwd=PROJECT)
    assert f"chat{RLO}8b" in json.dumps(json.loads(proc.stdout), ensure_ascii=False)
    check = run_cli(str(recipe), cwd=PROJECT)
    assert check.returncode == 1 and "YAML010" in check.stdout
