"""A strategy's ``parallel_flag`` goes into every command of every recipe rendering the
strategy, so it is judged like an item of its ``vllm_args``: an option no vLLM knows
(``FLAG001``), an underscore spelling (``FLAG013``) on the strategy file at the flag's
line, and a flag newer than a using recipe's minimum (``FLAG002``) at that recipe's
range, reported on the strategy file too (real render, real git)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import line_of, replace_once
from validator.cli import main

STRATEGY = "strategies/single_node_tp.yaml"
CHAT = "models/example-org/Example-Chat-8B.yaml"


def _flag(root: Path, flag: str) -> str:
    return replace_once(root / STRATEGY, 'parallel_flag: "--tensor-parallel-size"',
                        f'parallel_flag: "{flag}"')


def _check(root: Path, capsys: pytest.CaptureFixture[str], *paths: str
           ) -> list[tuple[str, str, int, str]]:
    main(["check", "--offline", "--no-cache", "--format", "json",
          *(str(root / p) for p in paths)])
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return [(d["path"], f["rule"], f["line"], f["message"]) for d in doc["documents"]
            for f in d["findings"] if f["rule"].startswith("FLAG")]


def test_a_typo_in_parallel_flag_is_reported_on_the_strategy_while_render_prints_it(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _flag(examples_tree, "--tensor-paralel-size")
    main(["render", str(examples_tree / CHAT)])
    assert "--tensor-paralel-size" in capsys.readouterr().out  # in the command users copy
    found = _check(examples_tree, capsys, STRATEGY, CHAT)
    assert [(p, r, line) for p, r, line, _m in found] == [
        (STRATEGY, "FLAG001", line_of(text, "parallel_flag"))]


def test_an_underscore_spelling_of_parallel_flag_is_flag013_on_the_strategy(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _flag(examples_tree, "--tensor_parallel_size")
    found = _check(examples_tree, capsys, STRATEGY)
    assert [(p, r, line) for p, r, line, _m in found] == [
        (STRATEGY, "FLAG013", line_of(text, "parallel_flag"))]


def test_a_parallel_flag_newer_than_a_using_recipes_minimum_is_flag002(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _flag(examples_tree, "--data-parallel-size")
    replace_once(examples_tree / CHAT, 'min_vllm_version: "0.12.0"', 'min_vllm_version: "0.6.4"')
    found = [f for f in _check(examples_tree, capsys, STRATEGY, CHAT)
             if "--data-parallel-size" in f[3]]
    assert [(p, r, line) for p, r, line, _m in found] == [
        (STRATEGY, "FLAG002", line_of(text, "parallel_flag"))]
    assert found[0][3].startswith(f"{CHAT}: parallel_flag: `--data-parallel-size`")


def test_a_known_parallel_flag_stays_clean(examples_tree: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    _flag(examples_tree, "--data-parallel-size")
    assert _check(examples_tree, capsys, STRATEGY, CHAT) == []
