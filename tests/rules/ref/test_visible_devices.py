"""REF034: a rendered ``vllm serve`` whose TP × PP × local DP ranks exceed the GPUs it can
see -- the site's one-node PD layout with ``dep`` pools (Kimi-K2.5 of corpus ``main``), and
a ``--data-parallel-size`` in ``model.base_args`` on top of the site's TP."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import pytest

from tests.conftest import check_tree, line_of, replace_once
from validator.render.renderer import Process, Token
from validator.rules.ref.visible_devices import placement

KIMI = "models/moonshotai/Kimi-K2.5.yaml"
GLM = "models/zai-org/GLM-5.2.yaml"


def ref034(root: Path, path: str) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in check_tree(root, path) if f.rule == "REF034"]


def process(args: str, env: dict[str, str] | None = None) -> Process:
    words = ["vllm", "serve", "org/model", *args.split()]
    tokens = tuple(Token(w, "model.base_args", "", "r.yaml") for w in words)
    return Process("serve", " ".join(words), tuple(words), None, None,
                   MappingProxyType(env or {}), tokens)


@pytest.mark.corpus
def test_dep_pools_on_the_one_node_pd_layout_are_reported_at_their_parallelism(
        corpus_copy: Path) -> None:
    text = (corpus_copy / KIMI).read_text()
    found = ref034(corpus_copy, KIMI)
    prefill = line_of(text, "      parallelism: dep", line_of(text, "    prefill:"))
    decode = line_of(text, "      parallelism: dep", line_of(text, "    decode:"))
    assert [line for line, _ in found] == [prefill, decode]
    assert "the prefill `vllm serve` needs 8 GPUs" in found[0][1]
    assert "`CUDA_VISIBLE_DEVICES=0,1,2,3` (4 devices)" in found[0][1]
    assert "`CUDA_VISIBLE_DEVICES=4,5,6,7` (4 devices)" in found[1][1]
    assert "(on b200 · default · pd_cluster and " in found[0][1]


@pytest.mark.corpus
def test_tep_pools_fit_the_half_node_the_site_pins(corpus_copy: Path) -> None:
    for _ in range(2):
        replace_once(corpus_copy / KIMI, "      parallelism: dep", "      parallelism: tep")
    assert ref034(corpus_copy, KIMI) == []


@pytest.mark.corpus
def test_a_data_parallel_size_in_base_args_multiplies_the_sites_tp(corpus_copy: Path) -> None:
    assert ref034(corpus_copy, GLM) == []
    text = replace_once(corpus_copy / GLM, '    - "fp8_e4m3"\n',
                        '    - "fp8_e4m3"\n    - "--data-parallel-size"\n    - "2"\n')
    [(line, message)] = ref034(corpus_copy, GLM)
    assert line == line_of(text, '    - "--data-parallel-size"')
    assert "`vllm serve` needs 16 GPUs on its node (TP 8 × PP 1 × 2 local DP ranks) " \
           "but sees the node's 8 GPUs" in message


def test_local_ranks_default_to_the_dp_size_and_the_last_value_wins() -> None:
    found = placement(process("--tensor-parallel-size 8 -dp 4 --data-parallel-size=2"), 8)
    assert found is not None and (found.need, found.visible) == (16, 8)
    assert placement(process("--tensor-parallel-size 4 --data-parallel-size 2"), 8) is None
    local = placement(process("--data-parallel-size 16 --data-parallel-size-local 8 "
                              "--tensor-parallel-size 2"), 8)
    assert local is not None and local.need == 16


def test_the_pinned_devices_bound_the_command() -> None:
    pinned = {"CUDA_VISIBLE_DEVICES": "0,1,2,3"}
    found = placement(process("--data-parallel-size 8", pinned), 8)
    assert found is not None and (found.need, found.visible, found.pinned) == (8, 4, "0,1,2,3")


@pytest.mark.parametrize("args", [
    "--tensor-parallel-size 16 --nnodes 2 --node-rank 0",     # TP over two nodes
    "--tensor-parallel-size 8 --data-parallel-size 4 --data-parallel-rank 1",  # one rank
    "--tensor-parallel-size 8 --data-parallel-size 4 --data-parallel-backend ray",
    "--tensor-parallel-size $TP --data-parallel-size 2",       # not a number
])
def test_commands_spread_over_nodes_or_unsized_are_not_judged(args: str) -> None:
    assert placement(process(args), 8) is None
