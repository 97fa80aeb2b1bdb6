"""``REF018``: shell code in a value the site prints unquoted is an error, at the YAML line
and pointer of the value -- and a real bash, run on the command the site renders, shows
the hazard is real (it runs a harmless marker), while the commands of a clean recipe
hold none and pass ``bash -n``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from validator.analysis.shell_hazards import command_hazards, word_hazards
from validator.context import local_context
from validator.findings import Finding
from validator.load import load_yaml
from validator.render.cache import context_strategies
from validator.render.renderer import Configuration, Rendered, render, render_all

CHAT = "models/example-org/Example-Chat-8B.yaml"


def bash(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``command`` run by ``env -i bash -c`` in ``cwd``, where ``docker`` and ``vllm`` are
    stubs that print their arguments one per line in brackets."""
    stubs = cwd / "stubs"
    stubs.mkdir(exist_ok=True)
    for name in ("docker", "vllm"):
        stub = stubs / name
        stub.write_text("#!/bin/sh\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done\n")
        stub.chmod(0o755)
    return subprocess.run(["env", "-i", f"PATH={stubs}:/usr/bin:/bin", "bash", "-c", command],
                          cwd=cwd, capture_output=True, text=True, timeout=30, check=False)


def _edit(root: Path, old: str, new: str) -> str:
    path = root / CHAT
    text = path.read_text("utf-8")
    assert old in text, old
    text = text.replace(old, new, 1)
    path.write_text(text, "utf-8")
    return text


def _default_rendering(root: Path) -> Rendered:
    ctx = local_context(root)
    loaded = load_yaml((root / CHAT).read_bytes(), CHAT)
    strategies = context_strategies(ctx)
    return render(loaded, ctx.taxonomy, strategies,
                  Configuration.defaults(loaded, ctx.taxonomy, strategies))


def _ref018(root: Path) -> list[Finding]:
    return [f for f in check_tree(root, CHAT) if f.rule == "REF018"]


def test_an_env_value_with_a_command_substitution_runs_in_the_docker_command_and_is_an_error(
        examples_tree: Path, tmp_path: Path) -> None:
    text = _edit(examples_tree, "  base_env: {}",
                 '  base_env:\n    VLLM_LOGGING_LEVEL: "$(touch pwned)"')
    docker = _default_rendering(examples_tree).docker_command
    assert docker is not None and "-e VLLM_LOGGING_LEVEL=$(touch pwned)" in docker
    run = tmp_path / "run"
    run.mkdir()
    bash(docker, run)
    assert (run / "pwned").exists()  # the copied command runs what the recipe holds
    (finding,) = _ref018(examples_tree)
    assert finding.severity.value == "error"
    assert finding.pointer == "/model/base_env/VLLM_LOGGING_LEVEL"
    assert finding.line == line_of(text, "VLLM_LOGGING_LEVEL")
    assert "bash runs `touch pwned`" in finding.message
    assert "prints it unquoted as `-e VLLM_LOGGING_LEVEL=VALUE`" in finding.message
    assert "'$(touch pwned)'" in (finding.hint or "")


ENV = "  base_env: {}"


@pytest.mark.parametrize(("old", "new", "pointer", "runs"), [
    ('  model_id: "example-org/Example-Chat-8B"',
     '  model_id: "example-org/Example-Chat-8B>pwned"', "/model/model_id", True),
    (ENV, '  base_env:\n    HF_HOME: "/x && touch pwned;"', "/model/base_env/HF_HOME", True),
    (ENV, '  base_env:\n    HF_HOME: "`touch pwned`"', "/model/base_env/HF_HOME", True),
    (ENV, '  base_env:\n    HF_HOME: "/x\\ntouch pwned;"', "/model/base_env/HF_HOME", True),
    (ENV, '  base_env:\n    HF_HOME: "/x > pwned"', "/model/base_env/HF_HOME", True),
    ('    - "32768"', '    - "32768"\n    - "$(touch pwned)"\n    - "x"',
     "/model/base_args/2", True),
    ("  context_length: 131072", "  context_length: 131072\n  docker_image: "
     '"vllm/vllm-openai:v0.12.0;touch pwned;"', "/model/docker_image", True),
    (ENV, '  base_env:\n    HF_HOME: "a b"', "/model/base_env/HF_HOME", False),
    ('  model_id: "example-org/Example-Chat-8B"', '  model_id: "$HOME/Example-Chat-8B"',
     "/model/model_id", False),
])
def test_shell_code_anywhere_the_site_prints_unquoted_is_reported_where_it_is_written(
        examples_tree: Path, tmp_path: Path, old: str, new: str, pointer: str,
        runs: bool) -> None:
    text = _edit(examples_tree, old, new)
    rendering = _default_rendering(examples_tree)
    if runs:
        run = tmp_path / "run"
        run.mkdir()
        bash(str(rendering.docker_command), run)
        assert (run / "pwned").exists(), rendering.docker_command
    found = [f for f in _ref018(examples_tree) if f.pointer == pointer]
    assert len(found) == 1, _ref018(examples_tree)
    value_line = new.splitlines()[-1] if "base_args" not in pointer else new.splitlines()[1]
    assert found[0].line == line_of(text, value_line.strip())


def test_a_plain_dollar_variable_env_value_and_quoted_flag_values_are_no_finding(
        examples_tree: Path) -> None:
    _edit(examples_tree, "  base_env: {}", '  base_env:\n    NCCL_SOCKET_IFNAME: "$IFACE_NAME"')
    _edit(examples_tree, '    - "32768"',
          '    - "32768"\n    - "--override-generation-config"\n    - \'{"a": "$(x); b"}\'')
    assert _ref018(examples_tree) == []


# What bash makes of a value printed as `K=<value>`: the model calls it a hazard exactly
# when bash passes something else than the one word `K=<value>`.
HAZARDS = ["$(touch m)", "`touch m`", "a;touch m", "a&&touch m", "a||touch m", "a|cat",
           "a>m", "a 2>m", "a<missing", "a\ntouch m", "'open", '"open', "a #c", "$((1+1))",
           "a b", "{a,b}", "(x)", "a&", '"q"', "a\\b", "${X:-d}", "<(touch m)"]
PLAIN = ["INFO", "a/b:c", "1.5", "x=y", "-1", "a,b", "%x+y@z", ""]


@pytest.mark.parametrize("value", HAZARDS)
def test_each_hazard_the_model_names_changes_what_bash_runs(value: str,
                                                             tmp_path: Path) -> None:
    assert word_hazards(value, literal=False, split=True), value
    result = bash(f"printf '[%s]\\n' K={value}", tmp_path)
    assert result.stdout != f"[K={value}]\n" or (tmp_path / "m").exists(), result


@pytest.mark.parametrize("value", PLAIN)
def test_a_plain_word_is_no_hazard_and_bash_passes_it_unchanged(value: str,
                                                                tmp_path: Path) -> None:
    assert word_hazards(value, literal=True, split=True) == []
    assert bash(f"printf '[%s]\\n' K={value}", tmp_path).stdout == f"[K={value}]\n"


def test_the_commands_of_a_clean_recipe_hold_no_hazard_and_parse_in_bash(
        examples_tree: Path) -> None:
    ctx = local_context(examples_tree)
    for path in (CHAT, "models/example-org/Example-MoE-120B.yaml"):
        loaded = load_yaml((examples_tree / path).read_bytes(), path)
        for rendered in render_all(loaded, ctx.taxonomy, context_strategies(ctx)):
            for proc in rendered.processes:
                for command in (proc.command, proc.docker_command):
                    if command:
                        assert command_hazards(command) == [], command
                        check = subprocess.run(["bash", "-n", "-c", command], check=False,
                                               capture_output=True, text=True)
                        assert check.returncode == 0, (command, check.stderr)


def test_a_continued_command_with_site_variables_and_quoted_json_is_no_hazard() -> None:
    command = ("vllm serve org/m \\\n  --data-parallel-address $HEAD_IP \\\n"
               "  --speculative-config '{\"a\":\"b'\\''c\"}'")
    assert command_hazards(command) == []




def test_the_message_and_the_hint_write_a_line_break_alike(examples_tree: Path) -> None:
    _edit(examples_tree, "  base_env: {}", '  base_env:\n    NL: "a\\nrm -rf ~"')
    (finding,) = [f for f in _ref018(examples_tree) if "value of env NL" in f.message]
    assert "'a\\u000arm -rf ~'" in finding.message
    assert "'a\\u000arm -rf ~'" in (finding.hint or "")
    assert "\\\\u000a" not in finding.message + (finding.hint or "")


def test_a_value_under_a_tag_js_yaml_refuses_is_only_the_tags_finding(
        examples_tree: Path) -> None:
    _edit(examples_tree, "  base_env: {}",
          '  base_env: !!python/object/apply:os.system ["a\\nrm -rf ~"]')
    found = check_tree(examples_tree, CHAT)
    assert "YAML009" in {f.rule for f in found}
    assert _ref018(examples_tree) == []



@pytest.mark.parametrize("value", [
    '{"example-org/Example-Chat-8B": "example-org/Example-Chat-8B"}',
    '["example-org/Example-Chat-8B"]',
])
def test_a_model_id_of_the_wrong_type_is_a_schema_finding_not_an_internal_error(
        examples_tree: Path, value: str) -> None:
    """A mapping or a list where the model id goes reaches the rendered commands as it
    is: REF018 reads it (unhashable, so not shared between configurations) and the
    schema reports the type; no rule fails."""
    _edit(examples_tree, 'model_id: "example-org/Example-Chat-8B"', f"model_id: {value}")
    found = check_tree(examples_tree, CHAT)  # asserts no internal error
    assert any(f.rule.startswith("SCHEMA") for f in found)


@pytest.mark.parametrize("value", ["$_", "${_}"])
def test_a_special_parameter_the_site_leaves_unquoted_as_a_flag_value_is_an_error(
        examples_tree: Path, tmp_path: Path, value: str) -> None:
    """``$_`` has the shape of a plain ``$NAME``, so the site prints it unquoted after its
    flag; bash puts the last word of the user's previous command there."""
    text = _edit(examples_tree, '    - "32768"',
                 f'    - "32768"\n    - "--served-model-name"\n    - "{value}"')
    rendering = _default_rendering(examples_tree)
    run = tmp_path / "run"
    run.mkdir()
    ran = bash(f"echo previous-word >/dev/null\n{rendering.command}", run)
    assert "[previous-word]" in ran.stdout or value == "${_}"  # ${_} is quoted by the site
    found = _ref018(examples_tree)
    if value == "$_":
        assert [f.line for f in found] and {f.line for f in found} == {
            line_of(text, f'- "{value}"')}
        assert "special parameter `$_`" in found[0].message
    else:
        assert found == []


def test_a_special_parameter_in_a_printed_command_is_a_hazard() -> None:
    assert [h.kind for h in command_hazards("vllm serve m --served-model-name $_")] == [
        "special parameter"]
    assert command_hazards("vllm serve m --host $HEAD_IP --x $_IP") == []
