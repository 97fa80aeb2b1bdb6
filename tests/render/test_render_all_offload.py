"""``render --all`` lists every KV-offload configuration the site offers (each taxonomy
``kv_offload`` option its builder's KV Offload row shows beside a configuration), gated as
the site gates it (``command-synthesis.js``: never under pd_cluster or a kv-store
deployment, an option's ``strategies`` and ``brands`` allow-lists, the recipe's
``kv_offload_support`` opt-out and opt-in), with the option's arguments last."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main
from validator.context import local_context

QWEN = "models/Qwen/Qwen3-4B.yaml"  # lists offloading_cpu/_fs verified; simple, lmcache open


def _json_all(root: Path, path: str, capsys: pytest.CaptureFixture[str]) -> list[Any]:
    assert main(["render", "--all", "--format", "json", str(root / path)]) == 0
    out: list[Any] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.corpus
def test_render_all_lists_every_offload_option_the_site_offers_and_only_those(
        corpus_main_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = _json_all(corpus_main_tree, QWEN, capsys)
    taxonomy = local_context(corpus_main_tree).taxonomy
    assert taxonomy is not None
    profiles = taxonomy.data["hardware_profiles"]
    plain = [d for d in docs if "kv_option" not in d["config"]]
    with_option = [d for d in docs if "kv_option" in d["config"]]
    assert with_option and all(d["offered"] for d in docs)
    by_key = Counter(d["config"]["kv_option"] for d in with_option)
    assert set(by_key) == {"simple", "offloading_cpu", "offloading_fs", "lmcache"}
    for d in with_option:
        c = d["config"]
        assert c["kv_offload"] is None and d["deploy_type"] != "pd_cluster"
        option = taxonomy.data["kv_offload"][c["kv_option"]]
        if option.get("brands"):
            assert profiles[c["hardware"]]["brand"] in option["brands"]
        if option.get("strategies"):
            assert c["strategy"] in option["strategies"]
        assert d["argv"][-len(option["args"]):] == option["args"]  # last: it wins
    # each plain configuration the row sits beside gets `simple` (no gate but the strategy)
    beside = [d for d in plain if d["config"]["kv_offload"] is None
              and d["deploy_type"] != "pd_cluster"]
    assert by_key["simple"] == len(beside)
    # a recipe listing an opt-in option `unsupported` (or not listing it) is not offered it
    text = (corpus_main_tree / QWEN).read_text()
    try:
        (corpus_main_tree / QWEN).write_text(text.replace("offloading_cpu: verified",
                                                          "offloading_cpu: unsupported"))
        (corpus_main_tree / QWEN).write_text(
            (corpus_main_tree / QWEN).read_text().replace("offloading_fs: verified\n", ""))
        keys = {d["config"].get("kv_option") for d in _json_all(corpus_main_tree, QWEN, capsys)}
        assert keys == {None, "simple", "lmcache"}
    finally:
        (corpus_main_tree / QWEN).write_text(text)
