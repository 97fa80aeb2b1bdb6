"""A guide command that runs a release below the recipe's minimum (its own ``docker run``
image, a ``docker pull`` or ``vllm==X`` pin of its block) is judged against that release
(GUIDE004/GUIDE006 there), and the pin itself is VER008, as a pip pin is."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.analysis.test_install_range import of, recipe, run
from tests.conftest import line_of

pytestmark = pytest.mark.corpus

ASYNC = "--async-scheduling"  # from vLLM 0.10.0
DOCKER = ("docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.9.2 \\\n"
          f"    --model example-org/Example-8B {ASYNC}")


def test_docker_run_of_an_older_release_is_judged_against_it(corpus_copy: Path) -> None:
    text = recipe(minimum="0.10.0", guide_cmd=DOCKER)
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "GUIDE004")
    assert hit.line == line_of(text, ASYNC)
    assert hit.message.endswith("but the release its section pins is 0.9.2 (below the "
                                "recipe's min_vllm_version 0.10.0)")
    assert [r.line for r in hit.related] == [line_of(text, "docker run")]
    (pin,) = of(found, "VER008")
    assert pin.line == line_of(text, "vllm/vllm-openai:v0.9.2")
    assert pin.severity.value == "warning"
    assert "the guide runs vLLM 0.9.2 (`vllm/vllm-openai:v0.9.2`)" in pin.message


def test_docker_run_of_the_minimum_release_passes(corpus_copy: Path) -> None:
    found, _ = run(corpus_copy, recipe(minimum="0.10.0", guide_cmd=DOCKER.replace(
        "v0.9.2", "v0.10.0")))
    assert not of(found, "GUIDE004") and not of(found, "VER008")


def test_pip_pin_of_an_older_release_in_the_block_is_judged_against_it(
        corpus_copy: Path) -> None:
    cmd = f'uv pip install "vllm==0.9.2"\n  vllm serve example-org/Example-8B {ASYNC}'
    text = recipe(minimum="0.10.0", guide_cmd=cmd)
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "GUIDE004")
    assert hit.line == line_of(text, ASYNC) and "section pins is 0.9.2" in hit.message


def test_older_pin_beside_a_stated_minimum_is_a_fallback_not_the_release_run(
        corpus_copy: Path) -> None:
    # "vLLM >= 0.10.0 (CUDA 12.x hosts: vllm==0.9.2)": the block states the minimum too
    cmd = (f"# vLLM >= 0.10.0; on old drivers use vllm==0.9.2\n"
           f"  vllm serve example-org/Example-8B {ASYNC}")
    found, _ = run(corpus_copy, recipe(minimum="0.10.0", guide_cmd=cmd))
    assert not of(found, "GUIDE004")


def test_install_docker_command_below_the_minimum_is_ver008(corpus_copy: Path) -> None:
    extra = '  install:\n    docker:\n      command: "docker pull vllm/vllm-openai:v0.9.0"\n'
    text = recipe(minimum="0.10.0", model_extra=extra)
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "VER008")
    assert (hit.pointer, hit.line) == ("/model/install/docker/command",
                                       line_of(text, "docker pull"))
    assert "runs vLLM 0.9.0" in hit.message


def test_prose_naming_an_older_image_is_not_the_release_run(corpus_copy: Path) -> None:
    # "the verified run used a v0.9.2 image" says how it was tested, it installs nothing
    cmd = (f"vllm serve example-org/Example-8B {ASYNC}\n  ```\n\n"
           "  The verified run used a `vllm-openai:v0.9.2` image.\n\n  ```bash\n  echo done")
    found, _ = run(corpus_copy, recipe(minimum="0.10.0", guide_cmd=cmd))
    assert not of(found, "GUIDE004")
