"""Extraction end to end on a tiny fake vLLM source tree (``tests/fixtures/fake_vllm``),
without the network: the fixture is packed as an sdist, unpacked by
:func:`~validator.vllm_cli.release_sources.unpack_sources`, introspected by the real
``_introspect.py`` subprocess, held to the contract (``schemas/introspection.schema.json``)
and turned into a snapshot that :func:`~validator.vllm_cli.registry.load_registry` reads.
"""

from __future__ import annotations

import copy
import json
import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from validator.vllm_cli import contract
from validator.vllm_cli.contract import DUMP_SCHEMA, ContractError, check_dump
from validator.vllm_cli.extract import (
    build_snapshot,
    dumps_snapshot,
    run_introspection,
    write_snapshot,
)
from validator.vllm_cli.extract_plugin import build_plugin_snapshot, unpack_plugin
from validator.vllm_cli.fetch import Artifact
from validator.vllm_cli.plugins import Plugin
from validator.vllm_cli.registry import INDEX_NAME, load_registry
from validator.vllm_cli.release_sources import ExtractionError, unpack_sources

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "fake_vllm"
PLUGIN_FIXTURE = FIXTURE.parent / "fake_plugin"
FAKE_PLUGIN = Plugin("fake-plugin", "Fake-Plugin", "fake_plugin", None, (),
                     "fake_plugin.platform:FakePlatform", "0.0.1", "FakeConfig",
                     env_prefix="FAKE_PLUGIN_")
VERSION = "0.0.1"
ARTIFACT = Artifact(VERSION, f"vllm-{VERSION}.tar.gz", "https://example.invalid/vllm.tar.gz",
                    "0" * 64, "sdist", 0)


def _sdist(tree: Path, out: Path, name: str = "vllm") -> Path:
    archive = out / f"{name}-{VERSION}.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        tf.add(tree, arcname=f"{name}-{VERSION}")
    return archive


def _extract(tree: Path, work: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(raw dump, snapshot document) of the source tree ``tree``."""
    work.mkdir(parents=True, exist_ok=True)
    src = unpack_sources(_sdist(tree, work), VERSION, work / "src")
    raw = run_introspection(src, timeout_s=120)
    return raw, build_snapshot(copy.deepcopy(raw), ARTIFACT, src)


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    return _extract(FIXTURE, tmp_path_factory.mktemp("fake-vllm"))


def _option(doc: dict[str, Any], flag: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [o for o in doc["options"] if flag in o["strings"]]
    assert len(found) == 1, flag
    return found[0]


# ------------------------------------------------------------------------ the schema


def test_contract_schema_is_valid_and_described() -> None:
    schema = json.loads(DUMP_SCHEMA.read_text("utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$id"] == "https://recipe-check.dev/schemas/introspection.schema.json"
    undescribed = [(name, key) for name, node in [("", schema), *schema["$defs"].items()]
                   for key, sub in node.get("properties", {}).items()
                   if "description" not in sub]
    assert undescribed == []


# ------------------------------------------------------------- the real subprocess


def test_dump_satisfies_the_contract(extracted: tuple[dict[str, Any], dict[str, Any]]) -> None:
    raw, _ = extracted
    validator = Draft202012Validator(json.loads(DUMP_SCHEMA.read_text("utf-8")))
    assert [e.message for e in validator.iter_errors(raw)] == []
    assert check_dump(raw, "fixture") is raw
    # every key the schema declares for an action is what _introspect writes, no more
    action_keys = set(json.loads(DUMP_SCHEMA.read_text("utf-8"))["$defs"]["action"]["required"])
    assert all(set(a) == action_keys for a in raw["actions"])


def test_parser_is_the_console_scripts(
        extracted: tuple[dict[str, Any], dict[str, Any]]) -> None:
    raw, doc = extracted
    assert raw["method"] == "console-script vllm.entrypoints.cli.main:main"
    assert raw["method_errors"] == []
    assert doc["serve_available"] is True
    assert doc["parser"] == {"class": "vllm.utils.FlexibleArgumentParser", "allow_abbrev": True,
                             "normalisation": "before-first-dot", "dotted_keys": True,
                             "short_O": False}
    assert doc["probes"]["dotted_underscore"]["value"] == '{"num_speculative_tokens": "1"}'
    assert doc["probes"]["abbrev"] == {
        "argv": ["serve", "facebook/opt-125m", "--tensor-parallel-si", "2"], "ok": True,
        "value": "2"}
    assert doc["version"] == VERSION and doc["extraction"]["source_version"] == "0.0.1"


def test_json_value_types(extracted: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _, doc = extracted
    loads = _option(doc, "--speculative-config")
    assert (loads["is_json"], loads["json_takes_string"], loads["parses_json"]) == (
        True, False, True)
    union = _option(doc, "--limit-mm-per-prompt")
    assert (union["is_json"], union["json_takes_string"], union["parses_json"]) == (
        True, True, True)
    split = _option(doc, "--device-ids")  # returns a list: not JSON
    assert (split["is_json"], split["json_takes_string"], split["parses_json"]) == (
        False, None, False)
    assert doc["json_flags"] == ["--hf-overrides", "--limit-mm-per-prompt",
                                 "--speculative-config"]


def test_option_facts(extracted: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _, doc = extracted
    assert _option(doc, "--kv-cache-dtype")["choices"] == ["auto", "fp8", "fp8_e5m2"]
    assert _option(doc, "--tensor-parallel-size")["strings"] == ["--tensor-parallel-size", "-tp"]
    assert _option(doc, "--tensor-parallel-size")["default"] == "1"
    alias = _option(doc, "--disable-log-requests")
    assert (alias["deprecated"], alias["action"]) == (True, "DeprecatedAction")
    assert _option(doc, "--disable-log-stats")["deprecated"] is False
    eager = _option(doc, "--enforce-eager")
    assert (eager["action"], eager["takes_value"], eager["nargs"]) == (
        "_StoreTrueAction", False, "0")
    boolean = _option(doc, "--enable-prefix-caching")
    assert boolean["strings"] == ["--enable-prefix-caching", "--no-enable-prefix-caching"]
    assert boolean["negatable"] is True
    assert _option(doc, "--internal-flag")["hidden"] is True
    assert _option(doc, "--speculative-config")["group"] == "ModelConfig"
    assert _option(doc, "--port")["help"] == "Port to listen on."


def test_release_wide_facts(extracted: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _, doc = extracted
    assert doc["env_vars"] == {"names": ["VLLM_ALLOW_LONG_MAX_MODEL_LEN",
                                         "VLLM_FAKE_LOGGING_LEVEL"],
                               "source": "vllm.envs.environment_variables"}
    assert doc["tool_call_parsers"]["names"] == ["fake_json"]
    assert doc["reasoning_parsers"]["names"] == ["fake_think"]
    assert doc["kv_cache_dtypes"] == {"values": ["auto", "fp8", "fp8_e5m2"],
                                      "source": "--kv-cache-dtype choices"}
    assert "torch" in doc["extraction"]["stubbed_modules"]
    # requirements/cuda.txt pins torch==2.9.0 and transformers>=4.57.0
    assert doc["extraction"]["stub_versions"] == {"torch": "2.9.0", "transformers": "4.57.0"}


def test_snapshot_is_written_deterministically_and_loads(
        extracted: tuple[dict[str, Any], dict[str, Any]], tmp_path: Path) -> None:
    _, doc = extracted
    digest = write_snapshot(doc, tmp_path)
    first = (tmp_path / f"{VERSION}.json").read_bytes()
    assert write_snapshot(json.loads(first), tmp_path) == digest
    assert (tmp_path / f"{VERSION}.json").read_bytes() == first == dumps_snapshot(doc)
    assert json.loads((tmp_path / INDEX_NAME).read_text()) == {VERSION: digest}
    reg = load_registry(VERSION, tmp_path)
    assert reg.sha256 == digest and reg.normalisation == "before-first-dot"
    assert reg.lookup("--tensor_parallel_size") is not None
    assert reg.lookup("--no-such-flag") is None
    union = reg.lookup("--limit-mm-per-prompt")
    assert union is not None and union.json_takes_string is True and union.parses_json
    assert reg.reads_env("VLLM_FAKE_LOGGING_LEVEL")


def test_release_without_vllm_serve_uses_the_api_server(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(FIXTURE, tree)
    shutil.rmtree(tree / "vllm" / "entrypoints" / "cli")
    (tree / "pyproject.toml").write_text('[project]\nname = "vllm"\n', "utf-8")
    raw, doc = _extract(tree, tmp_path / "work")
    assert raw["method"] == "api-server __main__ vllm.entrypoints.openai.api_server"
    assert doc["serve_available"] is False
    assert doc["probes"]["baseline"]["argv"] == ["--model", "facebook/opt-125m"]
    assert doc["probes"]["baseline"]["ok"] is True
    assert _option(doc, "--model")["takes_value"] is True


# ------------------------------------------------------------------- plugin path


def test_platform_plugin_extraction(tmp_path: Path) -> None:
    src = unpack_sources(_sdist(FIXTURE, tmp_path), VERSION, tmp_path / "src")
    unpack_plugin(_sdist(PLUGIN_FIXTURE, tmp_path, "fake-plugin"), FAKE_PLUGIN, VERSION, src)
    assert json.loads((src / "plugin.json").read_text())["platform_hook"] == (
        "fake_plugin.platform:FakePlatform")
    raw = run_introspection(src, timeout_s=120)
    doc = build_plugin_snapshot(raw, build_snapshot(copy.deepcopy(raw), ARTIFACT, src),
                                FAKE_PLUGIN, VERSION, ARTIFACT, VERSION)
    assert raw["method"] == ("console-script vllm.entrypoints.cli.main:main"
                             " + FakePlatform.pre_register_and_update")
    # the hook changed the parser before it failed on device set-up (recorded, not fatal)
    assert _option(doc, "--quantization")["choices"] == ["awq", "fp8", "fake"]
    assert {"module": "fake_plugin.platform:FakePlatform.pre_register_and_update",
            "error": "RuntimeError: no fake device on this host"} in doc["extraction"][
                "soft_failed_modules"]
    assert "torch_npu" in doc["extraction"]["stubbed_modules"]
    plugin = doc["plugin"]
    # envs.py registry, os.getenv read, a whole prefixed name kept in a constant
    assert plugin["env_vars"] == ["FAKE_PLUGIN_DEBUG", "FAKE_PLUGIN_LEVEL", "FAKE_PLUGIN_MODE"]
    # .get / "in" / subscript reads, FakeConfig's public field, the *_KEYS set's public name
    assert plugin["additional_config_keys"] == ["chunk_size", "enable_fast_path",
                                                "legacy_mode", "torchair_graph_config"]
    assert plugin["additional_config_strict"] is True
    assert set(doc["env_vars"]["names"]) == {"VLLM_ALLOW_LONG_MAX_MODEL_LEN",
                                             "VLLM_FAKE_LOGGING_LEVEL", *plugin["env_vars"]}
    assert doc["provenance"]["vllm_artifact"] == ARTIFACT.filename


# --------------------------------------------------------------- broken contracts


def test_a_broken_dump_is_a_clear_extraction_error(
        extracted: tuple[dict[str, Any], dict[str, Any]]) -> None:
    raw = copy.deepcopy(extracted[0])
    del raw["actions"][2]["dest"]
    raw["probes"]["baseline"]["ok"] = "yes"
    del raw["env_vars"]
    with pytest.raises(ExtractionError) as info:
        build_snapshot(raw, ARTIFACT, FIXTURE)
    message = str(info.value)
    assert message.startswith(f"introspection of vllm-{VERSION}.tar.gz: the output breaks the "
                              "extraction contract (introspection.schema.json), 4 violation(s)")
    assert "  /: 'env_vars' is a required property" in message
    assert "  /actions/2: 'dest' is a required property" in message
    assert "  /probes/baseline/ok: 'yes' is not of type 'boolean'" in message
    # not ok, so a failed probe's "error" is missing too
    assert "  /probes/baseline: 'error' is a required property" in message
    assert isinstance(info.value.__cause__, ContractError)


def test_many_violations_are_counted_and_cut(
        extracted: tuple[dict[str, Any], dict[str, Any]]) -> None:
    raw = copy.deepcopy(extracted[0])
    for action in raw["actions"]:
        action["hidden"] = "no"
    with pytest.raises(ContractError) as info:
        check_dump(raw, "dump")
    n = len(raw["actions"])
    assert f"{n} violation(s)" in str(info.value)
    assert str(info.value).count("is not of type 'boolean'") == contract.SHOWN
    assert f"... and {n - contract.SHOWN} more" in str(info.value)


def test_json_type_fact_must_agree_with_is_json(
        extracted: tuple[dict[str, Any], dict[str, Any]]) -> None:
    raw = copy.deepcopy(extracted[0])
    plain = next(a for a in raw["actions"] if "--port" in a["strings"])
    plain["json_takes_string"] = True
    with pytest.raises(ContractError, match=r"/actions/\d+/json_takes_string: None was expected"):
        check_dump(raw, "dump")


def _script(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "fake_introspect.py"
    script.write_text("import sys\nfrom pathlib import Path\n" + body, "utf-8")
    return script


def test_output_that_is_not_json_is_a_clear_error(tmp_path: Path) -> None:
    script = _script(tmp_path, "Path(sys.argv[2]).write_text('{\"actions\": [')\n")
    with pytest.raises(ExtractionError, match="output is not JSON"):
        run_introspection(tmp_path, timeout_s=60, script=script)
    script = _script(tmp_path, "Path(sys.argv[2]).write_text('[]')\n")
    with pytest.raises(ExtractionError, match="output is not a JSON object"):
        run_introspection(tmp_path, timeout_s=60, script=script)


def test_a_failing_subprocess_reports_its_stderr(tmp_path: Path) -> None:
    script = _script(tmp_path, "sys.stderr.write('no serve parser here\\n'); sys.exit(3)\n")
    with pytest.raises(ExtractionError, match=r"failed \(exit 3\):\nno serve parser here"):
        run_introspection(tmp_path, timeout_s=60, script=script)
