"""``render`` and ``check`` read a printed env value with one shell model: each value
``REF018`` reports has a ``# warning`` line above the ``docker run`` that prints it; an
``export`` line of a value holding a carriage return sets that very value when pasted
into a real bash; and the message says what bash passes for a ``~NAME`` word."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.cli_in_process import run_cli
from tests.conftest import check_tree, line_of
from tests.rules.ref.test_ref_shell_code import CHAT, _edit

PROJECT = Path(__file__).resolve().parents[2]


def _render(root: Path) -> list[str]:
    done = run_cli("render", str(root / CHAT), cwd=PROJECT)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize("value", ["INFO\\\\", "a{b,c}", "~root/x", "x*"])
def test_a_value_check_reports_is_warned_above_the_docker_command(examples_tree: Path,
                                                                   value: str) -> None:
    text = _edit(examples_tree, "  base_env: {}", f'  base_env:\n    VLLM_X: "{value}"')
    found = [f for f in check_tree(examples_tree, CHAT) if f.rule == "REF018"]
    assert [f.line for f in found] == [line_of(text, "VLLM_X")]
    lines = _render(examples_tree)
    docker = lines.index("docker run --gpus all \\")
    assert lines[docker - 1].startswith("# warning: REF018:"), lines[docker - 3:docker + 1]


def test_the_tilde_message_names_what_bash_passes(examples_tree: Path) -> None:
    _edit(examples_tree, "  base_env: {}", '  base_env:\n    VLLM_X: "~root/x"')
    found = [f for f in check_tree(examples_tree, CHAT) if f.rule == "REF018"]
    assert "bash passes `/root/x`" in found[0].message
    assert "bash passes `~root/x`" not in found[0].message


def test_an_export_line_with_a_carriage_return_sets_the_true_value(examples_tree: Path,
                                                                  tmp_path: Path) -> None:
    _edit(examples_tree, "  base_env: {}", '  base_env:\n    VLLM_X: "a\\rb"')
    export = next(line for line in _render(examples_tree) if line.startswith("export VLLM_X"))
    done = subprocess.run(["bash", "-c", export + '\nprintf %s "$VLLM_X"'], cwd=tmp_path,
                          capture_output=True, timeout=30, check=True)
    assert done.stdout == b"a\rb"
