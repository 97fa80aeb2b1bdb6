"""FLAG032 (and the range's FLAG023): the ``kv_connector`` and ``kv_role`` of
``--kv-transfer-config`` against what each vLLM release registers and accepts, on real
files of the corpus at ``main``: a strategy, a kv-store deployment and a recipe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once
from validator.cli import main
from validator.findings import FLOOR

GLM = "models/zai-org/GLM-5.1.yaml"
"""Minimum 0.19.1."""
BASE = '    - "--trust-remote-code"\n'
PD = "strategies/pd_cluster.yaml"
STORE = "kv_store/kv_store_centralized_mooncake.yaml"


def on_file(root: Path, path: str, capsys: pytest.CaptureFixture[str]
            ) -> list[tuple[str, int, str, str | None]]:
    """The FLAG032/FLAG023 findings of a context file checked on its own."""
    main(["check", "--offline", "--no-cache", "--format", "json", str(root / path)])
    return [(f["rule"], f["line"], f["message"], f.get("hint"))
            for d in json.loads(capsys.readouterr().out)["documents"] for f in d["findings"]
            if f["rule"] in ("FLAG032", "FLAG023")]


def test_a_misspelt_connector_of_a_strategy_is_an_error_at_its_line(
        corpus_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = replace_once(corpus_copy / PD, '"kv_connector":"NixlConnector","kv_role":"kv_producer"',
                        '"kv_connector":"NIXLConnector","kv_role":"kv_producer"')
    [(rule, line, message, hint)] = on_file(corpus_copy, PD, capsys)
    assert (rule, line) == ("FLAG032", line_of(text, "NIXLConnector"))
    assert message.startswith("kv_connector `NIXLConnector` (`--kv-transfer-config`) is not "
                              "registered by vLLM 0.33.0 (no vendored release registers it)")
    assert hint is not None and hint.startswith("did you mean `NixlConnector`")


def test_the_corpus_context_files_connectors_and_roles_are_no_finding(
        corpus_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert on_file(corpus_copy, PD, capsys) == []
    assert on_file(corpus_copy, STORE, capsys) == []


def test_a_role_no_release_accepts_in_a_kv_store_file_is_an_error(
        corpus_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = replace_once(corpus_copy / STORE, '"kv_connector":"MooncakeStoreConnector",'
                        '"kv_role":"kv_both"}', '"kv_connector":"MooncakeStoreConnector",'
                        '"kv_role":"both"}')
    [(rule, line, message, hint)] = on_file(corpus_copy, STORE, capsys)
    assert (rule, line) == ("FLAG032", line_of(text, '"kv_role":"both"'))
    assert message.startswith("kv_role `both` (`--kv-transfer-config`) is none of the roles "
                              "vLLM 0.21.0 accepts (kv_both, kv_consumer, kv_producer)")
    assert hint == "did you mean `kv_both`?"


def test_a_misspelt_child_of_a_multi_connector_is_an_error(
        corpus_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = replace_once(corpus_copy / STORE, '"MooncakeStoreConnector","kv_role":"kv_both",'
                        '"kv_connector_extra_config"', '"MooncakeStoreConector","kv_role":'
                        '"kv_both","kv_connector_extra_config"')
    [(rule, line, message, _)] = on_file(corpus_copy, STORE, capsys)
    assert (rule, line) == ("FLAG032", line_of(text, "MooncakeStoreConector"))
    assert "`MooncakeStoreConector`" in message


def test_a_connector_of_a_later_release_in_a_recipe_is_a_floor_finding(
        corpus_copy: Path) -> None:
    """``HiSparseConnector`` is registered from vLLM 0.30.0; GLM-5.1 claims 0.19.1."""
    value = '{"kv_connector":"HiSparseConnector","kv_role":"kv_both"}'
    text = replace_once(corpus_copy / GLM, BASE,
                        BASE + f"    - \"--kv-transfer-config\"\n    - '{value}'\n")
    found = [f for f in check_tree(corpus_copy, GLM) if f.rule == "FLAG032"
             and f.pointer.startswith("/model/base_args")]
    assert [(f.line, f.reason, f.hint) for f in found] == [
        (line_of(text, value), FLOOR, "raise min_vllm_version to 0.30.0")]


def test_a_connector_from_a_module_path_is_not_judged(corpus_copy: Path) -> None:
    value = ('{"kv_connector":"MyConnector","kv_role":"kv_both",'
             '"kv_connector_module_path":"my_pkg.connector"}')
    replace_once(corpus_copy / GLM, BASE,
                 BASE + f"    - \"--kv-transfer-config\"\n    - '{value}'\n")
    assert [f for f in check_tree(corpus_copy, GLM) if f.rule == "FLAG032"
            and f.pointer.startswith("/model/base_args")] == []
