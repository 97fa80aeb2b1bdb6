"""VER015/VER016: a docker_image names an image and tag vLLM publishes, for the hardware
its key serves; VER003 names a release-tag typo as one. Faults injected into the text
of real corpus recipes (MiniMax-M2.5: one image string, min 0.20.2; DeepSeek-V4-Flash:
a brand map and a variant hardware override), checked with the corpus's own context."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import line_of
from tests.rules.ver.test_ver import run_ver
from tests.shared_context import shared_context
from validator.context import Settings
from validator.rules.ver.image_identity import near_official

pytestmark = pytest.mark.corpus

M25 = "models/MiniMaxAI/MiniMax-M2.5.yaml"
IMAGE = 'docker_image: "vllm/vllm-openai:v0.20.2"'
CUDA_MAP = ('docker_image:\n    nvidia:\n      cu129: "{cu129}"\n      cu130: "{cu130}"\n'
            '    amd: "{amd}"')


def _findings(corpus_repo: Path, new: str, rules: tuple[str, ...] = ("VER015", "VER016",
                                                                     "VER003", "VER002")
              ) -> tuple[str, list[tuple[str, str, int, str, str]]]:
    text = (corpus_repo / M25).read_text("utf-8")
    assert IMAGE in text
    text = text.replace(IMAGE, new, 1)
    found = run_ver(text, M25, shared_context(corpus_repo, Settings()))
    return text, [(f.rule, f.pointer, f.line, f.message, f.hint or "") for f in found
                  if f.rule in rules]


@pytest.mark.parametrize(("image", "says", "hint"), [
    ("vllm/vllm-opneai:v0.20.2", "'vllm/vllm-opneai' is not an image repository of vLLM "
     "(did you mean vllm/vllm-openai?)", "write vllm/vllm-openai:v0.20.2"),
    ("vllm-openai:v0.20.2", "(did you mean vllm/vllm-openai?)", "vllm/vllm-openai:v0.20.2"),
    ("vllm/vllm-openai:0.20.2", "tag '0.20.2' has no 'v'", "vllm/vllm-openai:v0.20.2"),
    ("vllm/vllm-openai:v0.20.9", "names vLLM 0.20.9, which was never released",
     "the next one is 0.21.0"),
    ("vllm/vllm-openai:v0.20.l", "tag 'v0.20.l' starts like a release tag but names no "
     "release", "v0.20.2"),
])
def test_image_vllm_does_not_publish_is_an_error(corpus_repo: Path, image: str, says: str,
                                                 hint: str) -> None:
    text, found = _findings(corpus_repo, f'docker_image: "{image}"')
    [(rule, pointer, line, message, got_hint)] = found
    assert (rule, pointer, line) == ("VER015", "/model/docker_image", line_of(text, image))
    assert says in message and hint in got_hint


@pytest.mark.parametrize("image", [
    "vllm/vllm-openai:v0.20.2", "vllm/vllm-openai:v0.20.2-cu129",
    "vllm/vllm-openai:v0.24.0-ubuntu2404", "docker.io/vllm/vllm-openai:v0.20.2",
    "vllm/vllm-openai:v0.10.1.1",  # a four-part release
    "vllm/vllm-openai:v0.40.0",  # newer than the release list: not judged here
    "vllm/vllm-openai:minimax27",
    "vllm/vllm-openai:nightly-8bff831f0aa239006f34b721e63e1340e3472067",
    "vllm/vllm-omni:cosmos3", "eugr/spark-vllm-b12x:latest", "nvcr.io/nvidia/vllm:25.12.post1-py3",
])
def test_published_images_pass(corpus_repo: Path, image: str) -> None:
    _, found = _findings(corpus_repo, f'docker_image: "{image}"', ("VER015", "VER016"))
    assert found == []


def test_every_known_repository_is_more_than_a_typo_from_the_others() -> None:
    assert near_official("vllm/vllm-openai-rocm") is None
    assert near_official("vllm/vllm-openai_rocm") == "vllm/vllm-openai-rocm"
    assert near_official("vllm/vllm-omni") is None and near_official("rocm/vllm-dev") is None


def test_typo_of_a_release_tag_is_not_called_a_launch_build(corpus_repo: Path) -> None:
    _, official = _findings(corpus_repo, 'docker_image: "vllm/vllm-openai:v0.20.l"',
                            ("VER003", "VER012"))
    assert official == []  # VER015 reports it, as an error
    _, other = _findings(corpus_repo, 'docker_image: "example/vllm-build:v0.20.l"',
                         ("VER003",))
    [(_, _, _, message, _)] = other
    assert "starts like a release tag but names no release" in message
    assert "launch build" not in message


@pytest.mark.parametrize(("cu129", "cu130", "amd", "pointer", "says"), [
    ("vllm/vllm-openai:v0.20.2-cu130", "vllm/vllm-openai:v0.20.2", "vllm/vllm-openai-rocm:v0.20.2",
     "/model/docker_image/nvidia/cu129", "is a cu130 build, but it is the map's cu129 entry"),
    ("vllm/vllm-openai:v0.20.2-cu129", "vllm/vllm-openai:v0.20.2-cu310",
     "vllm/vllm-openai-rocm:v0.20.2", "/model/docker_image/nvidia/cu130",
     "is a cu310 build, but it is the map's cu130 entry"),
    ("vllm/vllm-openai:v0.20.2-cu129", "vllm/vllm-openai:v0.20.2", "vllm/vllm-openai:v0.20.2",
     "/model/docker_image/amd", "is built for nvidia machines, but the `amd` key gives it "
     "to amd machines"),
    ("vllm/vllm-openai-rocm:v0.20.2", "vllm/vllm-openai:v0.20.2",
     "vllm/vllm-openai-rocm:v0.20.2", "/model/docker_image/nvidia/cu129",
     "is built for amd machines"),
])
def test_image_for_other_hardware_or_cuda_is_an_error(corpus_repo: Path, cu129: str,
                                                      cu130: str, amd: str, pointer: str,
                                                      says: str) -> None:
    _, found = _findings(corpus_repo, CUDA_MAP.format(cu129=cu129, cu130=cu130, amd=amd))
    [(rule, got, _, message, _)] = found
    assert (rule, got) == ("VER016", pointer) and says in message


def test_rocm_image_as_the_nvidia_string_is_an_error(corpus_repo: Path) -> None:
    _, found = _findings(corpus_repo, 'docker_image: "vllm/vllm-openai-rocm:v0.20.2"')
    [(rule, _, _, message, _)] = found
    assert rule == "VER016" and "docker_image string or CUDA map" in message


def test_matching_cuda_map_and_brands_pass(corpus_repo: Path) -> None:
    _, found = _findings(corpus_repo, CUDA_MAP.format(
        cu129="vllm/vllm-openai:v0.20.2-cu129", cu130="vllm/vllm-openai:v0.20.2",
        amd="rocm/vllm-dev:vllm-0.23.1-rocm723-mi35x-mori-0625"), ("VER015", "VER016"))
    assert found == []


def test_hardware_override_is_judged_by_its_profile_brand(corpus_repo: Path) -> None:
    path = "models/deepseek-ai/DeepSeek-V4-Flash.yaml"
    text = (corpus_repo / path).read_text("utf-8")
    override = "docker_image: \"eugr/spark-vllm-b12x:latest\""
    assert override in text
    ctx = shared_context(corpus_repo, Settings())
    assert [f for f in run_ver(text, path, ctx) if f.rule == "VER016"] == []
    wrong = text.replace(override, 'docker_image: "vllm/vllm-openai-rocm:v0.20.2"', 1)
    [hit] = [f for f in run_ver(wrong, path, ctx) if f.rule == "VER016"]
    assert hit.pointer.endswith("/hardware_overrides/dgx_spark_gb10/docker_image")
    assert "hardware_overrides.dgx_spark_gb10 gives it to nvidia machines" in hit.message
