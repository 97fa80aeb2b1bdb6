"""The broken parts of a rendering's processes are found once per processes tuple: the
configurations that reuse one rendering share its processes, and each gets its problems
with its own label."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import EXAMPLES
from validator.render.configuration import Configuration, Process, Token
from validator.render.documents import Documents
from validator.render.problems import output_problems

PROJECT = Path(__file__).resolve().parents[2]
CHAT = "models/example-org/Example-Chat-8B.yaml"
DOCS = Documents("models/x/Y.yaml", "taxonomy.yaml", {})


def _processes() -> tuple[Process, ...]:
    tokens = (Token("vllm", "vllm", "", ""), Token("serve", "vllm", "", ""),
              Token("unknown", "model.model_id", "/model/model_id", DOCS.recipe),
              Token("--max-model-len", "model.base_args", "/model/base_args/0", DOCS.recipe),
              Token("[object Object]", "model.base_args", "/model/base_args/1",
                    DOCS.recipe))
    env: dict[str, Any] = {"A": {"k": 1}, "B": "ok", "C": None}
    return (Process("serve", "vllm serve unknown", tuple(t.text for t in tokens), None, None,
                    env, tokens),)


def test_each_configuration_gets_the_shared_faults_under_its_own_label() -> None:
    processes = _processes()
    site = {"docker_image": "img"}
    faults: dict[int, Any] = {}
    h200, b200 = Configuration("h200"), Configuration("b200")
    shared = [output_problems(site, processes, DOCS, c, None, faults) for c in (h200, b200)]
    alone = [output_problems(site, processes, DOCS, c) for c in (h200, b200)]
    assert shared == alone
    assert list(faults) == [id(processes)]
    assert [(p.code, p.pointer) for p in shared[1]] == [
        ("no-model-id", "/model"), ("broken-value", "/model/base_args/1"),
        ("broken-value", ""), ("broken-value", "")]
    assert all(p.message.startswith(b200.label()) for p in shared[1])


def test_a_clean_rendering_makes_no_label() -> None:
    tokens = (Token("vllm", "vllm", "", ""), Token("serve", "vllm", "", ""),
              Token("org/m", "model.model_id", "/model/model_id", DOCS.recipe))
    clean = (Process("serve", "vllm serve org/m", ("vllm", "serve", "org/m"), None, None, {},
                     tokens),)
    faults: dict[int, Any] = {}
    assert output_problems({"docker_image": "img"}, clean, DOCS, Configuration("h200"), None,
                           faults) == []
    assert faults[id(clean)] == (clean, ())


def test_a_strategy_id_that_is_no_string_gives_the_render_rules_nothing(
        tmp_path: Path) -> None:
    """``compatible_strategies: [single_node_tp, 0]``: the schema reports the ``0``; the
    render rules, which name configurations, add nothing and none of them crashes (the
    labels made only for problems once let a configuration named ``0`` reach them)."""
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    path = root / CHAT
    text = path.read_text(encoding="utf-8")
    assert "compatible_strategies:" in text
    path.write_text(text.replace("compatible_strategies:", "compatible_strategies:\n  - 0",
                                 1), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "validator", "check", "--offline", "--no-cache",
         "--format", "json", CHAT], cwd=root, capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONPATH": str(PROJECT)})
    assert "internal error" not in proc.stderr, proc.stderr
    rules = {f["rule"] for d in json.loads(proc.stdout)["documents"] for f in d["findings"]}
    assert "SCHEMA001" in rules
