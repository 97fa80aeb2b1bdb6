"""``REF018`` on a strategy's ``parallel_flag`` says what the site prints: a single-node
strategy's flag before the parallel size; a multi-node strategy's only on one node, its
own ``--tensor-parallel-size N`` on more (as the rendered multi-node command shows)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import replace_once
from validator.cli import main
from validator.context import local_context
from validator.load import load_yaml
from validator.render.cache import context_strategies
from validator.render.renderer import Configuration, render

MULTI = "strategies/multi_node_tp.yaml"
MOE = "models/example-org/Example-MoE-120B.yaml"


def _messages(root: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    main(["check", "--offline", "--no-cache", "--format", "json", "--select", "REF018",
          str(root / MULTI)])
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return [f["message"] for d in doc["documents"] for f in d["findings"]]


def test_a_multi_node_parallel_flag_message_says_what_is_printed(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replace_once(examples_tree / MULTI, 'parallel_flag: "--tensor-parallel-size"',
                 'parallel_flag: "--tensor-parallel-size&touch"')
    [message] = _messages(examples_tree, capsys)
    assert "prints the strategy's parallel flag unquoted before the parallel size" \
        not in message
    assert "only where this multi-node strategy renders on one node" in message
    ctx = local_context(examples_tree)
    loaded = load_yaml((examples_tree / MOE).read_bytes(), MOE)
    strategies = context_strategies(ctx)
    rendered = render(loaded, ctx.taxonomy, strategies,
                      Configuration("h200", strategy="multi_node_tp", nodes=2))
    command = str(rendered.processes[0].command)
    assert re.search(r"--tensor-parallel-size \d+ ", command) and "&touch" not in command
