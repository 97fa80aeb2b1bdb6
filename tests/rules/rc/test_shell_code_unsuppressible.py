"""Shell code in a command users copy (``REF018``, ``FLAG027``) is reported whatever the
recipe's own ``# recipe-check:`` comments say: a change cannot silence it for its own
text; a comment naming either rule is ``RC005``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.rules.ref.test_ref_shell_code import CHAT, _default_rendering, _edit, bash

PAYLOAD = '  base_env:\n    VLLM_LOGGING_LEVEL: "$(touch pwned)"'


@pytest.mark.parametrize("comment", [
    "# recipe-check: ignore-file[REF018]\n",
    "# recipe-check: ignore-file[ref018, FLAG027]\n",
])
def test_a_file_comment_naming_ref018_does_not_silence_the_shell_code_it_covers(
        examples_tree: Path, tmp_path: Path, comment: str) -> None:
    _edit(examples_tree, "  base_env: {}", PAYLOAD)
    path = examples_tree / CHAT
    path.write_text(comment + path.read_text())
    run = tmp_path / "run"
    run.mkdir()
    bash(str(_default_rendering(examples_tree).docker_command), run)
    assert (run / "pwned").exists()
    found = {(f.rule, f.line) for f in check_tree(examples_tree, CHAT)
             if f.rule in ("REF018", "RC005")}
    text = path.read_text()
    assert found == {("REF018", line_of(text, "VLLM_LOGGING_LEVEL")), ("RC005", 1)}


def test_an_inline_comment_does_not_silence_a_flag_item_the_shell_changes(
        examples_tree: Path, tmp_path: Path) -> None:
    text = _edit(examples_tree, '    - "32768"',
                 '    - "32768"\n    - "--served-model-name=x$(touch pwned)"'
                 "  # recipe-check: ignore[FLAG027, REF018]")
    run = tmp_path / "run"
    run.mkdir()
    bash(str(_default_rendering(examples_tree).docker_command), run)
    assert (run / "pwned").exists()
    line = line_of(text, "--served-model-name")
    found = {(f.rule, f.line) for f in check_tree(examples_tree, CHAT)}
    assert ("FLAG027", line) in found
    assert ("RC005", line) in found


def test_a_family_prefix_silences_the_other_rules_but_not_shell_code(
        examples_tree: Path) -> None:
    text = _edit(examples_tree, "  base_env: {}", PAYLOAD)
    path = examples_tree / CHAT
    path.write_text("# recipe-check: ignore-file[REF]\n" + text)
    found = {(f.rule, f.line) for f in check_tree(examples_tree, CHAT)}
    assert ("REF018", line_of(text, "VLLM_LOGGING_LEVEL") + 1) in found
    assert ("RC001", 1) in found  # the prefix silenced nothing: REF018 is not its to silence
