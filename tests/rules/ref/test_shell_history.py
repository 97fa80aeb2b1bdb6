"""A ``!`` that an interactive bash (where users paste the commands) reads as history
expansion is shell code in the printed command: ``REF018`` for a value the site prints
unquoted, ``FLAG027`` for a recipe's own flag item."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.rules.ref.test_ref_shell_code import CHAT, _default_rendering, _edit, _ref018
from validator.analysis.shell_hazards import word_hazards


def interactive_bash(lines: str, cwd: Path) -> str:
    """``lines`` pasted into an interactive ``bash --norc -i`` in ``cwd`` (history
    expansion on, as in a terminal), with a ``docker`` stub printing its arguments."""
    stubs = cwd / "stubs"
    stubs.mkdir(exist_ok=True)
    stub = stubs / "docker"
    stub.write_text("#!/bin/sh\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done\n")
    stub.chmod(0o755)
    run = subprocess.run(["env", "-i", f"PATH={stubs}:/usr/bin:/bin", f"HOME={cwd}", "bash",
                          "--norc", "-i"], input=lines, cwd=cwd, capture_output=True,
                         text=True, timeout=30, check=False)
    return run.stdout + run.stderr


def test_a_history_event_in_an_env_value_runs_an_earlier_line_of_the_users_terminal(
        examples_tree: Path, tmp_path: Path) -> None:
    text = _edit(examples_tree, "  base_env: {}", '  base_env:\n    FOO: "x!-1"')
    docker = _default_rendering(examples_tree).docker_command
    assert docker is not None and "-e FOO=x!-1 " in docker
    bash_output = interactive_bash(f"# ; touch pwned ;\n{docker}\n", tmp_path)
    assert (tmp_path / "pwned").exists(), bash_output
    (finding,) = _ref018(examples_tree)
    assert finding.line == line_of(text, "FOO:")
    assert "history expansion `!-1`" in finding.message


@pytest.mark.parametrize(("old", "new", "rule", "marker"), [
    ('  model_id: "example-org/Example-Chat-8B"', '  model_id: "example-org/g!-2"', "REF018",
     "model_id:"),
    ("  base_env: {}", '  base_env:\n    FOO: "!!"', "REF018", "FOO:"),
    ('    - "32768"', '    - "32768"\n    - "--served-model-name=x!-6"', "FLAG027",
     "--served-model-name"),
])
def test_a_bang_bash_expands_is_reported_where_it_is_written(
        examples_tree: Path, old: str, new: str, rule: str, marker: str) -> None:
    text = _edit(examples_tree, old, new)
    found = [f.line for f in check_tree(examples_tree, CHAT) if f.rule == rule]
    assert found == [line_of(text, marker)]


def test_a_bang_bash_leaves_alone_and_a_quoted_flag_value_are_no_finding(
        examples_tree: Path, tmp_path: Path) -> None:
    _edit(examples_tree, "  base_env: {}", '  base_env:\n    A: "wow!"\n    B: "a!=b"')
    _edit(examples_tree, '    - "32768"', '    - "32768"\n    - "--served-model-name"\n'
          '    - "x!-1"')
    assert [f for f in check_tree(examples_tree, CHAT)
            if f.rule in ("REF018", "FLAG027")] == []
    docker = _default_rendering(examples_tree).docker_command
    out = interactive_bash(f"# ; touch pwned ;\n{docker}\n", tmp_path)
    assert "[x!-1]" in out and "[A=wow!]" in out and "[B=a!=b]" in out
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("value", ["x!-6", "!!", "a!$", '"x!-1"', "!#"])
def test_bash_history_events_are_hazards(value: str) -> None:
    assert [h.kind for h in word_hazards(value, literal=False, split=True)][:1] == [
        "history expansion"]


@pytest.mark.parametrize("value", ["a!", "a!=b", "'x!-1'", "x\\!-1"])
def test_a_bang_bash_does_not_expand_is_no_history_hazard(value: str) -> None:
    assert "history expansion" not in [h.kind for h in word_hazards(value, literal=False,
                                                                       split=True)]
