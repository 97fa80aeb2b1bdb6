"""VER002 judges the image each rendered configuration uses: a model-level image is
blamed on a variant only where the site renders that variant with it (variant × hardware
as its picker offers them), and the message names that hardware.

Faults injected into the real Laguna-XS-2.1 recipe of corpus ``main`` (a throw-away
copy): model minimum 0.21.0; variants fp8 and int4 need 0.22.0, nvfp4 (Blackwell only by
its precision) 0.22.0."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once

pytestmark = pytest.mark.corpus

LAGUNA = "models/poolside/Laguna-XS-2.1.yaml"
MODEL_MIN = '  min_vllm_version: "0.21.0"\n'
BRAND_MAP = ('  min_vllm_version: "0.21.0"\n  docker_image:\n'
             '    nvidia: "vllm/vllm-openai:v0.22.0"\n'
             '    amd: "vllm/vllm-openai-rocm:v0.22.0"\n')
NVFP4_MIN = '    min_vllm_version: "0.22.0"\n    description: "NVFP4'


def _ver002(root: Path) -> list[tuple[str, int, str]]:
    return [(f.pointer, f.line, f.message) for f in check_tree(root, LAGUNA)
            if f.rule == "VER002"]


def _nvfp4_needs(root: Path, own_image: bool) -> str:
    replace_once(root / LAGUNA, MODEL_MIN, BRAND_MAP)
    image = '    docker_image: "vllm/vllm-openai:v0.25.0"\n' if own_image else ""
    return replace_once(root / LAGUNA, NVFP4_MIN,
                        f'    min_vllm_version: "0.25.0"\n{image}    description: "NVFP4')


def test_rocm_image_is_not_blamed_on_a_blackwell_only_variant(corpus_copy: Path) -> None:
    # nvfp4 is rendered on Blackwell only, with its own v0.25.0 image: the model's ROCm
    # v0.22.0 image is never rendered for it
    _nvfp4_needs(corpus_copy, own_image=True)
    assert _ver002(corpus_copy) == []


def test_model_image_rendered_for_the_variant_stays_an_error(corpus_copy: Path) -> None:
    # without an image of its own, nvfp4 renders the model's NVIDIA v0.22.0 image
    text = _nvfp4_needs(corpus_copy, own_image=False)
    [(pointer, line, message)] = _ver002(corpus_copy)
    assert (pointer, line) == ("/model/docker_image/nvidia", line_of(text, "vllm-openai:v0.22.0"))
    assert "but variant 'nvfp4' (rendered with it on b200" in message
    assert message.endswith("needs vLLM 0.25.0")
    assert "mi300x" not in message and "h200" not in message


def test_rocm_image_rendered_for_the_variant_on_amd_names_the_amd_hardware(
        corpus_copy: Path) -> None:
    # fp8 is offered on AMD too: with its own (NVIDIA-only) image string, AMD pages still
    # render the model's ROCm image
    replace_once(corpus_copy / LAGUNA, MODEL_MIN, BRAND_MAP)
    text = replace_once(corpus_copy / LAGUNA,
                        '    min_vllm_version: "0.22.0"\n    description: "Block-FP8',
                        '    min_vllm_version: "0.25.0"\n'
                        '    docker_image: "vllm/vllm-openai:v0.25.0"\n'
                        '    description: "Block-FP8')
    [(pointer, line, message)] = _ver002(corpus_copy)
    assert (pointer, line) == ("/model/docker_image/amd", line_of(text, "rocm:v0.22.0"))
    assert "variant 'fp8' (rendered with it on mi" in message
    assert message.endswith("needs vLLM 0.25.0")
    assert "b200" not in message


def test_the_recipe_minimum_is_judged_on_every_model_image(corpus_copy: Path) -> None:
    text = replace_once(corpus_copy / LAGUNA, MODEL_MIN,
                        BRAND_MAP.replace("rocm:v0.22.0", "rocm:v0.20.0"))
    [(pointer, line, message)] = _ver002(corpus_copy)
    assert (pointer, line) == ("/model/docker_image/amd", line_of(text, "rocm:v0.20.0"))
    assert "but the recipe needs vLLM 0.21.0" in message
