"""An environment variable name that decides which code a program loads (``PYTHONPATH``,
``PYTHONHOME``, ``GCONV_PATH``, ``NODE_OPTIONS`` ...) is ``REF018`` like ``LD_PRELOAD``:
``export NAME=...`` makes every later program of the user's shell (vLLM's Python
included) load code from where the recipe says. No recipe or context env map of the
corpus (main and every PR head) sets one; guide text that shows ``-e PYTHONPATH=...`` in
a command is not an env map and stays unjudged by it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import line_of
from tests.rules.ref.test_ref_shell_code import CHAT, _edit, _ref018, bash
from validator.cli import main


def test_an_exported_pythonpath_makes_a_later_python_import_the_recipes_module(
        examples_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _edit(examples_tree, "  base_env: {}", '  base_env:\n    PYTHONPATH: "./mods"')
    main(["render", str(examples_tree / CHAT)])
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("export PYTHONPATH=./mods")
    assert lines[at - 1].startswith("# warning: REF018: bash would not run this command as "
                                    "shown: code-loading variable `PYTHONPATH`")
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "json.py").write_text("open('pwned', 'w').close()\n")
    bash(f"{lines[at]}\n{sys.executable} -I -c 'pass' && {sys.executable} -c 'import json'",
         tmp_path)
    assert (tmp_path / "pwned").exists()  # the recipe's folder shadowed the standard library
    (finding,) = _ref018(examples_tree)
    assert finding.severity.name == "ERROR"
    assert finding.line == line_of(text, "PYTHONPATH")
    assert finding.message.startswith("the env name 'PYTHONPATH' is a variable that decides "
                                      "which code a program loads, not a setting of vLLM")
    assert (finding.hint or "").startswith("remove the variable")


@pytest.mark.parametrize("name", ["PYTHONHOME", "PYTHONSTARTUP", "GCONV_PATH", "NODE_OPTIONS",
                                  "PERL5OPT", "RUBYOPT", "JAVA_TOOL_OPTIONS"])
def test_each_code_loading_name_is_reported_at_its_line(examples_tree: Path,
                                                        name: str) -> None:
    text = _edit(examples_tree, "  base_env: {}", f'  base_env:\n    "{name}": "x"')
    assert [f.line for f in _ref018(examples_tree)] == [line_of(text, name)]


def test_python_settings_that_load_no_code_stay_clean(examples_tree: Path) -> None:
    _edit(examples_tree, "  base_env: {}", '  base_env:\n    PYTHONUNBUFFERED: "1"\n'
          '    PYTHONHASHSEED: "0"\n    MY_PYTHONPATH: "/x"\n    NODE_ENV: "production"')
    assert _ref018(examples_tree) == []
