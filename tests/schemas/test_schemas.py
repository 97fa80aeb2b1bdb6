"""The JSON Schemas under ``schemas/``: well-formed, accepting the real catalogue at
``main`` (minus its known defects), and rejecting small hand-made bad documents with the
expected keyword at the expected place."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from validator.load import load_yaml

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"
NAMES = ["recipe", "taxonomy", "strategy", "kv_store", "findings"]

# Files at corpus `main` that deviate from upstream's documented recipe format, as
# (file, JSON pointer, keyword, offending value or missing key). Each is a real defect
# of the file, not of the schema; see docs/recipe-format.md.
MAIN_DEFECTS = {
    # precision "int2/4/8" is not a precision id (documented: bf16|fp8|nvfp4|fp4|...)
    ("models/Google/gemma-4-E2B-it.yaml", "/variants/mobile/precision", "enum", "int2/4/8"),
    ("models/Google/gemma-4-E4B-it.yaml", "/variants/mobile/precision", "enum", "int2/4/8"),
    # parameter counts must be a number with a B/T (M/K) suffix
    ("models/IndexTeam/IndexTTS-2.5.yaml", "/model/parameter_count", "pattern", "Undisclosed"),
    ("models/IndexTeam/IndexTTS-2.5.yaml", "/model/active_parameters", "pattern", "Undisclosed"),
    ("models/moonshotai/Kimi-K3.yaml", "/model/active_parameters", "pattern",
     "16 experts/token + shared (of 896 routed)"),
    # difficulty is beginner | intermediate | advanced
    ("models/deepseek-ai/DeepSeek-V4-Flash.yaml", "/meta/difficulty", "enum", "hard"),
    ("models/deepseek-ai/DeepSeek-V4-Pro.yaml", "/meta/difficulty", "enum", "hard"),
    ("models/moonshotai/Kimi-K3.yaml", "/meta/difficulty", "enum", "hard"),
    # slug is lower-case kebab-case
    ("models/Qwen/Qwen3.6-27B.yaml", "/meta/slug", "pattern", "Qwen3.6-27b"),
    # documented, non-optional keys that are missing
    ("models/inclusionAI/Ling-3.0-flash.yaml", "/meta", "required", "date_added"),
    ("models/OpenMOSS-Team/MOSS-Transcribe-Diarize.yaml", "/model", "required", "context_length"),
    ("models/zai-org/GLM-GA.yaml", "/model", "required", "active_parameters"),
}


def schema(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text("utf-8"))
    return data


def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(schema(name), format_checker=Draft202012Validator.FORMAT_CHECKER)


def pointer(error: ValidationError) -> str:
    return "".join(
        "/" + str(t).replace("~", "~0").replace("/", "~1") for t in error.absolute_path
    )


def detail(error: ValidationError) -> str:
    if error.validator == "required":
        return error.message.split("'")[1]
    if error.validator == "additionalProperties":
        assert isinstance(error.schema, Mapping) and isinstance(error.instance, Mapping)
        known = set(error.schema.get("properties", {}))
        return ",".join(sorted(k for k in error.instance if k not in known))
    return error.instance if isinstance(error.instance, str) else json.dumps(error.instance)


def errors(name: str, data: Any) -> set[tuple[str, str, str]]:
    """(pointer, keyword, detail) of every violation of ``data``."""
    return {(pointer(e), str(e.validator), detail(e)) for e in validator(name).iter_errors(data)}


def load(text: str) -> Any:
    doc = load_yaml(text.encode(), "fixture.yaml")
    assert doc.ok, [f.message for f in doc.findings]
    return doc.data


# --------------------------------------------------------------------------- the schemas


@pytest.mark.parametrize("name", NAMES)
def test_schema_is_valid_2020_12(name: str) -> None:
    data = schema(name)
    Draft202012Validator.check_schema(data)
    assert data["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert data["$id"] == f"https://recipe-check.dev/schemas/{name}.schema.json"
    assert data["title"] and data["description"]


def _properties(node: Any, where: str = "") -> list[tuple[str, Any]]:
    out = []
    if isinstance(node, dict):
        for key, sub in node.get("properties", {}).items():
            out.append((f"{where}/{key}", sub))
        for key, sub in node.items():
            if key not in ("if", "not", "contains"):  # conditions, not definitions
                out += _properties(sub, f"{where}/{key}")
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            out += _properties(sub, f"{where}/{i}")
    return out


@pytest.mark.parametrize("name", NAMES)
def test_every_property_is_described(name: str) -> None:
    data = schema(name)
    undescribed = []
    for where, sub in _properties(data):
        target = sub
        if "$ref" in sub and "description" not in sub:
            target = data["$defs"][sub["$ref"].rsplit("/", 1)[1]]
        if "description" not in target:
            undescribed.append(where)
    assert undescribed == []


# ------------------------------------------------------------------ the real catalogue


def _corpus_errors(root: Path, name: str, files: list[Path]) -> set[tuple[str, ...]]:
    found: set[tuple[str, ...]] = set()
    for path in files:
        rel = path.relative_to(root).as_posix()
        doc = load_yaml(path.read_bytes(), rel)
        assert doc.ok, (rel, [f.message for f in doc.findings])
        for ptr, keyword, what in errors(name, doc.data):
            found.add((rel, ptr, keyword, what))
    return found


def test_corpus_main_recipes_validate_except_known_defects(schemas_corpus: Path) -> None:
    files = sorted(schemas_corpus.glob("models/**/*.yaml"))
    assert len(files) == 173
    assert _corpus_errors(schemas_corpus, "recipe", files) == MAIN_DEFECTS


@pytest.mark.parametrize(
    ("name", "pattern"),
    [("taxonomy", "taxonomy.yaml"), ("strategy", "strategies/*.yaml"),
     ("kv_store", "kv_store/*.yaml")],
)
def test_corpus_main_context_files_validate(schemas_corpus: Path, name: str,
                                            pattern: str) -> None:
    files = sorted(schemas_corpus.glob(pattern))
    assert files
    assert _corpus_errors(schemas_corpus, name, files) == set()


# ------------------------------------------------------------------- hand-made fixtures

RECIPE = """\
meta:
  title: "Example-7B"
  slug: "example-7b"
  provider: "Example Labs"
  description: "A small dense test model."
  date_added: 2026-01-02
  date_updated: 2026-01-03
  difficulty: beginner
  tasks: [text]
  hardware:
    h200: verified
model:
  model_id: "example/Example-7B"
  min_vllm_version: "0.20.0"
  architecture: dense
  parameter_count: "7B"
  active_parameters: "7B"
  context_length: 32768
  base_args: ["--trust-remote-code"]
  install:
    docker:
    pip:
      note: "stable wheel"
features:
  reasoning:
    description: "Splits thinking from the answer."
    args: ["--reasoning-parser", "example"]
opt_in_features: []
variants:
  default:
    precision: bf16
    vram_minimum_gb: 17
  fp8:
    model_id: "example/Example-7B-FP8"
    precision: fp8
    vram_minimum_gb: 9
    tp: {h200: 1, default: 2}
compatible_strategies: [single_node_tp]
strategy_overrides:
  pd_cluster:
    prefill: {nodes: 1, parallelism: dep}
guide: |
  ## Overview
  Text.
"""


def recipe(**changes: Any) -> Any:
    """The valid fixture recipe with ``path.to.key=value`` changes (value None deletes)."""
    data = copy.deepcopy(load(RECIPE))
    for dotted, value in changes.items():
        *parents, last = dotted.split("__")
        node = data
        for key in parents:
            node = node.setdefault(key, {})
        if value is None:
            node.pop(last, None)
        else:
            node[last] = value
    return data


def test_fixture_recipe_is_valid() -> None:
    assert errors("recipe", recipe()) == set()


@pytest.mark.parametrize("version", ["0.10.1.1", "0.9.0.1", "0.10", "0.11.0rc1",
                                     "0.8.5.post1", "nightly"])
def test_every_form_of_a_vllm_release_number_is_a_version(version: str) -> None:
    """vLLM has published four-part releases (0.9.0.1, 0.10.1.1): a recipe pinning one is
    valid, as the vendored release list and the images are."""
    assert errors("recipe", recipe(model__min_vllm_version=version)) == set()


@pytest.mark.parametrize("version", ["0.10.1.1.1", "v0.10.1", "0.10.", "1"])
def test_a_malformed_release_number_is_not_a_version(version: str) -> None:
    assert errors("recipe", recipe(model__min_vllm_version=version)) == {
        ("/model/min_vllm_version", "pattern", version)}


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        # wrong types
        ({"model__context_length": "32k"}, ("/model/context_length", "type", "32k")),
        ({"model__min_vllm_version": 0.1}, ("/model/min_vllm_version", "type", "0.1")),
        ({"model__base_env": {"VLLM_FLAG": 1}}, ("/model/base_env/VLLM_FLAG", "type", "1")),
        ({"variants__default__vram_minimum_gb": "17"},
         ("/variants/default/vram_minimum_gb", "type", "17")),
        # values outside a closed vocabulary
        ({"meta__difficulty": "expert"}, ("/meta/difficulty", "enum", "expert")),
        ({"meta__tasks": ["text", ""]}, ("/meta/tasks/1", "minLength", "")),
        ({"meta__hardware": {"h200": "tested"}}, ("/meta/hardware/h200", "enum", "tested")),
        ({"model__architecture": "hybrid"}, ("/model/architecture", "enum", "hybrid")),
        ({"variants__fp8__precision": "fp6"}, ("/variants/fp8/precision", "enum", "fp6")),
        ({"model__install": {"pip": True}}, ("/model/install/pip", "const", "true")),
        # patterns and formats
        ({"meta__date_added": "2026-13-01"}, ("/meta/date_added", "format", "2026-13-01")),
        ({"meta__date_updated": "03/01/2026"}, {("/meta/date_updated", "pattern", "03/01/2026"),
                                                 ("/meta/date_updated", "format", "03/01/2026")}),
        ({"model__min_vllm_version": "latest"}, ("/model/min_vllm_version", "pattern", "latest")),
        ({"model__model_id": "Example-7B"}, ("/model/model_id", "pattern", "Example-7B")),
        # unknown keys
        ({"variants__default__precison": "bf16"},
         ("/variants/default", "additionalProperties", "precison")),
        ({"meta__hardware_notes": "x"}, ("/meta", "additionalProperties", "hardware_notes")),
        ({"strategy_overrides__pd_cluster__prefill__extra_env": {"A": "1"}},
         ("/strategy_overrides/pd_cluster/prefill", "additionalProperties", "extra_env")),
        ({"features__reasoning__hardware_overrides": {"hopper": {"extra_args": []}}},
         ("/features/reasoning/hardware_overrides/hopper", "additionalProperties",
          "extra_args")),
        # required keys and combinations
        ({"variants__default": None}, ("/variants", "required", "default")),
        ({"meta__date_added": None}, ("/meta", "required", "date_added")),
        ({"meta__tasks": ["omni"]}, ("", "required", "omni")),
        ({"variants__fp8__tp": {"h200": 0}}, ("/variants/fp8/tp/h200", "minimum", "0")),
    ],
)
def test_bad_recipe_is_rejected(changes: dict[str, Any], expected: Any) -> None:
    want = expected if isinstance(expected, set) else {expected}
    assert errors("recipe", recipe(**changes)) == want


def test_yaml_text_with_unknown_key_and_bad_enum() -> None:
    text = RECIPE.replace("difficulty: beginner", "difficulty: easy").replace(
        "    precision: bf16\n", "    precision: bf16\n    quantisation: none\n")
    assert errors("recipe", load(text)) == {
        ("/meta/difficulty", "enum", "easy"),
        ("/variants/default", "additionalProperties", "quantisation"),
    }


def test_unknown_key_becomes_a_warning_in_the_schema_stage() -> None:
    from validator.schema import SchemaValidator

    text = RECIPE.replace("  architecture: dense\n", "  architecture: dense\n  archtecture: x\n")
    doc = load_yaml(text.encode(), "models/example/Example-7B.yaml")
    findings = SchemaValidator().validate(doc, "recipe")
    assert [(f.pointer, f.severity.value) for f in findings] == [("/model/archtecture",
                                                                  "warning")]


STRATEGY = """\
name: single_node_x
deploy_type: single_node
display_name: "X"
orientation: latency
description: "Test strategy."
hardware_match: {min_gpus: 1, multi_node: false}
parallel_flag: "--tensor-parallel-size"
vllm_args: []
"""


def test_strategy_fixtures() -> None:
    assert errors("strategy", load(STRATEGY)) == set()
    bad = load(STRATEGY.replace("deploy_type: single_node", "deploy_type: cluster"))
    assert errors("strategy", bad) == {("/deploy_type", "enum", "cluster")}
    bad = load(STRATEGY + "default_node_count: 2\n")
    assert errors("strategy", bad) == {("", "additionalProperties", "default_node_count")}
    bad = load(STRATEGY.replace("deploy_type: single_node", "deploy_type: pd_cluster"))
    assert errors("strategy", bad) == {("", "required", "prefill"), ("", "required", "decode")}


KV_STORE = """\
name: kv_store_x
deploy_type: kv_store_lb
display_name: "X store"
description: "Test store."
default_instances: 1
min_vllm_version: "0.21.0"
vllm:
  install: {nvidia: "pip install a", amd: "pip install b"}
  env: {PYTHONHASHSEED: 0}
mooncake_vllm_config:
  mode: embedded
  template: {protocol: rdma, global_segment_size: 0}
"""


def test_kv_store_fixtures() -> None:
    assert errors("kv_store", load(KV_STORE)) == set()
    bad = load(KV_STORE.replace("kv_store_lb", "single_node"))
    assert errors("kv_store", bad) == {("/deploy_type", "const", "single_node")}
    bad = load(KV_STORE.replace("mode: embedded", "mode: remote"))
    assert errors("kv_store", bad) == {("/mooncake_vllm_config/mode", "enum", "remote")}


TAXONOMY = """\
hardware_profiles:
  h200: {brand: NVIDIA, generation: hopper, display_name: "H200", gpu_count: 8, vram_gb: 1128}
tasks:
  - {id: text, display_name: "Text"}
strategies: [single_node_tp]
"""


def test_taxonomy_fixtures() -> None:
    assert errors("taxonomy", load(TAXONOMY)) == set()
    bad = load(TAXONOMY.replace("gpu_count: 8", "gpu_count: eight"))
    assert errors("taxonomy", bad) == {("/hardware_profiles/h200/gpu_count", "type", "eight")}
    bad = load(TAXONOMY.replace("vram_gb: 1128", "vram_gb: 1128, vram: 1"))
    assert errors("taxonomy", bad) == {("/hardware_profiles/h200", "additionalProperties",
                                        "vram")}


def findings_doc() -> dict[str, Any]:
    return {
        "tool": {"name": "recipe-check", "version": "0.1.0"},
        "documents": [{
            "path": "models/example/Example-7B.yaml",
            "sha256": "0" * 64,
            "revision": None,
            "gitBlob": "a" * 40,
            "resolved_from": None,
            "findings": [{
                "rule": "FLAG001", "severity": "error", "pointer": "/features/x/args/1",
                "line": 44, "column": 9, "message": "unknown flag", "hint": None,
                "end_line": 44, "end_column": 20,
                "related": [{"line": 3, "message": "declared here"},
                            {"line": 7, "message": "and here", "path": "taxonomy.yaml"}],
            }],
        }],
        "summary": {"documents": 1, "errors": 1, "warnings": 0, "infos": 0},
        "context": {"release_list": {"source": "snapshots/releases.json", "sha256": "1" * 64},
                    "cli_registry": {"version": "0.20.0"}},
    }


def test_findings_fixtures() -> None:
    assert errors("findings", findings_doc()) == set()
    doc = findings_doc()
    doc["documents"][0]["findings"][0].update(rule="flag1", severity="fatal", line=0)
    assert errors("findings", doc) == {
        ("/documents/0/findings/0/rule", "pattern", "flag1"),
        ("/documents/0/findings/0/severity", "enum", "fatal"),
        ("/documents/0/findings/0/line", "minimum", "0"),
    }
    doc = findings_doc()
    del doc["documents"][0]["gitBlob"]
    doc["summary"]["notes"] = 0
    assert errors("findings", doc) == {
        ("/documents/0", "required", "gitBlob"),
        ("/summary", "additionalProperties", "notes"),
    }


def test_survey_script_counts_main(schemas_corpus: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from scripts.survey_keys import run

    report = run(schemas_corpus, "HEAD", tip_only=True)
    kinds = report["kinds"]
    assert {k: v["blobs"] for k, v in kinds.items()} == {
        "recipe": 173, "taxonomy": 1, "strategy": 9, "kv_store": 2}
    difficulty = kinds["recipe"]["patterns"]["/meta/difficulty"]["values"]
    assert set(difficulty) == {'"beginner"', '"intermediate"', '"advanced"', '"hard"'}
