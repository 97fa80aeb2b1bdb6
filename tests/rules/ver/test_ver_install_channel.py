"""The ``VER`` image rules read what an image is, and what the configurations run in it
need, from the install-channel model the ``FLAG`` and ``GUIDE`` rules read
(:mod:`validator.analysis.install_channel`).

Each test writes a small recipe of our own into a copy of the real recipes tree and runs
the full pipeline on it (:func:`tests.analysis.test_install_range.run`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.analysis.test_install_range import recipe, run
from tests.rules.flag.test_install_channel import spark, with_hardware

FEATURE = """features:
  spec_decoding:
    description: "EAGLE3 speculative decoding{said}"
    args: ["--max-num-seqs", "64"]

variants:"""

IMAGE = '  docker_image: "vllm/vllm-openai:v0.13.0"\n'


@pytest.mark.parametrize(("said", "needs"), [
    ("", None),
    (" (requires vLLM >= 0.15.0)", "0.15.0"),
    (" (requires vLLM >= 0.13.0)", None),
])
def test_an_image_older_than_what_a_feature_rendered_with_it_states_is_an_error(
        corpus_copy: Path, said: str, needs: str | None) -> None:
    """The recipe needs 0.12.0 and pins the v0.13.0 image; a feature that states it needs
    0.15.0 is rendered in that image on every NVIDIA hardware, so the image cannot run
    it (the ``FLAG`` rules check that feature's arguments at 0.15.0)."""
    text = recipe(model_extra=IMAGE).replace("variants:", FEATURE.format(said=said), 1)
    found, _ = run(corpus_copy, text)
    hits = [f for f in found if f.rule == "VER002"]
    if needs is None:
        assert hits == []
        return
    (hit,) = hits
    assert hit.pointer == "/model/docker_image"
    assert hit.message.startswith("image 'vllm/vllm-openai:v0.13.0' is vLLM 0.13.0, but "
                                  "feature 'spec_decoding' (rendered with it on h200, h100")
    assert hit.message.endswith(f"needs vLLM {needs}")
    assert hit.related[0].line == text.splitlines().index(
        '    description: "EAGLE3 speculative decoding (requires vLLM >= 0.15.0)"') + 1


def test_a_community_builds_floating_tag_is_pinned_within_that_build(
        corpus_copy: Path) -> None:
    """``eugr/spark-vllm-b12x:latest`` moves (VER003), but it is a build carrying code of
    its own that DGX Spark's commands run in: the hint pins that build (a digest or a
    fixed tag), never vLLM's release image, which lacks the code."""
    text = with_hardware(recipe(), spark("eugr/spark-vllm-b12x:latest"))
    found, _ = run(corpus_copy, text)
    (hit,) = [f for f in found if f.rule == "VER003"]
    assert hit.hint is not None
    assert "eugr/spark-vllm-b12x@sha256:" in hit.hint and "vllm/vllm-openai" not in hit.hint
    found, _ = run(corpus_copy, with_hardware(recipe(), spark("vllm/vllm-openai:latest")))
    (hit,) = [f for f in found if f.rule == "VER003"]
    assert hit.hint is not None and "vllm/vllm-openai:v0.12.0" in hit.hint
