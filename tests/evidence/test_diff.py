"""record_fact_diff: what changed between two records of a recipe, by meaning."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.evidence.conftest import (
    GLM52,
    GLM52_UPSTREAM,
    MINI_STRATEGY,
    MINI_TAXONOMY,
    make_repo,
)
from validator.evidence.diff import FactChange, record_fact_diff
from validator.evidence.record import build_record, record_bytes
from validator.source.git import GitTree

BASE = ('meta:\n  title: "R"\nmodel:\n  model_id: "acme/R"\n  min_vllm_version: "{v}"\n'
        'variants:\n  default:\n    precision: bf16\n    vram_minimum_gb: {gb}\n{extra}'
        'compatible_strategies: [single_node_tp]\n')


def _record(root: Path, **fmt: Any) -> dict[str, Any]:
    tree = make_repo(root, {"models/acme/R.yaml": BASE.format(**fmt),
                            "taxonomy.yaml": MINI_TAXONOMY,
                            "strategies/single_node_tp.yaml": MINI_STRATEGY})
    record: dict[str, Any] = json.loads(record_bytes(build_record(
        tree, "models/acme/R.yaml", checked_on="2026-12-01")))
    return record


def test_identical_records_have_no_changes(tmp_path: Path) -> None:
    rec = _record(tmp_path / "a", v="0.20.0", gb=60, extra="")
    assert record_fact_diff(rec, rec) == []
    # another repository of the same bytes: URLs differ, facts do not
    again = _record(tmp_path / "b", v="0.20.0", gb=60, extra="")
    again["facts"][0]["evidence_url"] = again["facts"][0]["evidence_url"].replace(
        "/blob/", "/blob/moved/")
    assert record_fact_diff(rec, again) == []


def test_changed_added_and_removed_facts(tmp_path: Path) -> None:
    old = _record(tmp_path / "a", v="0.20.0", gb=60, extra="")
    new = _record(tmp_path / "b", v="0.21.0", gb=700,
                  extra="  fp8:\n    precision: fp8\n    vram_minimum_gb: 40\n")
    changes = record_fact_diff(old, new)
    by = {c.name: c for c in changes}
    mv = by["Model-wide minimum vLLM version"]
    assert (mv.kind, mv.old, mv.new, mv.section) == ("changed", "0.20.0", "0.21.0", "facts")
    assert mv.old_evidence_url and mv.new_evidence_url and mv.new_evidence_url.endswith("#L5")
    assert by["Variant fp8: precision"].kind == "added"
    assert by["Variant default: planning minimum (GB, as declared)"].new == 700
    fit = by["Variant default: hardware whose single node holds the planning minimum"]
    assert fit.old == ["small8", "big8", "red8"] and fit.new == ["big8", "red8"]
    assert mv.describe() == "~ Model-wide minimum vLLM version: '0.20.0' -> '0.21.0'"
    back = {c.name: c for c in record_fact_diff(new, old)}
    assert back["Variant fp8: precision"].kind == "removed"
    assert all(isinstance(c, FactChange) for c in changes)


@pytest.mark.corpus
def test_glm52_between_two_revisions(commit_map: dict[str, str],
                                     corpus_tree: Callable[[str], GitTree]) -> None:
    first, last = (build_record(corpus_tree(commit_map[u]), GLM52, checked_on="2026-12-01")
                   for u in (GLM52_UPSTREAM[0], GLM52_UPSTREAM[-1]))
    changes = record_fact_diff(first, last)  # models are accepted as well as JSON
    assert changes
    sections = {c.section for c in changes}
    assert "facts" in sections and "rendered_defaults" in sections
    assert record_fact_diff(last, last) == []
