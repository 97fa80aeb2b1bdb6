"""HW010's "the weights alone do not fit" counts an AWQ checkpoint at 4 bits and a GPTQ one
at 2 bits per parameter (the fewest vLLM's kernels take), not at the 1 byte of upstream's
formula table, which HW009 keeps."""

from __future__ import annotations

import pytest

from validator.rules.hw.vram_formula import formula_vram_gb, vram_out_of_bounds


@pytest.mark.parametrize(("precision", "declared"), [("awq", 12), ("gptq", 12), ("gptq", 5)])
def test_a_4_bit_checkpoint_under_its_formula_size_is_no_fit_problem(
        precision: str, declared: float) -> None:
    """Qwen3-14B-AWQ (14.8 B parameters, ~9.9 GB on the Hub) serves on one 32 GB GPU:
    12 GB is plausible though the 1-byte table says 14.8 GB of weights."""
    assert vram_out_of_bounds(declared, 14.8, precision) is None
    assert formula_vram_gb(14.8, precision) == 18  # HW009's formula is upstream's


@pytest.mark.parametrize(("precision", "declared", "raw"), [("awq", 7, "7.4"),
                                                            ("gptq", 3, "3.7")])
def test_less_than_the_fewest_bits_is_still_found(precision: str, declared: float,
                                                  raw: str) -> None:
    why = vram_out_of_bounds(declared, 14.8, precision)
    assert why is not None and f"= {raw} GB): the weights alone do not fit" in why
