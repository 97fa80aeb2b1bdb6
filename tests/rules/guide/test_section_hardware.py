"""GUIDE021: a guide section whose heading names hardware the page's picker offers for no
variant (nor on that generation), or a precision the named hardware cannot run. Faults
injected into the real GLM-5.2 recipe of the corpus at ``main`` (offered on NVIDIA and
AMD, not on TPU; its headings name ``8xH200``, ``AMD MI300X/MI355X``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once

GLM = "models/zai-org/GLM-5.2.yaml"
ANCHOR = "  ## Launching the server\n"
SERVE = "  ```bash\n  vllm serve zai-org/GLM-5.2-FP8 --max-model-len 32768\n  ```\n\n"


def guide021(root: Path) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in check_tree(root, GLM) if f.rule == "GUIDE021"]


def test_the_recipe_as_published_has_no_finding(corpus_copy: Path) -> None:
    assert guide021(corpus_copy) == []


def test_a_section_for_hardware_the_picker_hides_is_found_at_its_heading(
        corpus_copy: Path) -> None:
    text = replace_once(corpus_copy / GLM, ANCHOR,
                        "  ## Cloud TPU (Trillium)\n\n  Use the TPU image.\n\n" + SERVE + ANCHOR)
    ((line, message),) = guide021(corpus_copy)
    assert line == line_of(text, "## Cloud TPU (Trillium)")
    assert "trillium" in message and "(tpu;" in message


def test_a_section_for_a_precision_the_named_hardware_cannot_run_is_found(
        corpus_copy: Path) -> None:
    text = replace_once(corpus_copy / GLM, ANCHOR, "  ### 8xH200 (NVFP4)\n\n" + SERVE + ANCHOR)
    ((line, message),) = guide021(corpus_copy)
    assert line == line_of(text, "### 8xH200 (NVFP4)")
    assert "NVFP4 on h200" in message and "Blackwell" in message


@pytest.mark.parametrize("added", [
    "  ### 8xH100 (FP8)\n\n",                       # offered generation (Hopper)
    "  ## Tips: CPU offloading\n\n",                # CPU: a word, not a target
    "  ## Tips\n\n  On a TPU v6e (Trillium) it also runs.\n\n",  # prose is not judged
    "  ### 4x B200 (NVFP4)\n\n",                    # Blackwell runs NVFP4
])
def test_headings_of_offered_hardware_and_prose_are_no_finding(corpus_copy: Path,
                                                               added: str) -> None:
    replace_once(corpus_copy / GLM, ANCHOR, added + SERVE + ANCHOR)
    assert guide021(corpus_copy) == []


def test_a_section_without_a_serving_command_is_not_judged(corpus_copy: Path) -> None:
    """A section that links to other recipes or says why the hardware is not offered
    (corpus Qwen3-235B's "TPU Deployment" links) deploys nothing."""
    replace_once(corpus_copy / GLM, ANCHOR, "  ### TPU Deployment\n\n  - [A smaller model on "
                 "Trillium](https://example.org/tpu)\n\n" + ANCHOR)
    assert guide021(corpus_copy) == []


def test_declaring_the_restricted_profile_offers_it(corpus_copy: Path) -> None:
    """The picker shows a restricted profile once ``meta.hardware`` declares it (the
    variant's precision permitting): the same TPU section is then no finding."""
    replace_once(corpus_copy / GLM, ANCHOR,
                 "  ## Cloud TPU (Trillium)\n\n  Use the TPU image.\n\n" + SERVE + ANCHOR)
    replace_once(corpus_copy / GLM, "    mi355x: verified\n",
                 "    mi355x: verified\n    trillium: verified\n")
    assert guide021(corpus_copy) == []
