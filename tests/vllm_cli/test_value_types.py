"""The value-type facts (``json_takes_string``, ``parses_json``) of the vendored vLLM
snapshots, and ``scripts/add_value_types.py`` that merges them from a fresh extraction.

The expected flags were read by hand from each release's own source (sdist on PyPI):
0.6.2 types ``--rope-scaling``, ``--mm-processor-kwargs`` and the three ``--allowed-*``
options with ``json.loads``, and ``--override-neuron-config`` with a ``key:value,...``
splitter (a dict, but not JSON); 0.11.0 and 0.18.0 give ``union_dict_and_str`` to the
fields typed dict-or-str/dict-or-class (``additional_config``, ``hf_overrides``,
``model_loader_extra_config``, ``pt_load_map_location``) and ``json.loads`` to the others.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import check_tree, line_of, replace_once
from validator.vllm_cli.registry import (
    DEFAULT_REGISTRY_DIR,
    INDEX_NAME,
    available_versions,
    load_registry,
)

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "add_value_types.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("add_value_types", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_vllm_release_records_both_facts_for_every_option() -> None:
    versions = available_versions()
    assert len(versions) == 76
    lacking = [(str(v), o.long) for v in versions for o in load_registry(v).options
               if o.parses_json is None or (o.is_json and o.json_takes_string is None)]
    assert lacking == []


@pytest.mark.parametrize(("version", "loads", "union"), [
    ("0.6.2", {"--rope-scaling", "--mm-processor-kwargs", "--allowed-origins",
               "--allowed-methods", "--allowed-headers"}, set()),
    ("0.11.0", None, {"--additional-config", "--hf-overrides", "--model-loader-extra-config",
                      "--pt-load-map-location"}),
    ("0.18.0", None, {"--additional-config", "--hf-overrides", "--model-loader-extra-config",
                      "--pt-load-map-location"}),
])
def test_value_types_match_the_release_source(version: str, loads: set[str] | None,
                                              union: set[str]) -> None:
    reg = load_registry(version)
    parses = {o.long for o in reg.options if o.parses_json}
    takes_string = {o.long for o in reg.options if o.json_takes_string}
    if loads is not None:
        assert parses == loads | union
    assert takes_string == union
    assert "--limit-mm-per-prompt" not in takes_string  # dict[str, int]: json.loads


def test_a_dict_valued_splitter_is_not_json() -> None:
    neuron = load_registry("0.6.2").lookup("--override-neuron-config")
    assert neuron is not None and neuron.parses_json is False


def test_old_custom_json_type_is_recorded() -> None:
    # KVTransferConfig.from_cli of 0.6.5-0.7.3: JSON, though not a dict-returning type
    for version in ("0.6.5", "0.7.3"):
        option = load_registry(version).lookup("--kv-transfer-config")
        assert option is not None and option.parses_json is True


def _snapshot(options: list[dict[str, object]]) -> dict[str, object]:
    return {"version": "9.9.9", "options": options}


def test_merge_copies_only_the_two_facts_and_repins(tmp_path: Path) -> None:
    vendored, fresh = tmp_path / "vendored", tmp_path / "fresh"
    vendored.mkdir()
    fresh.mkdir()
    old: dict[str, object] = {"strings": ["--x-config"], "dest": "x_config",
                              "help": "vendored help"}
    gone: dict[str, object] = {"strings": ["--gone"], "dest": "gone", "help": ""}
    (vendored / "9.9.9.json").write_text(json.dumps(_snapshot([old, gone])))
    (vendored / INDEX_NAME).write_text('{"9.9.9": "stale"}\n')
    new = {**old, "help": "fresh help", "json_takes_string": False, "parses_json": True}
    (fresh / "9.9.9.json").write_text(json.dumps(_snapshot([new])))
    assert _script().merge(fresh, vendored) == ["9.9.9"]
    doc = json.loads((vendored / "9.9.9.json").read_text())
    assert doc["options"][0] == {**old, "json_takes_string": False, "parses_json": True}
    assert doc["options"][1] == gone  # no fresh counterpart: untouched
    pins = json.loads((vendored / INDEX_NAME).read_text())
    assert pins == {"9.9.9": hashlib.sha256((vendored / "9.9.9.json").read_bytes()).hexdigest()}


def test_merge_leaves_releases_without_a_fresh_snapshot(tmp_path: Path) -> None:
    vendored = tmp_path / "vendored"
    vendored.mkdir()
    for name in ("0.9.2.json", INDEX_NAME):
        shutil.copy(DEFAULT_REGISTRY_DIR / name, vendored / name)
    before = {p.name: p.read_bytes() for p in vendored.iterdir()}
    assert _script().merge(tmp_path / "empty", vendored) == []
    assert {p.name: p.read_bytes() for p in vendored.iterdir()} == before


PHI = "models/microsoft/Phi-4-mini-instruct.yaml"  # min_vllm_version 0.7.0 at corpus main
EXTRA = '    extra_args:\n      - "--trust-remote-code"\n'


@pytest.mark.parametrize(("value", "fails"), [
    ('{"kv_connector": "PyNcclConnector", "kv_role": "kv_both",}', True),
    ('{"kv_connector": "PyNcclConnector", "kv_role": "kv_both"}', False),
])
def test_old_custom_json_value_is_judged_at_the_minimum(corpus_copy: Path, value: str,
                                                        fails: bool) -> None:
    """0.7.0 types ``--kv-transfer-config`` with ``KVTransferConfig.from_cli``
    (``model_validate_json``): a trailing comma fails at the recipe's minimum itself, and
    the finding points at the value's line."""
    text = replace_once(corpus_copy / PHI, EXTRA,
                        EXTRA + f'      - "--kv-transfer-config"\n      - \'{value}\'\n')
    # FLAG025 also names the flag: the kv-store deployments render their own
    # --kv-transfer-config in its place (a fact about the site, not about value types)
    found = [(f.rule, f.line) for f in check_tree(corpus_copy, PHI)
             if "kv-transfer-config" in f.message and f.rule != "FLAG025"
             and "kv_connector `" not in f.message]  # FLAG032/FLAG023: the connector name
    assert found == ([("FLAG007", line_of(text, "kv_connector"))] if fails else [])
