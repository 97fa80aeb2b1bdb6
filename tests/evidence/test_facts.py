"""Derivation rules on small fixtures written for these tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.evidence.conftest import (
    MINI_STRATEGY,
    MINI_TAXONOMY,
    Reader,
    make_repo,
    verify_record,
)
from validator.evidence.facts import default_features
from validator.evidence.record import build_record, record_bytes

RECIPE = """\
meta:
  title: "Tiny"
  provider: "Nobody"
  hardware:
    big8: verified
    red8: unsupported
model:
  model_id: "acme/Tiny"
  min_vllm_version: "0.20.0"
  base_args:
    - "--max-model-len"
    - "4096"
features:
  parsing:
    description: "tool parser"
    args: ["--tool-call-parser", "hermes"]
  drafting:
    description: "speculation"
    default_mode: small
    modes:
      small:
        args: ["--speculative-config", '{"method":"ngram"}']
  caching:
    description: "prefix cache"
    args: ["--enable-prefix-caching"]
opt_in_features:
  - drafting
hardware_opt_in_features:
  big8:
    - caching
variants:
  default:
    precision: bf16
    vram_minimum_gb: 1000
  fp4:
    model_id: "acme/Tiny-FP4"
    precision: nvfp4
    vram_minimum_gb: 500
    min_vllm_version: "0.22.1"
    default_modes:
      drafting: small
compatible_strategies:
  - single_node_tp
guide: |
  ## Numbers
  We saw 1,234 tok/s here.
"""


def _record(tmp_path: Path, recipe: str = RECIPE) -> dict[str, Any]:
    tree = make_repo(tmp_path / "repo", {"models/acme/Tiny.yaml": recipe,
                                         "taxonomy.yaml": MINI_TAXONOMY,
                                         "strategies/single_node_tp.yaml": MINI_STRATEGY})
    record: dict[str, Any] = json.loads(record_bytes(build_record(
        tree, "models/acme/Tiny.yaml", checked_on="2026-01-02")))
    return record


def _reader(tmp_path: Path) -> Reader:
    root = tmp_path / "repo"
    return lambda commit, path: (root / path).read_text("utf-8").splitlines()


def test_default_features_rule() -> None:
    import yaml

    data = yaml.safe_load(RECIPE)
    assert default_features(data, "default") == (["parsing", "caching"], ["drafting"])
    # a variant's default_modes forces an opt-in feature on
    assert default_features(data, "fp4") == (["parsing", "drafting", "caching"], [])
    # hardware opt-in takes a feature out on that hardware only
    assert default_features(data, "default", "big8") == (["parsing"], ["drafting", "caching"])


def test_derived_facts_cite_their_inputs(tmp_path: Path) -> None:
    rec = _record(tmp_path)
    facts = {f["name"]: f for f in rec["facts"]}
    assert verify_record(rec, _reader(tmp_path)) > 20
    on = facts["Features on by default"]
    assert on["value"] == ["parsing", "caching"] and on["classification"] == "derived"
    assert facts["Variant fp4: features on by default"]["value"] == [
        "parsing", "drafting", "caching"]
    assert any(c["pointer"] == "/variants/fp4/default_modes"
               for c in facts["Variant fp4: features on by default"]["derived_from"])
    # effective minimum: the variant's higher floor wins, the model's is cited too
    eff = facts["Variant fp4: effective minimum vLLM version"]
    assert eff["value"] == "0.22.1" and eff["pointer"] == "/variants/fp4/min_vllm_version"
    assert [c["pointer"] for c in eff["derived_from"]] == ["/model/min_vllm_version"]
    assert facts["Variant default: effective minimum vLLM version"]["value"] == "0.20.0"
    # inherited model id
    assert facts["Variant default: model id"]["value"] == "acme/Tiny"
    assert facts["Variant default: model id"]["classification"] == "derived"
    # hardware: red8 opted out, nvfp4 needs Blackwell, single node by vram_gb
    assert facts["Variant default: compatible hardware"]["value"] == ["small8", "big8"]
    assert facts["Variant fp4: compatible hardware"]["value"] == ["big8"]
    assert facts["Variant default: hardware whose single node holds the planning "
                 "minimum"]["value"] == ["big8"]
    assert facts["Hardware status: big8"]["classification"] == "maintainer_verified"
    assert facts["Hardware status: red8"]["classification"] == "recipe_declaration"
    opts = {o["variant"]: o for o in rec["deployment_options"]}
    assert opts["fp4"]["minimum_runtime_version"] == "0.22.1"
    assert opts["default"]["model_id_inherited"] is True
    assert rec["hardware_topics"] == ["nvidia"]
    (result,) = rec["reported_results"]
    assert (result["metric"], result["value"], result["unit"]) == ("throughput", 1234.0, "tok/s")


def test_unparseable_document_is_a_clean_error(tmp_path: Path) -> None:
    import pytest

    from validator.evidence.record import RecordError

    tree = make_repo(tmp_path / "repo", {"models/acme/Bad.yaml": "meta:\n  title: [x\n"})
    with pytest.raises(RecordError, match=r"models/acme/Bad.yaml:\d+: cannot make a record"):
        build_record(tree, "models/acme/Bad.yaml", checked_on="2026-01-02")
