"""Reported figures: a guide written for this test, and real corpus guides."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.evidence.conftest import GLM52, GLM52_UPSTREAM
from validator.evidence.cite import Citer
from validator.evidence.reported import reported_results
from validator.load import load_yaml
from validator.source.git import GitTree

GUIDE = """\
model:
  model_id: "acme/Tiny"
guide: |
  ## Serving on four cards

  ```bash
  vllm serve acme/Tiny \\
    --tensor-parallel-size 4
  ```

  On 4x H100 the server started with a 2,345,678-token KV cache and 7.5x maximum
  concurrency; the drafter's mean acceptance length was 2.6 over a short prompt.
  A single stream decoded at 88.5 tok/s.

  ## Quality

  | Variant | GSM8K (5-shot) | Output tok/s |
  |---|---:|---:|
  | BF16 | 0.912 | 1500 |
  | FP8 | ≈0.905 | +3% |

  ```text
  |Tasks|Version|Filter|n-shot|Metric|   |Value |   |Stderr|
  |-----|------:|------|-----:|------|---|-----:|---|-----:|
  |gsm8k|      3|strict|     5|exact_match|↑  |0.8800|±  |0.0090|
  Output token throughput (tok/s):         1940.79
  ```

  Version 0.23.0 and 8 GPUs are not results.
"""


def _scan(text: str, path: str = "models/acme/Tiny.yaml") -> list[dict[str, Any]]:
    raw = text.encode()
    doc = load_yaml(raw, path)
    cite = Citer("owner/mini", "a" * 40, doc, hashlib.sha256(raw).hexdigest())
    return [r.model_dump() for r in reported_results(cite)]


def test_figures_units_conditions_and_lines() -> None:
    got = {(r["metric"], r["value"]): r for r in _scan(GUIDE)}
    lines = GUIDE.splitlines()

    def line_of(r: dict[str, object]) -> str:
        return lines[int(str(r["evidence_url"]).rsplit("#L", 1)[1]) - 1]

    kv = got[("kv_cache_tokens", 2345678.0)]
    assert kv["quoted"] == "2,345,678" and kv["unit"] == "tokens"
    assert "2,345,678" in line_of(kv)
    assert kv["conditions"]["heading"] == "Serving on four cards"
    assert kv["conditions"]["command"] == "vllm serve acme/Tiny"
    assert kv["conditions"]["hardware"] == "4x H100"
    conc = got[("max_concurrency", 7.5)]
    assert conc["unit"] == "x" and "7.5x" in line_of(conc)
    acc_len = got[("acceptance_length", 2.6)]
    assert "acceptance length was 2.6" in line_of(acc_len)  # figure wrapped onto next line
    tps = got[("throughput", 88.5)]
    assert tps["unit"] == "tok/s"
    gsm = got[("accuracy", 0.912)]
    assert gsm["label"] == "GSM8K (5-shot) (BF16)" and "| BF16 |" in line_of(gsm)
    assert got[("accuracy", 0.905)]["quoted"] == "0.905"
    assert ("throughput", 1500.0) in got
    assert not any(r["quoted"] == "3" for r in got.values()), "a +3% change is not a figure"
    lm = got[("accuracy", 0.88)]
    assert lm["label"] == "exact_match (gsm8k)" and lm["quoted"] == "0.8800"
    bench = got[("throughput", 1940.79)]
    assert bench["label"] == "Output token throughput" and bench["unit"] == "tok/s"
    assert all(r["classification"] == "source_reported" and r["measured_by_publisher"] is False
               for r in got.values())
    assert not any(r["value"] in (0.23, 8.0) for r in got.values())


def test_no_guide_no_results() -> None:
    assert _scan('model:\n  model_id: "acme/Tiny"\n') == []


@pytest.mark.corpus
def test_glm52_reports_its_single_stream_figure(
        commit_map: dict[str, str], corpus_tree: Callable[[str], GitTree],
        corpus_repo: Path) -> None:
    tree = corpus_tree(commit_map[GLM52_UPSTREAM[-1]])
    raw = tree.read(GLM52)
    doc = load_yaml(raw, GLM52)
    results = reported_results(Citer("vllm-project/recipes", tree.commit, doc,
                                     hashlib.sha256(raw).hexdigest()))
    (tps,) = [r for r in results if r.metric == "throughput"]
    assert tps.quoted == "70+" and tps.bound == ">=" and tps.value == 70
    assert tps.evidence_url.endswith("#L219")
    assert "dspark" in tps.conditions["heading"]
    assert tps.conditions["command"].startswith("vllm serve zai-org/GLM-5.2-FP8")


@pytest.mark.corpus
def test_kv_cache_table_in_a_real_guide(corpus_tree: Callable[[str], GitTree],
                                        corpus_repo: Path) -> None:
    import git

    head = git.Repo(corpus_repo).head.commit.hexsha
    tree = corpus_tree(head)
    path = "models/Qwen/Qwen3.8-27B.yaml"
    raw = tree.read(path)
    doc = load_yaml(raw, path)
    results = reported_results(Citer("vllm-project/recipes", head, doc,
                                     hashlib.sha256(raw).hexdigest()))
    kv = [r for r in results if r.metric == "kv_cache_tokens"]
    assert [r.value for r in kv if r.label.startswith("KV tokens")] == [
        377456.0, 445875.0, 920517.0]
    # the prose figure above the table ("...-token KV pool") is reported too
    assert [r.quoted for r in kv if "table_row" not in r.conditions] == ["377,456"]
    lines = raw.decode().splitlines()
    for r in kv:
        assert r.quoted in lines[int(r.evidence_url.rsplit("#L", 1)[1]) - 1]
    assert {r.metric for r in results if r.label.startswith("MTP acceptance")} == {
        "acceptance_rate"}


TABLES = """\
model:
  model_id: "acme/Tiny"
guide: |
  ## Compare

  | Metric | Old build | New build |
  |---|---|---|
  | Output TPS | 120 tok/s | 150 tok/s (**1.25×**) |
  | TTFT (mean) | 40ms | 35ms |

  | Goal | TP | Batch | Pick |
  |---|---|---|---|
  | Max throughput | 1-2 | 256-512 | Best tok/s per GPU |

  | Setting | KV cache | concurrency @64K |
  |---|---|---|
  | 0.90 | 1,000,000 | 15.26x |

  The mean accepted length was ~2.9 tokens/step in our run.
"""


def test_table_layouts_and_false_friends() -> None:
    got = {(r["metric"], r["value"]): r for r in _scan(TABLES)}
    assert got[("throughput", 120.0)]["label"] == "Output TPS (Old build)"
    assert got[("throughput", 150.0)]["label"] == "Output TPS (New build)"
    assert got[("latency", 35.0)]["unit"] == "ms"
    assert got[("max_concurrency", 15.26)]["quoted"] == "15.26"
    assert got[("kv_cache_tokens", 1000000.0)]["unit"] == "tokens"
    assert got[("acceptance_length", 2.9)]["unit"] == "tokens per step"
    # ranges in a sizing table and a tokens/step figure are not throughput figures
    assert not [k for k in got if k[0] == "throughput" and k[1] not in (120.0, 150.0)]
    assert ("latency", 40.0) in got and len(got) == 7


def test_the_glm53_guide_figures_the_curated_record_left_out() -> None:
    """The rendered GLM-5.3 page (seed 000) carries the guide of the commit the curated
    record (seed 001) was made from; that record's reported results were empty. The
    guide section is read from the seed at test time (nothing of it is copied here),
    embedded as a ``guide: |`` block, and scanned."""
    from tests.conftest import SEEDS

    page = next(SEEDS.glob("000_*.txt")).read_text("utf-8").splitlines()
    start = page.index("## Guide") + 1
    guide = [ln[1:] if ln.startswith("#") else ln for ln in page[start:]]
    doc = 'model:\n  model_id: "zai-org/GLM-5.3"\nguide: |\n' + "".join(
        f"  {ln}\n" if ln.strip() else "\n" for ln in guide)
    got = {(r["metric"], r["value"]): r for r in _scan(doc, "models/zai-org/GLM-5.3.yaml")}
    lines = doc.splitlines()
    for key, quoted, hardware in (
            (("kv_cache_tokens", 1477168.0), "1,477,168", "8x MI325X"),
            (("max_concurrency", 2.82), "2.82", "8x MI325X"),
            (("acceptance_length", 2.77), "2.77", ""),
            (("kv_cache_tokens", 2013072.0), "2,013,072", "8x MI350X"),
            (("max_concurrency", 3.84), "3.84", "8x MI350X"),
            (("acceptance_length", 3.19), "3.19", "")):
        r = got[key]
        assert r["quoted"] == quoted
        assert quoted in lines[int(str(r["evidence_url"]).rsplit("#L", 1)[1]) - 1]
        assert "MI325X/MI350X" in r["conditions"]["heading"]
        assert r["conditions"]["command"] == "vllm serve zai-org/GLM-5.3"
        if hardware:
            assert hardware in r["conditions"]["hardware"]
