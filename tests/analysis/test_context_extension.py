"""``FLAG015``/``GUIDE020`` with ``--hf-overrides``/``--rope-scaling``: an override exempts
a ``--max-model-len`` above ``context_length`` only when its rope scaling (factor ×
``original_max_position_embeddings`` for yarn, × the length otherwise) or its
``max_position_embeddings`` reaches the value; an override that extends nothing (unrelated,
misspelt) or too little keeps the error, one whose effect cannot be read stays silent
(trial 12 #19). The example recipe's ``context_length`` is 131072."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.analysis.test_install_range import of, recipe, run

YARN = {"rope_scaling": {"rope_type": "yarn", "factor": 4.0,
                         "original_max_position_embeddings": 131072}}


def _args(override: str, length: str = "524288", flag: str = "--hf-overrides") -> str:
    return json.dumps(["--max-model-len", length, flag, override])


@pytest.mark.parametrize("override", [
    {"use_sliding_window": False},                       # extends nothing
    {"rope_scalling": YARN["rope_scaling"]},              # misspelt key
    {"rope_scaling": {"rope_type": "yarn", "factor": 2.0,
                      "original_max_position_embeddings": 131072}},  # 262144 < 524288
    {"max_position_embeddings": 262144},                  # too little
    {"text_config": {"rope_parameters": {"rope_type": "linear", "factor": 2.0}}}])
def test_an_override_that_does_not_reach_the_length_keeps_flag015(
        corpus_copy: Path, override: dict[str, object]) -> None:
    found, _ = run(corpus_copy, recipe(_args(json.dumps(override))))
    (hit,) = of(found, "FLAG015")
    assert hit.message.startswith("--max-model-len 524288 is above the model's context_length")


@pytest.mark.parametrize(("override", "flag"), [
    (json.dumps(YARN), "--hf-overrides"),
    (json.dumps({"text_config": YARN}), "--hf-overrides"),
    (json.dumps({"max_position_embeddings": 524288}), "--hf-overrides"),
    (json.dumps({"rope_scaling": {"type": "linear", "factor": 4}}), "--hf-overrides"),
    (json.dumps(YARN["rope_scaling"]), "--rope-scaling"),
    ('{"rope_scaling": $ROPE}', "--hf-overrides"),          # a reference: unreadable
    ("not json", "--hf-overrides"),
    (json.dumps({"rope_scaling": {"rope_type": "llama3", "factor": 8.0}}), "--hf-overrides"),
    (json.dumps({"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}), "--hf-overrides")])
def test_an_override_that_reaches_the_length_or_cannot_be_read_is_silent(
        corpus_copy: Path, override: str, flag: str) -> None:
    found, _ = run(corpus_copy, recipe(_args(override, flag=flag), minimum="0.10.0"))
    assert not of(found, "FLAG015")


def test_a_guide_command_with_an_unrelated_override_keeps_guide020(corpus_copy: Path) -> None:
    cmd = ("vllm serve example-org/Example-8B --max-model-len 262144 "
           "--hf-overrides '{\"use_sliding_window\": false}'")
    found, _ = run(corpus_copy, recipe(guide_cmd=cmd))
    (hit,) = of(found, "GUIDE020")
    assert hit.severity.value == "error"
    reaching = cmd.replace('{\\"use_sliding_window\\": false}', "").replace(
        "'{\"use_sliding_window\": false}'", "'" + json.dumps(YARN) + "'")
    found, _ = run(corpus_copy, recipe(guide_cmd=reaching))
    assert not of(found, "GUIDE020")
