"""The argument lists of the context files (strategies, kv-store deployments, the
taxonomy's KV offload options) are judged against the vLLM CLI on the files themselves,
at their own lines, when a run names them; a problem of such a list is reported once, on
that file, not on every recipe using it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import line_of, replace_once
from tests.context_files import KV_STORE, kv_offload_text, kv_store_text
from validator.cli import main

STRATEGY = "strategies/single_node_tp.yaml"
def _check(root: Path, capsys: pytest.CaptureFixture[str], *paths: str) -> tuple[int, Any]:
    code = main(["check", "--offline", "--no-cache", "--format", "json",
                 *(str(root / p) for p in paths)])
    return code, json.loads(capsys.readouterr().out)


def _findings(doc: dict[str, Any]) -> list[tuple[str, str, int, str]]:
    return [(d["path"], f["rule"], f["line"], f["message"])
            for d in doc["documents"] for f in d["findings"]]


def test_strategy_flag_is_judged_on_the_strategy_file_once(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = replace_once(examples_tree / STRATEGY, "vllm_args: []",
                        'vllm_args: ["--bogus-strategy-flag"]')
    code, doc = _check(examples_tree, capsys, STRATEGY)
    assert code == 1
    assert _findings(doc) == [(STRATEGY, "FLAG001", line_of(text, "--bogus-strategy-flag"),
                               "`--bogus-strategy-flag` is not an option of any vendored "
                               f"vLLM release up to {_newest()}")]
    # the whole root: the strategy's finding once, on the strategy file, none per recipe
    code, doc = _check(examples_tree, capsys, ".")
    bogus = [f for f in _findings(doc) if "--bogus-strategy-flag" in f[3]]
    assert [(f[0], f[1]) for f in bogus] == [(STRATEGY, "FLAG001")]


def test_recipes_alone_report_a_strategy_files_problem_once_on_that_file(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``check models/`` judges the context files' argument lists too (issue 30: a
    whole-folder check passed the flag every recipe's command prints), on the file only."""
    text = replace_once(examples_tree / STRATEGY, "vllm_args: []",
                        'vllm_args: ["--bogus-strategy-flag"]')
    _code, doc = _check(examples_tree, capsys, "models/")
    bogus = [(f[0], f[1], f[2]) for f in _findings(doc) if "bogus" in f[3]]
    assert bogus == [(STRATEGY, "FLAG001", line_of(text, "--bogus-strategy-flag"))]


def test_kv_store_args_are_judged_at_their_line_and_own_minimum(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown flag is FLAG001; a flag newer than the file's own min_vllm_version
    (``--kv-transfer-config`` came in vLLM 0.6.5) is FLAG002, naming that minimum."""
    (examples_tree / "kv_store").mkdir()
    text = kv_store_text(minimum="0.6.0", extra="--bogus-mooncake-flag")
    (examples_tree / KV_STORE).write_text(text)
    code, doc = _check(examples_tree, capsys, "kv_store/")
    assert code == 1
    found = _findings(doc)
    assert [(p, r, n) for p, r, n, _m in found] == [
        (KV_STORE, "FLAG002", line_of(text, '- "--kv-transfer-config"')),
        (KV_STORE, "FLAG001", line_of(text, "--bogus-mooncake-flag"))]
    assert found[0][3].endswith(f"but the min_vllm_version of {KV_STORE} is 0.6.0")


def test_clean_kv_store_passes(examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (examples_tree / "kv_store").mkdir()
    (examples_tree / KV_STORE).write_text(kv_store_text(extra="--max-num-seqs=8"))
    code, doc = _check(examples_tree, capsys, KV_STORE)
    assert (code, _findings(doc)) == (0, [])


def test_taxonomy_kv_offload_args_are_judged_on_the_taxonomy(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taxonomy = examples_tree / "taxonomy.yaml"
    text = taxonomy.read_text() + kv_offload_text("--bogus-offload-flag")
    taxonomy.write_text(text)
    code, doc = _check(examples_tree, capsys, "taxonomy.yaml")
    assert code == 1
    assert [(p, r, n) for p, r, n, _m in _findings(doc)] == [
        ("taxonomy.yaml", "FLAG001", line_of(text, "--bogus-offload-flag"))]


def test_a_context_files_finding_can_be_suppressed_in_that_file(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replace_once(examples_tree / STRATEGY, "vllm_args: []",
                 'vllm_args: ["--bogus-strategy-flag"]  # recipe-check: ignore[FLAG001]')
    code, doc = _check(examples_tree, capsys, STRATEGY)
    assert (code, _findings(doc)) == (0, [])


def _newest() -> str:
    from validator.analysis.cli_plan import versions

    return str(versions()[-1])
