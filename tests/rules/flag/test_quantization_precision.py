"""``FLAG031``: a ``--quantization`` method of another precision family than the variant's
``precision`` (vLLM compares the method with the checkpoint's ``quant_method`` and refuses
to start). On the small tree of ``test_flag_overrides``, rendered and as written."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import line_of
from tests.rules.flag.test_flag_overrides import MODES, RECIPE, edit, found, tree

VARIANTS = "variants:\n  default:\n    precision: bf16\n    vram_minimum_gb: 200\n"


def with_variant(body: str) -> str:
    """The small recipe with a second variant ``q`` of ``body`` (its indented keys)."""
    return edit(RECIPE, VARIANTS, VARIANTS + "  q:\n" + body)


AWQ_AS_FP8 = with_variant("    model_id: acme/Small-9B-AWQ\n    precision: int4\n"
                          "    vram_minimum_gb: 60\n"
                          "    extra_args: [\"--quantization\", \"fp8\"]\n")


@MODES
def test_an_int4_variant_run_with_fp8_is_an_error(tmp_path: Path, rendered: bool) -> None:
    (hit,) = found(tree(tmp_path, AWQ_AS_FP8), "FLAG031", rendered)
    assert hit.severity.value == "error"
    assert (hit.pointer, hit.line) == ("/variants/q/extra_args/1",
                                       line_of(AWQ_AS_FP8, "extra_args"))
    assert hit.message.startswith("`--quantization fp8` on variant `q` (precision int4): "
                                  "the method reads an FP8 checkpoint"), hit.message
    assert "quantization_config.quant_method (on " in hit.message
    assert hit.hint is not None and "variants.q.precision" in hit.hint


@MODES
def test_the_method_of_the_precision_is_no_finding(tmp_path: Path, rendered: bool) -> None:
    text = edit(AWQ_AS_FP8, '"fp8"]', '"awq_marlin"]')
    assert found(tree(tmp_path, text), "FLAG031", rendered) == []


@MODES
def test_online_fp8_of_a_bf16_checkpoint_is_no_finding(tmp_path: Path, rendered: bool) -> None:
    text = with_variant("    precision: fp8\n    vram_minimum_gb: 100\n"
                        "    extra_args: [\"--quantization\", \"fp8\"]\n")
    assert found(tree(tmp_path, text), "FLAG031", rendered) == []


@MODES
def test_modelopt_on_an_nvfp4_checkpoint_is_no_finding(tmp_path: Path, rendered: bool) -> None:
    # vLLM's ModelOpt NVFP4 config claims a ModelOpt NVFP4 checkpoint whatever the
    # user's method: ``modelopt`` becomes ``modelopt_fp4``
    text = with_variant("    model_id: acme/Small-9B-NVFP4\n    precision: nvfp4\n"
                        "    vram_minimum_gb: 30\n"
                        "    extra_args: [\"--quantization\", \"modelopt\"]\n")
    assert found(tree(tmp_path, text), "FLAG031", rendered) == []


@MODES
def test_a_checkpoint_only_method_on_a_bf16_variant_is_an_error(tmp_path: Path,
                                                                rendered: bool) -> None:
    text = with_variant("    precision: bf16\n    vram_minimum_gb: 200\n"
                        "    extra_args: [\"--quantization=awq\"]\n")
    (hit,) = found(tree(tmp_path, text), "FLAG031", rendered)
    assert hit.pointer == "/variants/q/extra_args/0"
    assert "no quantization config for it" in hit.message, hit.message


@MODES
def test_a_method_in_base_args_is_judged_per_variant(tmp_path: Path, rendered: bool) -> None:
    text = edit(RECIPE, '    - "8192"\n', '    - "8192"\n    - "--quantization"\n'
                '    - "gptq_marlin"\n')
    text = edit(text, VARIANTS, VARIANTS + "  int4:\n    precision: int4\n"
                "    vram_minimum_gb: 60\n")
    # the default (bf16) variant has no GPTQ config; the int4 one is fine
    (hit,) = found(tree(tmp_path, text), "FLAG031", rendered)
    assert hit.pointer == "/model/base_args/3"
    assert "on variant `default` (precision bf16)" in hit.message


@MODES
def test_methods_not_in_the_table_are_not_judged(tmp_path: Path, rendered: bool) -> None:
    text = with_variant("    model_id: acme/Small-9B-W8A8\n    precision: int8\n"
                        "    vram_minimum_gb: 100\n"
                        "    extra_args: [\"--quantization\", \"compressed-tensors\"]\n")
    assert found(tree(tmp_path, text), "FLAG031", rendered) == []
