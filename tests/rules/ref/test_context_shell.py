"""Shell code in a value a context file (a strategy, a kv-store deployment, the
taxonomy's KV offload options) adds to the commands users copy is ``REF018`` on that file,
at its own line, when a run names the file: the site prints those values unquoted, and
bash runs what they hold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import check_tree, line_of
from tests.context_files import KV_STORE, kv_offload_text, kv_store_text
from tests.render.tiny_tree import write_tree
from tests.rules.ref.test_ref_shell_code import _default_rendering, bash
from validator.cli import main
from validator.context import local_context
from validator.load import load_yaml
from validator.render.cache import context_strategies
from validator.render.site import site_rendering

CHAT = "models/example-org/Example-Chat-8B.yaml"
STRATEGY = "strategies/single_node_tp.yaml"


def _ref018(root: Path, capsys: pytest.CaptureFixture[str], path: str,
            ) -> tuple[int, list[tuple[str, int, str]]]:
    code = main(["check", "--offline", "--no-cache", "--format", "json", "--select", "REF018",
                 str(root / path)])
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, [(d["path"], f["line"], f["message"]) for d in doc["documents"]
                  for f in d["findings"]]


def _kv_offload_docker_command(root: Path) -> str:
    """The ``docker run`` the site shows for the chat recipe with the KV offload pill."""
    recipe = root / CHAT
    recipe.write_text(recipe.read_text() + "kv_offload_support:\n  example_cpu: verified\n")
    ctx = local_context(root)
    loaded = load_yaml(recipe.read_bytes(), CHAT)
    assert ctx.taxonomy is not None
    out = site_rendering(loaded.data, "default", "single_node_tp", "h200", 1, [],
                         context_strategies(ctx), ctx.taxonomy.data, None, "example_cpu")
    assert out is not None
    return str(out["docker_command"])


@pytest.mark.parametrize("env", [False, True])
def test_shell_code_in_a_kv_offload_option_runs_and_is_reported_on_the_taxonomy(
        examples_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        env: bool) -> None:
    taxonomy = examples_tree / "taxonomy.yaml"
    text = taxonomy.read_text() + kv_offload_text(
        "--kv-offloading-size", "8", *(() if env else ("--served-model-name=x$(touch pwned)",)))
    if env:
        text += '    env:\n      PYTHONHASHSEED: "0$(touch pwned)"\n'
    taxonomy.write_text(text)
    run = tmp_path / "run"
    run.mkdir()
    bash(_kv_offload_docker_command(examples_tree), run)
    assert (run / "pwned").exists()  # the command the site shows runs the payload
    code, found = _ref018(examples_tree, capsys, "taxonomy.yaml")
    assert code == 1
    (path, line, message), = found
    assert (path, line) == ("taxonomy.yaml", line_of(
        text, "PYTHONHASHSEED" if env else "--served-model-name=x$(touch pwned)"))
    assert "bash runs `touch pwned`" in message


@pytest.mark.parametrize(("old", "new", "marker"), [
    ("vllm_args: []", 'vllm_args: ["--served-model-name=x;touch pwned"]', "--served"),
    ("vllm_args: []", 'vllm_args: []\nenv:\n  NCCL_DEBUG: "INFO;touch pwned"', "NCCL_DEBUG"),
    ("vllm_args: []", 'vllm_args: []\nenv:\n  "A;touch pwned;B": "1"', "A;touch"),
])
def test_shell_code_in_a_strategy_is_reported_on_the_strategy_at_its_line(
        examples_tree: Path, capsys: pytest.CaptureFixture[str], old: str, new: str,
        marker: str) -> None:
    strategy = examples_tree / STRATEGY
    text = strategy.read_text().replace(old, new, 1)
    strategy.write_text(text)
    code, found = _ref018(examples_tree, capsys, STRATEGY)
    assert code == 1
    assert [(p, n) for p, n, _m in found] == [(STRATEGY, line_of(text, marker))]
    code, found = _ref018(examples_tree, capsys, ".")
    assert (STRATEGY, line_of(text, marker)) in [(p, n) for p, n, _m in found]


def test_shell_code_in_a_kv_store_env_is_reported_on_the_kv_store(
        examples_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (examples_tree / "kv_store").mkdir()
    text = kv_store_text() + '  env:\n    MOONCAKE_CONFIG_PATH: "$(touch pwned)"\n'
    (examples_tree / KV_STORE).write_text(text)
    run = tmp_path / "run"
    run.mkdir()
    bash("docker run -e MOONCAKE_CONFIG_PATH=$(touch pwned) img", run)
    assert (run / "pwned").exists()
    code, found = _ref018(examples_tree, capsys, KV_STORE)
    assert code == 1
    assert [(p, n) for p, n, _m in found] == [(KV_STORE, line_of(text, "MOONCAKE_CONFIG"))]


def test_plain_context_values_and_quoted_flag_values_are_no_finding(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taxonomy = examples_tree / "taxonomy.yaml"
    taxonomy.write_text(taxonomy.read_text() + kv_offload_text(
        "--kv-transfer-config", '{"kv_connector":"X","a":"$(y); b"}')
        + '    env:\n      PYTHONHASHSEED: "0"\n      NCCL_SOCKET_IFNAME: "$IFACE_NAME"\n')
    assert _ref018(examples_tree, capsys, "taxonomy.yaml") == (0, [])


def _site_docker_command(root: Path) -> str:
    """The ``docker run`` the site shows for the chat recipe by default."""
    rendered = _default_rendering(root)
    assert rendered.docker_command is not None
    return rendered.docker_command


@pytest.mark.parametrize("payload", ["--tensor-parallel-size;touch pwned;:",
                                     "--tensor-parallel-size$(touch pwned)"])
def test_shell_code_in_a_strategys_parallel_flag_is_reported_once_on_the_strategy(
        examples_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        payload: str) -> None:
    strategy = examples_tree / STRATEGY
    text = strategy.read_text().replace('parallel_flag: "--tensor-parallel-size"',
                                        f'parallel_flag: "{payload}"', 1)
    strategy.write_text(text)
    run = tmp_path / "run"
    run.mkdir()
    bash(_site_docker_command(examples_tree), run)
    assert (run / "pwned").exists()  # the site prints the flag as written
    code, found = _ref018(examples_tree, capsys, STRATEGY)
    assert code == 1
    assert [(p, n) for p, n, _m in found] == [(STRATEGY, line_of(text, "parallel_flag"))]
    # a run over the whole tree: the finding is the strategy's, not a copy per recipe
    _code, found = _ref018(examples_tree, capsys, ".")
    assert [(p, n) for p, n, _m in found] == [(STRATEGY, line_of(text, "parallel_flag"))]


def test_a_strategy_value_is_reported_on_the_strategy_not_at_line_one_of_each_recipe(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    strategy = examples_tree / STRATEGY
    text = strategy.read_text().replace(
        "vllm_args: []", 'vllm_args: []\nenv:\n  NCCL_DEBUG: "INFO;touch pwned"', 1)
    strategy.write_text(text)
    assert [f for f in check_tree(examples_tree, CHAT) if f.rule == "REF018"] == []
    for named in (".", "models", CHAT):  # also when only the recipes are named
        code, found = _ref018(examples_tree, capsys, named)
        assert code == 1
        assert [(p, n) for p, n, _m in found] == [(STRATEGY, line_of(text, "NCCL_DEBUG"))]


def test_a_decode_env_value_of_pd_cluster_is_reported_at_the_decode_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_tree(tmp_path / "recipes")
    strategy = root / "strategies/pd_cluster.yaml"
    text = strategy.read_text().replace('SIDE_HOST: "$DECODE_NODE_1"',
                                        'SIDE_HOST: "$DECODE_NODE_1;touch pwned"')
    strategy.write_text(text)
    _code, found = _ref018(root, capsys, "models/acme/Tiny-1B.yaml")
    assert [(p, n) for p, n, _m in found] == [("strategies/pd_cluster.yaml",
                                              line_of(text, "touch pwned"))]
    assert "SIDE_HOST" in found[0][2]
