"""FLAG041: values of a KV connector's ``kv_connector_extra_config`` that the connector of
the release converts wrongly (a ``"false"`` string it reads with ``bool``, which is true) or
refuses (a string ``int`` cannot read), on real files of the corpus at ``main``: the
taxonomy's ``simple`` KV offload option (the string ``"false"`` upstream PR 628 shipped)
and a recipe's own ``--kv-transfer-config``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once
from validator.cli import main

TAXONOMY = "taxonomy.yaml"
LAZY = '"lazy_offload":false'
GLM = "models/zai-org/GLM-5.1.yaml"
"""Minimum 0.19.1 (``SimpleCPUOffloadConnector`` is registered from 0.19.0)."""
BASE = '    - "--trust-remote-code"\n'


def on_taxonomy(root: Path, capsys: pytest.CaptureFixture[str]
                ) -> list[tuple[int, str, str | None]]:
    """The FLAG041 findings of the taxonomy checked on its own."""
    main(["check", "--offline", "--no-cache", "--format", "json", str(root / TAXONOMY)])
    return [(f["line"], f["message"], f.get("hint"))
            for d in json.loads(capsys.readouterr().out)["documents"] for f in d["findings"]
            if f["rule"] == "FLAG041"]


def test_a_false_string_for_a_bool_read_in_an_offload_option_is_flag041(
        corpus_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = replace_once(corpus_copy / TAXONOMY, LAZY, '"lazy_offload":"false"')
    [(line, message, hint)] = on_taxonomy(corpus_copy, capsys)
    assert line == line_of(text, '"lazy_offload":"false"')
    assert message.startswith("`--kv-transfer-config` SimpleCPUOffloadConnector "
                              "kv_connector_extra_config `lazy_offload`: bool(\"false\") is "
                              "True: the connector turns it on")
    assert hint == "write a JSON boolean, unquoted: false"


def test_a_string_an_int_read_refuses_is_flag041(
        corpus_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replace_once(corpus_copy / TAXONOMY, '"cpu_bytes_to_use_per_rank":236223201280',
                 '"cpu_bytes_to_use_per_rank":"220GiB"')
    [(_, message, hint)] = on_taxonomy(corpus_copy, capsys)
    assert "`cpu_bytes_to_use_per_rank`: int(\"220GiB\") raises: the connector is not " \
           "built and vLLM does not start" in message
    assert hint == "write a JSON number, unquoted"


def test_the_corpus_offload_options_are_no_finding(
        corpus_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert on_taxonomy(corpus_copy, capsys) == []


def test_a_recipes_own_kv_transfer_config_is_judged_at_its_minimum(corpus_copy: Path) -> None:
    value = ('{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both",'
             '"kv_connector_extra_config":{"lazy_offload":"no","cpu_bytes_to_use":"8"}}')
    text = replace_once(corpus_copy / GLM, BASE,
                        BASE + f"    - \"--kv-transfer-config\"\n    - '{value}'\n")
    found = [(f.line, f.message) for f in check_tree(corpus_copy, GLM) if f.rule == "FLAG041"]
    # "8" is a string int() reads: only the "no" is a finding
    assert [line for line, _ in found] == [line_of(text, value)]
    assert found[0][1].endswith("the opposite of what the string says (vLLM 0.19.1)")
