"""An environment variable name the shell or the dynamic loader acts on (``BASH_ENV``,
``PROMPT_COMMAND``, ``LD_PRELOAD``, ``PATH`` ...) is ``REF018``: ``export NAME=...``
changes the user's own shell, whatever plain value it has."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import line_of
from tests.rules.ref.test_ref_shell_code import CHAT, _edit, _ref018, bash
from validator.cli import main


def test_an_exported_bash_env_makes_every_later_bash_run_a_file_and_is_an_error(
        examples_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _edit(examples_tree, "  base_env: {}", '  base_env:\n    BASH_ENV: "./hook.sh"')
    main(["render", str(examples_tree / CHAT)])
    exports = [line for line in capsys.readouterr().out.splitlines()
               if line.startswith("export BASH_ENV")]
    assert exports == ["export BASH_ENV=./hook.sh"]
    (tmp_path / "hook.sh").write_text("touch pwned\n")
    bash(f"{exports[0]}\nbash -c true", tmp_path)
    assert (tmp_path / "pwned").exists()  # a later script of the user's ran the file
    (finding,) = _ref018(examples_tree)
    assert finding.line == line_of(text, "BASH_ENV")
    assert finding.message.startswith("the env name 'BASH_ENV' is a variable the shell acts "
                                      "on, not a setting of vLLM")
    assert "every non-interactive bash started later first runs the file it names" in (
        finding.message)
    assert (finding.hint or "").startswith("remove the variable")


@pytest.mark.parametrize("name", ["PROMPT_COMMAND", "LD_PRELOAD", "PATH", "IFS", "PS1",
                                  "SHELLOPTS", "BASH_FUNC_vllm%%", "HISTFILE", "ENV"])
def test_each_shell_control_name_is_reported_at_its_line(examples_tree: Path,
                                                         name: str) -> None:
    text = _edit(examples_tree, "  base_env: {}", f'  base_env:\n    "{name}": "x"')
    assert [f.line for f in _ref018(examples_tree)] == [line_of(text, name)]


def test_vllm_and_library_names_stay_clean(examples_tree: Path) -> None:
    _edit(examples_tree, "  base_env: {}", '  base_env:\n    VLLM_USE_V1: "1"\n'
          '    NCCL_DEBUG: "INFO"\n    HF_HOME: "/data"\n    PATHWAYS: "x"\n'
          '    MY_PATH: "/x"\n    CUDA_VISIBLE_DEVICES: "0,1"')
    assert _ref018(examples_tree) == []


@pytest.mark.parametrize(("name", "value"), [("LD_PRELOAD", "/x.so"),
                                           ("NODE_OPTIONS", "--require=/x.js")])
def test_a_shell_control_name_in_a_strategy_is_reported_on_the_strategy(
        examples_tree: Path, capsys: pytest.CaptureFixture[str], name: str, value: str) -> None:
    strategy = examples_tree / "strategies/single_node_tp.yaml"
    text = strategy.read_text().replace("vllm_args: []",
                                        f'vllm_args: []\nenv:\n  {name}: "{value}"')
    strategy.write_text(text)
    code = main(["check", "--offline", "--no-cache", "--select", "REF018", str(strategy)])
    assert code == 1
    line = line_of(text, name)
    assert f"single_node_tp.yaml:{line}:{len(name) + 5}: error REF018 the env name '{name}'" in (
        capsys.readouterr().out)


def test_render_warns_above_the_export_of_a_shell_control_name(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(examples_tree, "  base_env: {}", '  base_env:\n    PROMPT_COMMAND: "exit"')
    main(["render", str(examples_tree / CHAT)])
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("export PROMPT_COMMAND=exit")
    assert lines[at - 1].startswith("# warning: REF018: bash would not run this command as "
                                    "shown: shell-control variable `PROMPT_COMMAND`")
