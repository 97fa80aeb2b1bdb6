"""``GUIDE020``: a guide command's ``--max-model-len`` above ``model.context_length`` (the
guide's ``FLAG015``, sharing :mod:`validator.analysis.context_length`), on the shipped
example recipe (context length 131072, a guide serving it with ``--max-model-len 32768``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once

CHAT = "models/example-org/Example-Chat-8B.yaml"
LEN = "    --max-model-len 32768 \\\n"
LONG = "    --max-model-len 262144 \\\n"
SERVE = "  vllm serve example-org/Example-Chat-8B \\\n"
DOCKER = "  docker run --gpus all {env}vllm/vllm-openai:v0.12.0 example-org/Example-Chat-8B \\\n"


def guide020(root: Path) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in check_tree(root, CHAT) if f.rule == "GUIDE020"]


def test_the_example_guide_is_clean(examples_tree: Path) -> None:
    assert guide020(examples_tree) == []


@pytest.mark.parametrize("written", ["--max-model-len 262144", "--max-model-len=262144",
                                     "--max-model-len 256k", "--max-model-len=200K"])
def test_a_guide_length_above_the_context_is_an_error_at_its_line(
        examples_tree: Path, written: str) -> None:
    text = replace_once(examples_tree / CHAT, LEN, f"    {written} \\\n")
    findings = [f for f in check_tree(examples_tree, CHAT) if f.rule == "GUIDE020"]
    (hit,) = findings
    assert hit.severity.value == "error"
    assert hit.line == line_of(text, written)
    value = written.split("=")[-1].split()[-1]
    assert hit.message == (f"--max-model-len {value} is above the model's context_length "
                           "131072: vLLM refuses to start")
    (rel,) = hit.related
    assert rel.line == line_of(text, "context_length: 131072")


@pytest.mark.parametrize("written", ["--max-model-len 131072", "--max-model-len 128k",
                                     "--max-model-len 128K", "--max-model-len auto",
                                     "--max-model-len -1"])
def test_a_length_within_the_context_or_automatic_is_no_finding(
        examples_tree: Path, written: str) -> None:
    replace_once(examples_tree / CHAT, LEN, f"    {written} \\\n")
    assert guide020(examples_tree) == []


@pytest.mark.parametrize(("old", "new"), [
    (SERVE, "  VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 " + SERVE.lstrip()),
    (SERVE, "  export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1\n" + SERVE),
    ("  ## Launching the server\n\n", "  ## Launching the server\n\n  ```bash\n"
     "  export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1\n  ```\n\n"),
    (LONG, LONG + "    --hf-overrides '{\"rope_scaling\": {\"rope_type\": \"yarn\", "
     "\"factor\": 2.0}}' \\\n"),
    (SERVE, DOCKER.format(env="-e VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 ")),
], ids=["prefix", "export-in-block", "export-in-section", "rope-scaling", "docker-e"])
def test_a_command_that_extends_the_context_is_no_finding(examples_tree: Path, old: str,
                                                          new: str) -> None:
    replace_once(examples_tree / CHAT, LEN, LONG)
    replace_once(examples_tree / CHAT, old, new)
    assert guide020(examples_tree) == []


def test_an_export_in_another_section_does_not_extend_the_context(
        examples_tree: Path) -> None:
    replace_once(examples_tree / CHAT, LEN, LONG)
    replace_once(examples_tree / CHAT, "  ## Launching the server\n\n",
                 "  ## Setup\n\n  ```bash\n  export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1\n  ```\n\n"
                 "  ## Launching the server\n\n")
    assert len(guide020(examples_tree)) == 1


def test_a_docker_command_without_the_variable_is_judged(examples_tree: Path) -> None:
    replace_once(examples_tree / CHAT, LEN, LONG)
    text = replace_once(examples_tree / CHAT, SERVE, DOCKER.format(env=""))
    assert [line for line, _ in guide020(examples_tree)] == [line_of(text, "262144")]


def test_a_command_serving_another_model_is_not_judged(examples_tree: Path) -> None:
    """The recipe states the context of its own model ids only."""
    replace_once(examples_tree / CHAT, LEN, LONG)
    replace_once(examples_tree / CHAT, SERVE, SERVE.replace("Example-Chat-8B",
                                                            "Example-Chat-8B-Long"))
    assert guide020(examples_tree) == []
