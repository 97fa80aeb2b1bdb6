"""VER014: the recipe's own text says one variant needs a newer vLLM than it declares.

Recipes of our own, shaped like the corpus's, checked by the full pipeline in a copy of
the real recipes tree.
"""

from __future__ import annotations

from pathlib import Path

from tests.analysis.test_install_range import of, recipe, run
from tests.conftest import line_of

_DEFAULT = ('  default:\n    precision: bf16\n    vram_minimum_gb: 20\n'
            '    description: "Full precision BF16"\n')


def with_fp8(text: str, fp8_extra: str = "", description: str = "FP8 weights") -> str:
    """``text`` with a second variant ``fp8`` after ``default``."""
    assert _DEFAULT in text
    return text.replace(_DEFAULT, _DEFAULT + '  fp8:\n    model_id: "example-org/Example-8B-FP8"\n'
                        f'    precision: fp8\n    vram_minimum_gb: 12\n'
                        f'    description: "{description}"\n{fp8_extra}')


def guide_line(text: str, line: str) -> str:
    return text.replace("guide: |\n", f"guide: |\n  {line}\n\n", 1)


def test_guide_line_naming_one_variant_above_its_minimum_warns(corpus_copy: Path) -> None:
    text = guide_line(with_fp8(recipe(minimum="0.17.0")),
                      "- **FP8 vLLM version:** >= 0.24.0")
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "VER014")
    assert hit.severity.value == "warning" and hit.line == line_of(text, "FP8 vLLM version")
    assert "'fp8' needs vLLM 0.24.0" in hit.message and "0.17.0" in hit.message
    assert hit.hint is not None and 'variants.fp8.min_vllm_version: "0.24.0"' in hit.hint
    declared = guide_line(with_fp8(recipe(minimum="0.17.0"),
                                   '    min_vllm_version: "0.24.0"\n'),
                          "- **FP8 vLLM version:** >= 0.24.0")
    assert not of(run(corpus_copy, declared)[0], "VER014")


def test_variant_description_is_about_its_variant(corpus_copy: Path) -> None:
    text = with_fp8(recipe(minimum="0.17.0"), description="FP8; requires vLLM 0.25.0 or later")
    (hit,) = of(run(corpus_copy, text)[0], "VER014")
    assert hit.line == line_of(text, "requires vLLM 0.25.0")
    assert hit.message.startswith("its description says variant 'fp8'")


def test_lines_not_about_one_variant_are_not_judged(corpus_copy: Path) -> None:
    both = guide_line(with_fp8(recipe(minimum="0.17.0")),
                      "BF16 and FP8 both need vLLM >= 0.24.0")          # two variants
    pin = guide_line(with_fp8(recipe(minimum="0.17.0")),
                     "FP8: `uv pip install vllm==0.24.0`")               # a pin, not a floor
    feature = guide_line(with_fp8(recipe(minimum="0.17.0")),
                         "FP8 with MTP speculative decoding needs vLLM >= 0.24.0")
    below = guide_line(with_fp8(recipe(minimum="0.17.0")), "FP8 needs vLLM >= 0.12.0")
    for text in (both, pin, feature, below):
        assert not of(run(corpus_copy, text)[0], "VER014"), text
