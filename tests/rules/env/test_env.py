"""ENV001: vendor environment variables one typo away from a name the library reads.

Unit tests of :func:`near_miss` and the vendored lists, then recipes of our own (shaped
like the corpus's) run through the full pipeline in a copy of the real recipes tree.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.analysis.test_install_range import of, recipe, run
from tests.conftest import line_of
from validator.rules.env.facts import DATA_FILE, _by_prefix, _near, near_miss, vendor_lists


@pytest.mark.parametrize(("name", "nearest"), [
    ("NCCL_SOCKET_IFNAMES", "NCCL_SOCKET_IFNAME"),        # extra letter
    ("CUDA_VISIBLE_DEVICE", "CUDA_VISIBLE_DEVICES"),      # missing letter
    ("HIP_FORCE_DEV_KERNAGR", "HIP_FORCE_DEV_KERNARG"),   # transposition
    ("OMP_NUM_THREAD", "OMP_NUM_THREADS"),
    ("HCCL_BUFSIZE", "HCCL_BUFFSIZE"),
    ("ASCEND_RT_VISIBLE_DEVICE", "ASCEND_RT_VISIBLE_DEVICES"),
    ("PYTORCH_CUDA_ALOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"),
    ("HSA_NO_SCRACTH_RECLAIM", "HSA_NO_SCRATCH_RECLAIM"),
    ("nccl_socket_ifname", "NCCL_SOCKET_IFNAME"),         # case
    ("NCCL-SOCKET-IFNAME", "NCCL_SOCKET_IFNAME"),         # separator
    ("NCCL_SOCKETIFNAME", "NCCL_SOCKET_IFNAME"),          # separator dropped
    ("NCLL_IB_HCA", "NCCL_IB_HCA"),                       # misspelled prefix
])
def test_near_misses_name_the_real_variable(name: str, nearest: str) -> None:
    miss = near_miss(name)
    assert miss is not None and miss.nearest == nearest
    assert miss.source.url.startswith("https://") and miss.source.version


@pytest.mark.parametrize("name", [
    "NCCL_SOCKET_IFNAME", "CUDA_VISIBLE_DEVICES", "HIP_FORCE_DEV_KERNARG",  # real
    "HCCL_SOCKET_IFNAME",       # real CANN variable outside the list, near no listed name
    "PYTORCH_XPU_ALLOC_CONF",   # one letter from PYTORCH_NPU_ALLOC_CONF, but a 3-letter word
    "RCCL_MSCCL_ENABLE",        # RCCL's own prefix: one letter from NCCL and HCCL
    "ROCM_PATH", "GLOO_SOCKET_IFNAME", "TP_SOCKET_IFNAME", "SAFETENSORS_FAST_GPU",
    "NCCL_IB_HCAS",             # short word: not judged
    "VLLM_USE_DEEP_GEMMM",      # FLAG016's
    "HSA_OVERRIDE_GFX_VERSION",  # real, missing from the ROCr list, near no listed name
    "",
])
def test_unknown_but_plausible_names_pass(name: str) -> None:
    assert near_miss(name) is None


def test_every_list_records_its_source_and_only_its_prefixes() -> None:
    raw = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    assert {e["id"] for e in raw["lists"]} == {"nccl", "rocm", "cuda", "openmp", "pytorch",
                                               "cann"}
    for entry in raw["lists"]:
        for key in ("project", "version", "url", "method"):
            assert entry[key].strip(), (entry["id"], key)
        assert entry["names"] == sorted(set(entry["names"]))
        assert all(n.split("_", 1)[0] in entry["prefixes"] for n in entry["names"])
    assert len(vendor_lists()) == len(raw["lists"])
    assert "NCCL_SOCKET_IFNAME" in next(v for v in vendor_lists() if v.id == "nccl").names


def test_no_listed_name_is_a_near_miss_of_another() -> None:
    # the rule must never tell a user to rename one real variable into another
    for names, _ in _by_prefix().values():
        ordered = sorted(names)
        pairs = [(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1:] if _near(a, b)]
        assert not pairs


def _with_env(text: str, env: str) -> str:
    assert "  base_env: {}\n" in text
    return text.replace("  base_env: {}\n", "  base_env:\n" + env)


def test_misspelled_base_env_is_a_warning_at_its_key(corpus_copy: Path) -> None:
    text = _with_env(recipe(), '    NCCL_SOCKET_IFNAMES: "eth0"\n'
                     '    CUDA_VISIBLE_DEVICES: "0,1"\n    HCCL_SOCKET_IFNAME: "eth0"\n')
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "ENV001")
    assert hit.severity.value == "warning"
    assert hit.line == line_of(text, "NCCL_SOCKET_IFNAMES")
    assert "`NCCL_SOCKET_IFNAME`" in hit.message and "model.base_env" in hit.message
    assert hit.hint is not None and "github.com/NVIDIA/nccl" in hit.hint
    passing, _ = run(corpus_copy, _with_env(recipe(), '    NCCL_SOCKET_IFNAME: "eth0"\n'
                                            '    HCCL_SOCKET_IFNAME: "eth0"\n'))
    assert not of(passing, "ENV001")


def test_variant_and_feature_env_are_judged(corpus_copy: Path) -> None:
    text = recipe().replace(
        '    description: "Full precision BF16"\n',
        '    description: "Full precision BF16"\n    extra_env:\n'
        '      OMP_NUM_THREAD: "8"\n')
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "ENV001")
    assert hit.line == line_of(text, "OMP_NUM_THREAD:")
    assert "variants.default.extra_env" in hit.message and "`OMP_NUM_THREADS`" in hit.message


def test_guide_export_and_docker_env_are_judged(corpus_copy: Path) -> None:
    cmd = ("export CUDA_VISIBLE_DEVICE=0,1\n  docker run --gpus all -e HIP_VISIBLE_DEVICE=0 "
           "vllm/vllm-openai:v0.12.0 example-org/Example-8B\n  "
           "NCCL_DEBUG=INFO vllm serve example-org/Example-8B")
    text = recipe(guide_cmd=cmd)
    found, _ = run(corpus_copy, text)
    hits = of(found, "ENV001")
    assert [h.line for h in hits] == [line_of(text, "export CUDA_VISIBLE_DEVICE"),
                                      line_of(text, "HIP_VISIBLE_DEVICE=0")]
    assert "`CUDA_VISIBLE_DEVICES`" in hits[0].message
    assert "`HIP_VISIBLE_DEVICES`" in hits[1].message
    fixed = cmd.replace("DEVICE=", "DEVICES=")
    passing, _ = run(corpus_copy, recipe(guide_cmd=fixed))
    assert not of(passing, "ENV001")


def test_selected_strategy_env_is_reported_on_the_selecting_line(corpus_copy: Path) -> None:
    strategy = corpus_copy / "strategies" / "single_node_tp.yaml"
    strategy.write_text(strategy.read_text() + "env:\n  NCCL_CUMEM_ENABLED: \"0\"\n")
    text = recipe()
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "ENV001")
    assert hit.line == line_of(text, "- single_node_tp")
    assert "`NCCL_CUMEM_ENABLE`" in hit.message
    assert hit.related and hit.related[0].path is not None
    assert hit.related[0].path.endswith("single_node_tp.yaml")
