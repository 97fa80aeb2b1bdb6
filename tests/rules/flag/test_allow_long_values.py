"""``FLAG015``: ``VLLM_ALLOW_LONG_MAX_MODEL_LEN`` exempts a ``--max-model-len`` above the
model's ``context_length`` only with a value vLLM reads as on (``envs.py``: ``.strip().lower()
in ("1", "true")``); ``"false"``, ``"no"`` or ``"yes"`` leave vLLM's refusal in place
(trial 13 #13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, replace_once

CHAT = "models/example-org/Example-Chat-8B.yaml"


@pytest.mark.parametrize(("value", "exempt"), [
    ('"1"', True), ('"true"', True), ("true", True),
    ('"false"', False), ('"no"', False), ('"yes"', False), ('"0"', False),
])
def test_only_a_value_vllm_reads_as_on_exempts_a_long_max_model_len(
        examples_tree: Path, value: str, exempt: bool) -> None:
    replace_once(examples_tree / CHAT, '    - "32768"\n  base_env: {}\n',
                 f'    - "262144"\n  base_env:\n    VLLM_ALLOW_LONG_MAX_MODEL_LEN: {value}\n')
    found = [f.rule for f in check_tree(examples_tree, CHAT) if f.rule == "FLAG015"]
    assert found == ([] if exempt else ["FLAG015"])
