"""A special parameter of bash (``$_``, ``$@``, ``$1``, ``$$`` ...) in a value the site
prints unquoted is ``REF018``: unlike a plain ``$NAME`` it never holds something the recipe
sets, but the user's previous command, the shell's arguments or its process id."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import line_of
from tests.rules.ref.test_ref_shell_code import _default_rendering, _edit, _ref018, bash
from validator.analysis.shell_hazards import word_hazards


def test_dollar_underscore_passes_the_last_word_of_the_users_previous_command(
        examples_tree: Path, tmp_path: Path) -> None:
    text = _edit(examples_tree, "  base_env: {}", '  base_env:\n    FOO: "$_"')
    docker = _default_rendering(examples_tree).docker_command
    run = bash(f"echo my-secret-token >/dev/null\n{docker}", tmp_path)
    assert "[FOO=my-secret-token]" in run.stdout
    (finding,) = _ref018(examples_tree)
    assert finding.line == line_of(text, "FOO:")
    assert "special parameter `$_`: bash puts the last word of the user's previous command" \
        in finding.message


@pytest.mark.parametrize("value", ["$@", "$1", "$$", "$-", "$_", "$!", "$#", "$0", "${_}",
                                   "a$$b", "$*"])
def test_each_special_parameter_is_a_hazard(value: str) -> None:
    assert word_hazards(value, literal=False, split=True) != []


@pytest.mark.parametrize("value", ["$HEAD_IP", "${HEAD_IP}", "$_X", "$IFACE_NAME"])
def test_a_plain_variable_is_no_hazard(value: str) -> None:
    assert word_hazards(value, literal=False, split=True) == []


@pytest.mark.parametrize("value", ["$IFS", "${BASH_COMMAND}", "$PIPESTATUS", "$FUNCNAME",
                                   "$BASH_ARGV", "$LINENO"])
def test_a_variable_bash_sets_for_the_running_shell_is_a_hazard(value: str) -> None:
    (hazard,) = word_hazards(value, literal=False, split=True)
    assert hazard.kind == "special parameter" and "not a variable of the recipe" in hazard.effect


def test_dollar_ifs_as_a_flag_value_vanishes_and_the_flag_takes_the_next_word(
        examples_tree: Path, tmp_path: Path) -> None:
    """The site leaves ``$IFS`` unquoted (a bare ``$NAME``): bash drops the word, and
    ``--served-model-name`` takes the next flag as its value."""
    text = _edit(examples_tree, '    - "32768"\n',
                 '    - "32768"\n    - "--served-model-name"\n    - "$IFS"\n')
    rendered = _default_rendering(examples_tree)
    run = bash(f"vllm() {{ printf '[%s]' \"$@\"; }}\n{rendered.processes[0].command}",
               tmp_path)
    assert "[--served-model-name][--" in run.stdout
    (finding,) = _ref018(examples_tree)
    assert finding.line == line_of(text, '"$IFS"')
    assert "special parameter `$IFS`: bash puts its field separators" in finding.message
