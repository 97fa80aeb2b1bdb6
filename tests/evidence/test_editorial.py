"""Editorial text: generated, cited, attributed, and not copied from the seeds."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXTRA, SEEDS
from tests.evidence.conftest import EXTRA_GLM53, REPO
from validator.evidence.record import build_record, record_bytes
from validator.evidence.sources import ManifestTree


def _words(text: str) -> list[str]:
    """Prose words: identifiers and figures (``multi_node_tp``, ``0.28.0``) are facts, which
    may be shared, so they are dropped before comparing wording."""
    words = re.findall(r"[a-z0-9_]+(?:[-'.][a-z0-9_]+)*", text.lower())
    return [w for w in words if "_" not in w and not re.search(r"\d", w)]


def _shingles(text: str, n: int = 7) -> set[tuple[str, ...]]:
    words = _words(text)
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    tree = ManifestTree(EXTRA / "MANIFEST.json", REPO, EXTRA_GLM53[0][0])
    rec: dict[str, Any] = json.loads(record_bytes(build_record(
        tree, EXTRA_GLM53[0][1], checked_on="2026-11-29")))
    return rec


def _our_text(rec: dict[str, Any]) -> str:
    ed = rec["editorial"]
    parts = [ed["byline"], ed["creation_method"], ed["answer"]["text"]]
    parts += [s["heading"] for s in ed["sections"]]
    parts += [p["text"] for s in ed["sections"] for p in s["paragraphs"]]
    parts += rec["notes"] + rec["limitations"]
    parts.append(rec["license"]["scope"])
    return "\n".join(str(p) for p in parts)


def test_no_sentence_from_the_seeds(record: dict[str, Any]) -> None:
    ours = _shingles(_our_text(record))
    assert len(ours) > 200
    for seed in sorted(SEEDS.glob("*.txt")):
        shared = ours & _shingles(seed.read_text("utf-8"))
        assert not shared, f"{seed.name}: shares {sorted(shared)[:3]}"


def test_sections_cite_lines_and_say_how_they_were_made(record: dict[str, Any]) -> None:
    ed = record["editorial"]
    headings = [s["heading"] for s in ed["sections"]]
    assert len(headings) == 5
    for section in ed["sections"]:
        assert section["paragraphs"]
        for para in section["paragraphs"]:
            assert para["citations"] or para["record_refs"]
            assert all("#L" in c for c in para["citations"])
            assert all(r.startswith("/") for r in para["record_refs"])
    method = ed["creation_method"]
    assert "No model was downloaded or run" in method and "recipe-check" in ed["byline"]
    # the opt-in feature is called opt-in, not default
    attention = ed["sections"][1]["paragraphs"]
    assert any("spec_decoding stays off" in p["text"] for p in attention)


def test_findings_feed_the_attention_section(tmp_path: Path) -> None:
    from tests.evidence.conftest import MINI_TAXONOMY, make_repo

    recipe = ('meta:\n  title: "Odd"\nmodel:\n  model_id: "acme/Other"\n'
              '  min_vllm_version: "0.20.0"\nvariants:\n  default:\n    precision: bf16\n')
    tree = make_repo(tmp_path / "repo", {"models/acme/Odd.yaml": recipe,
                                         "taxonomy.yaml": MINI_TAXONOMY,
                                         "strategies/x.yaml": "name: x\n"})
    rec = json.loads(record_bytes(build_record(tree, "models/acme/Odd.yaml",
                                               checked_on="2026-01-02")))
    serious = [f for f in rec["validation"]["findings"] if f["severity"] == "error"]
    assert any(f["rule"] == "REF001" for f in serious)
    attention = rec["editorial"]["sections"][1]["paragraphs"]
    for f in serious:
        para = next(p for p in attention if p["text"].startswith(f"{f['rule']} (error): "))
        assert (f"line {f['line']}: {f['message']}" in para["text"]
                or "Further findings" in para["text"])
    ref = next(p for p in attention if p["text"].startswith("REF001"))
    (finding,) = [f for f in serious if f["rule"] == "REF001"]
    (pointer,) = ref["record_refs"]
    assert rec["validation"]["findings"][int(pointer.rsplit("/", 1)[1])] == finding
    assert ref["citations"] == []
    assert finding["evidence_url"].endswith("#L4")
    assert f"found {len(serious)} error(s)" in rec["editorial"]["answer"]["text"]
