""":mod:`validator.analysis.context_length`, the judgement ``FLAG015`` (argument lists)
and ``GUIDE020`` (guide commands) share: what vLLM refuses at start, and what exempts a
command from it."""

from __future__ import annotations

import pytest

from validator.analysis.cli_plan import newest, registry
from validator.analysis.context_length import (
    above_context,
    allows_long,
    context_length,
    too_long,
)
from validator.vllm_cli import argv
from validator.vllm_cli.data_source import CliRegistries
from validator.vllm_cli.registry import CliRegistry

CLI = CliRegistries()
REGISTRY = newest(CLI)
ROPE_SCALING = registry(CLI, "0.11.0")  # the last release with --rope-scaling


def over(*tokens: str, limit: int = 131072,
         release: CliRegistry | None = REGISTRY) -> list[str | None]:
    assert release is not None
    parsed = argv.parse_args(tokens, release)
    return [opt.value for opt in above_context(parsed, limit)]


@pytest.mark.parametrize("tokens", [("--max-model-len", "262144"), ("--max-model-len=262144",),
                                    ("--max-model-len", "200K"), ("--max-model-len", "132k")])
def test_a_length_above_the_limit_is_named_in_every_spelling(tokens: tuple[str, ...]) -> None:
    assert len(over(*tokens)) == 1


@pytest.mark.parametrize("value", ["131072", "128K", "131k", "auto", "-1", "$MAX_LEN"])
def test_a_length_within_the_limit_or_not_a_number_is_not(value: str) -> None:
    assert over("--max-model-len", value) == []


def test_rope_scaling_in_the_same_arguments_exempts_them() -> None:
    assert over("--max-model-len", "262144", "--hf-overrides", '{"rope_scaling": {}}') == []
    assert over("--max-model-len", "262144", "--rope-scaling", '{"rope_type": "yarn"}',
                release=ROPE_SCALING) == []
    assert over("--max-model-len", "262144", release=ROPE_SCALING) == ["262144"]


def test_the_variable_allows_a_longer_length_when_vllm_reads_it_as_on() -> None:
    assert allows_long([("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "1")])
    assert allows_long([("OTHER", "0"), ("VLLM_ALLOW_LONG_MAX_MODEL_LEN", 1)])
    assert allows_long([("VLLM_ALLOW_LONG_MAX_MODEL_LEN", " TRUE ")])
    assert allows_long([("VLLM_ALLOW_LONG_MAX_MODEL_LEN", True)])  # YAML true, printed true
    assert not allows_long([("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "0")])
    assert not allows_long([("VLLM_ALLOW_LONG_MAX_MODEL_LEN", " ")])
    assert not allows_long([("VLLM_ALLOW_LONG_MAX_MODEL_LENGTH", "1")])


@pytest.mark.parametrize("value", ["false", "no", "yes", "on", "2", "enabled", False])
def test_values_vllm_reads_as_off_allow_nothing(value: object) -> None:
    """vLLM's ``envs.py``: ``.strip().lower() in ("1", "true")`` (trial 13 #13)."""
    assert not allows_long([("VLLM_ALLOW_LONG_MAX_MODEL_LEN", value)])


def test_only_a_positive_integer_is_a_context_length() -> None:
    assert context_length({"model": {"context_length": 4096}}) == 4096
    for bad in (0, -1, True, "4096", 4096.0, None):
        assert context_length({"model": {"context_length": bad}}) is None
    assert context_length(None) is None
    assert too_long("256k", 131072) == ("--max-model-len 256k is above the model's "
                                        "context_length 131072: vLLM refuses to start")
