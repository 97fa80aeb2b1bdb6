"""A recipe's ``strategy_overrides.<strategy>.<prefill|decode>.parallel_flag`` is what the
site prints for that PD role before the strategy file's own, so it is judged like the
strategy's: ``FLAG001`` for an option no vLLM knows, ``FLAG013`` for an underscore
spelling, ``FLAG002`` for a flag newer than the recipe's minimum -- on the recipe's line.
A ``parallel_flag`` carrying its own value (``--tensor-parallel-size=2``) gets a stray
size after it: ``FLAG005``, on the strategy file or on the recipe (real files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import line_of, replace_once
from validator.cli import main

CHAT = "models/example-org/Example-Chat-8B.yaml"
STRATEGY = "strategies/multi_node_tp.yaml"


def _role_flags(root: Path, prefill: str, decode: str) -> str:
    return replace_once(root / CHAT, "compatible_strategies:\n", (
        "strategy_overrides:\n  pd_cluster:\n    prefill:\n"
        f'      parallel_flag: "{prefill}"\n    decode:\n'
        f'      parallel_flag: "{decode}"\n\ncompatible_strategies:\n'))


def _flag_findings(root: Path, capsys: pytest.CaptureFixture[str], path: str
                   ) -> list[tuple[str, int, str]]:
    main(["check", "--offline", "--no-cache", "--format", "json", str(root / path)])
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return [(f["rule"], f["line"], f["message"]) for d in doc["documents"]
            for f in d["findings"] if f["rule"].startswith("FLAG")]


def test_a_typo_and_an_underscore_spelling_of_a_recipes_role_parallel_flag_are_reported(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _role_flags(examples_tree, "--tensor-paralel-size", "--data_parallel_size")
    found = _flag_findings(examples_tree, capsys, CHAT)
    assert [(r, line) for r, line, _m in found] == [
        ("FLAG001", line_of(text, "--tensor-paralel-size")),
        ("FLAG013", line_of(text, "--data_parallel_size"))]


def test_a_recipes_role_parallel_flag_newer_than_its_minimum_is_flag002(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replace_once(examples_tree / CHAT, 'min_vllm_version: "0.12.0"', 'min_vllm_version: "0.6.4"')
    text = _role_flags(examples_tree, "--data-parallel-size", "--tensor-parallel-size")
    found = [f for f in _flag_findings(examples_tree, capsys, CHAT)
             if "--data-parallel-size" in f[2]]
    assert [(r, line) for r, line, _m in found] == [
        ("FLAG002", line_of(text, '"--data-parallel-size"'))]


def test_valid_role_parallel_flags_get_no_finding(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _role_flags(examples_tree, "--tensor-parallel-size", "--data-parallel-size")
    assert _flag_findings(examples_tree, capsys, CHAT) == []


def test_a_recipes_role_parallel_flag_carrying_a_value_is_flag005(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _role_flags(examples_tree, "--tensor-parallel-size=2", "--tensor-parallel-size")
    found = _flag_findings(examples_tree, capsys, CHAT)
    assert [(r, line) for r, line, _m in found] == [
        ("FLAG005", line_of(text, "--tensor-parallel-size=2"))]
    assert "already carries a value" in found[0][2]


def test_a_strategys_parallel_flag_carrying_a_value_is_flag005_on_the_strategy(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = replace_once(examples_tree / STRATEGY, 'parallel_flag: "--tensor-parallel-size"',
                        'parallel_flag: "--tensor-parallel-size=2"')
    found = _flag_findings(examples_tree, capsys, STRATEGY)
    assert [(r, line) for r, line, _m in found] == [("FLAG005", line_of(text, "parallel_flag"))]
