"""A file-wide suppression in a strategy file does not reach the findings its list causes
in a recipe (they are the recipe's: found, and filtered by the recipe's own comments,
while the recipe is checked). When ``check`` reports such a finding on the strategy file,
its ``RC001`` says so -- not a bare "suppresses nothing in this file" above a finding of
that rule in this file -- and the way it names (a comment on the recipe's selecting line)
does suppress it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main

CHAT = "models/example-org/Example-Chat-8B.yaml"
STRATEGY = "strategies/single_node_tp.yaml"


def _check(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, list[Any]]:
    cwd = os.getcwd()
    os.chdir(root)
    try:
        main(["check", "--offline", "--no-cache", "--format", "json", "--select",
              "FLAG002,RC", STRATEGY, CHAT])
    finally:
        os.chdir(cwd)
    data = json.loads(capsys.readouterr().out)
    return {doc["path"]: doc["findings"] for doc in data["documents"]}


def test_rc001_on_a_strategy_names_why_its_flag_finding_is_not_suppressed(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = examples_tree / STRATEGY
    file.write_text(file.read_text().replace(
        "vllm_args: []\n", "# recipe-check: ignore-file[FLAG002]\n"
        'vllm_args:\n  - "--language-model-only"\n'))
    found = _check(examples_tree, capsys)[STRATEGY]
    assert [f["rule"] for f in found] == ["RC001", "FLAG002"]
    message = found[0]["message"]
    assert message.startswith("suppression of FLAG002 suppresses nothing in this file: ")
    assert "findings of the recipes" in message
    assert "a comment in this file does not suppress" in message
    # the way the hint names suppresses it: a comment on the recipe's selecting line
    selecting = found[1]["related"][0]["line"]
    recipe = examples_tree / CHAT
    lines = recipe.read_text().splitlines(keepends=True)
    lines[selecting - 1] = lines[selecting - 1].rstrip("\n") + "  # recipe-check: ignore[FLAG002]\n"
    recipe.write_text("".join(lines))
    after = _check(examples_tree, capsys)
    assert [f["rule"] for f in after[STRATEGY]] == ["RC001"]


def test_an_unused_file_wide_suppression_elsewhere_keeps_its_plain_message(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = examples_tree / STRATEGY
    file.write_text(file.read_text().replace(
        "vllm_args: []\n", "# recipe-check: ignore-file[FLAG002]\nvllm_args: []\n"))
    found = _check(examples_tree, capsys)[STRATEGY]
    assert [f["message"] for f in found] == [
        "suppression of FLAG002 suppresses nothing in this file"]
