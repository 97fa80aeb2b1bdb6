"""A flag's value holding a ``$`` that the site single-quotes (anything but a bare
``$NAME``) reaches vLLM as written, so ``FLAG006`` judges it as that text: ``--port
'abc$'``, ``'${PORT}'`` and ``'8001$x'`` are refused like ``--port abc``. A bare ``$PORT``,
which the site leaves for the shell to expand, and a guide command's ``$`` (its quoting is
the reader's) stay unjudged (trial 9 #10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.rules.ref.test_ref_shell_code import CHAT, _default_rendering, _edit, bash


def _with_port(root: Path, value: str) -> str:
    return _edit(root, '    - "32768"\n', f'    - "32768"\n    - "--port"\n    - "{value}"\n')


def _flag006(root: Path) -> list[str]:
    return [f.message for f in check_tree(root, CHAT) if f.rule == "FLAG006"]


@pytest.mark.parametrize("value", ["abc$", "${PORT}", "8001$x", "$PORT x"])
def test_a_quoted_value_with_a_dollar_is_judged_as_the_text_vllm_reads(
        examples_tree: Path, tmp_path: Path, value: str) -> None:
    text = _with_port(examples_tree, value)
    serve = str(_default_rendering(examples_tree).processes[0].command)
    words = bash(serve, tmp_path).stdout.splitlines()
    assert f"[{value}]" in words  # vLLM gets the text as written
    found = [f for f in check_tree(examples_tree, CHAT) if f.rule == "FLAG006"]
    assert [f.message.split("`: ")[0] for f in found] == [f"`--port {value}"], found
    assert found[0].line == line_of(text, f'"{value}"')


def test_a_bare_variable_the_shell_expands_is_not_judged(examples_tree: Path,
                                                        tmp_path: Path) -> None:
    _with_port(examples_tree, "$PORT")
    serve = str(_default_rendering(examples_tree).processes[0].command)
    assert "[$PORT]" not in bash(f"PORT=8001; {serve}", tmp_path).stdout.splitlines()
    assert _flag006(examples_tree) == []


def test_a_guide_command_dollar_value_stays_unjudged(examples_tree: Path) -> None:
    _edit(examples_tree, "    --max-model-len 32768 \\\n",
          "    --max-model-len 32768 \\\n    --port abc$ \\\n")
    assert not [f for f in check_tree(examples_tree, CHAT) if f.rule == "GUIDE006"]
