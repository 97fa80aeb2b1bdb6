"""Classes of #14 sections 3-4: each with a failing and a passing recipe of our own,
shaped like the corpus's, checked by the full pipeline in a copy of the real tree."""

from __future__ import annotations

from pathlib import Path

from tests.analysis.test_install_range import of, recipe, run
from tests.conftest import line_of


def variant_block(text: str, body: str) -> str:
    """``text`` with the ``default`` variant replaced by ``body``."""
    old = ('  default:\n    precision: bf16\n    vram_minimum_gb: 20\n'
           '    description: "Full precision BF16"\n')
    assert old in text
    return text.replace(old, body)


def test_nightly_minimum_is_an_error(corpus_copy: Path) -> None:
    text = recipe(minimum="nightly")
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "VER011")
    assert hit.severity.value == "error" and hit.line == line_of(text, "min_vllm_version")
    assert hit.hint is not None and "nightly_required: true" in hit.hint
    passing, _ = run(corpus_copy, recipe(minimum="0.40.0",
                                         model_extra="  nightly_required: true\n"))
    assert not of(passing, "VER011")


def test_launch_image_is_info_before_the_release_and_a_warning_after(
        corpus_copy: Path) -> None:
    launch = '  docker_image: "vllm/vllm-openai:example8b"\n'
    before, _ = run(corpus_copy, recipe(minimum="0.40.0", model_extra=launch
                                        + "  nightly_required: true\n"))
    assert of(before, "VER012") and not of(before, "VER003")
    after, _ = run(corpus_copy, recipe(minimum="0.25.0", model_extra=launch))
    (hit,) = of(after, "VER003")
    assert hit.hint is not None and "vllm/vllm-openai:v0.25.0" in hit.hint
    assert not of(after, "VER012")
    pinned, _ = run(corpus_copy, recipe(
        minimum="0.25.0", model_extra='  docker_image: "vllm/vllm-openai:v0.25.0"\n'))
    assert not of(pinned, "VER003") and not of(pinned, "VER012")


def test_guide_flag_with_underscores_warns(corpus_copy: Path) -> None:
    text = recipe(guide_cmd="vllm serve example-org/Example-8B --max_model_len 8192")
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "GUIDE019")
    assert hit.line == line_of(text, "--max_model_len") and "--max-model-len" in hit.message
    assert "de-duplicates" not in hit.message
    passing, _ = run(corpus_copy, recipe(
        guide_cmd="vllm serve example-org/Example-8B --max-model-len 8192"))
    assert not of(passing, "GUIDE019")


def test_max_model_len_above_context_is_an_error_unless_allowed(corpus_copy: Path) -> None:
    args = '["--max-model-len", "262144"]'
    found, _ = run(corpus_copy, recipe(args))
    (hit,) = of(found, "FLAG015")
    assert hit.severity.value == "error" and "vLLM refuses to start" in hit.message
    allowed = recipe(args).replace("  base_env: {}",
                                   '  base_env:\n    VLLM_ALLOW_LONG_MAX_MODEL_LEN: "1"')
    passing, _ = run(corpus_copy, allowed)
    assert not of(passing, "FLAG015")


def test_vram_below_the_weights_warns(corpus_copy: Path) -> None:
    low = variant_block(recipe(), '  default:\n    precision: bf16\n    vram_minimum_gb: 10\n'
                        '    description: "BF16"\n')
    found, _ = run(corpus_copy, low)
    (hit,) = of(found, "HW010")
    assert hit.severity.value == "warning" and "raw weight size" in hit.message
    assert not of(found, "HW009")  # one finding per value
    high = variant_block(recipe(), '  default:\n    precision: bf16\n    vram_minimum_gb: 80\n'
                         '    description: "BF16"\n')
    (hit,) = of(run(corpus_copy, high)[0], "HW010")
    assert "2.5×" in hit.message
    fine, _ = run(corpus_copy, recipe())  # 20 GB for 8B bf16: the formula's value
    assert not of(fine, "HW010") and not of(fine, "HW009")


def test_nvfp4_default_on_verified_hopper_is_an_error(corpus_copy: Path) -> None:
    nvfp4 = ('  default:\n    precision: nvfp4\n    vram_minimum_gb: 6\n'
             '    description: "NVFP4"\n')
    text = variant_block(recipe(), nvfp4)  # meta.hardware: h100: verified
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "HW011")
    assert hit.severity.value == "error" and hit.line == line_of(text, "h100: verified")
    assert hit.related and hit.related[0].line == line_of(text, "precision: nvfp4")
    exempt = variant_block(recipe(), nvfp4 + "    precision_hardware:\n      brand: NVIDIA\n")
    assert not of(run(corpus_copy, exempt)[0], "HW011")
    blackwell = variant_block(recipe(), nvfp4).replace("h100: verified", "b200: verified")
    assert not of(run(corpus_copy, blackwell)[0], "HW011")


def test_guide_saying_nightly_without_nightly_required_warns(corpus_copy: Path) -> None:
    note = ("vllm serve example-org/Example-8B\n  ```\n\n  The architecture is not yet in "
            "any stable release: install the nightly wheel.")
    text = recipe(guide_cmd=note)
    (hit,) = of(run(corpus_copy, text)[0], "VER013")
    assert hit.line == line_of(text, "not yet in any stable release")
    assert "0.12.0 is released" in hit.message
    flagged = recipe(minimum="0.40.0", guide_cmd=note,
                     model_extra="  nightly_required: true\n")
    assert not of(run(corpus_copy, flagged)[0], "VER013")
    feature = recipe(guide_cmd="vllm serve example-org/Example-8B\n  ```\n\n  MTP speculative "
                     "decoding requires the nightly build.")
    assert not of(run(corpus_copy, feature)[0], "VER013")
