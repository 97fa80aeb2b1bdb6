"""VER016 on vLLM's CPU image (``vllm/vllm-openai-cpu``): an error where the site gives it
to GPUs or TPUs (a plain string, the ``nvidia``/``amd``/``tpu`` keys, a GPU profile's
hardware override), not where its machines may be CPUs (``intel``, a Xeon override); and
VER003's hint then pins the GPUs' image, not another CPU build. Faults injected into real
corpus recipes (MiniMax-M2.5: one image string; DeepSeek-V4-Flash: a DGX Spark override)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules.ver.test_ver import run_ver
from tests.rules.ver.test_ver_image_identity import _findings
from tests.shared_context import shared_context
from validator.context import Settings

pytestmark = pytest.mark.corpus

CPU = "vllm/vllm-openai-cpu:v0.20.2"


@pytest.mark.parametrize(("image", "pointer", "says", "hint"), [
    (f'docker_image: "{CPU}"', "/model/docker_image",
     "gives it to nvidia machines", "use vllm/vllm-openai here"),
    (f'docker_image:\n    nvidia: "{CPU}"', "/model/docker_image/nvidia",
     "the `nvidia` key gives it to nvidia machines", "use vllm/vllm-openai here"),
    (f'docker_image:\n    nvidia: "vllm/vllm-openai:v0.20.2"\n    amd: "{CPU}"',
     "/model/docker_image/amd", "gives it to amd machines", "use vllm/vllm-openai-rocm here"),
    (f'docker_image:\n    nvidia: "vllm/vllm-openai:v0.20.2"\n    tpu: "{CPU}"',
     "/model/docker_image/tpu", "gives it to tpu machines", "use vllm/vllm-tpu here"),
])
def test_cpu_image_for_accelerators_is_an_error(corpus_repo: Path, image: str, pointer: str,
                                                 says: str, hint: str) -> None:
    _, found = _findings(corpus_repo, image, ("VER015", "VER016"))
    [(rule, got, _, message, got_hint)] = found
    assert (rule, got) == ("VER016", pointer)
    assert "is vLLM's CPU build" in message and says in message and hint in got_hint


def test_cpu_image_under_intel_passes(corpus_repo: Path) -> None:
    """The ``intel`` key serves Xeon CPUs as well as Arc GPUs."""
    _, found = _findings(corpus_repo, f'docker_image:\n    nvidia: "vllm/vllm-openai:v0.20.2"'
                         f'\n    intel: "{CPU}"', ("VER015", "VER016"))
    assert found == []


def test_moving_cpu_image_for_nvidia_is_pinned_to_the_nvidia_image(corpus_repo: Path) -> None:
    _, found = _findings(corpus_repo, 'docker_image: "vllm/vllm-openai-cpu:latest-x86_64"',
                         ("VER003",))
    [(_, _, _, _, hint)] = found
    assert "pin the release tag vllm/vllm-openai:v0.20.2 " in hint and "-cpu" not in hint


@pytest.mark.parametrize(("profile", "rules"), [
    ("dgx_spark_gb10", ["VER016"]),  # a Blackwell GPU
    ("xeon6", []),  # a CPU profile: where the CPU image belongs
])
def test_hardware_override_is_judged_by_its_profile_generation(
        corpus_repo: Path, profile: str, rules: list[str]) -> None:
    path = "models/deepseek-ai/DeepSeek-V4-Flash.yaml"
    text = (corpus_repo / path).read_text("utf-8")
    override = '      dgx_spark_gb10:\n        docker_image: "eugr/spark-vllm-b12x:latest"'
    assert override in text
    wrong = text.replace(override, f'      {profile}:\n        docker_image: "{CPU}"', 1)
    found = run_ver(wrong, path, shared_context(corpus_repo, Settings()))
    assert [f.rule for f in found if f.rule == "VER016"] == rules
