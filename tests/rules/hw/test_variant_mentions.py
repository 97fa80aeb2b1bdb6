"""Which variants a line of text names (by key, model id, or a precision only one variant
has) is what the case-insensitive whole-word patterns find, also for text and names
beyond ASCII; and in ASCII text a pattern is searched only where the lower-case name is."""

from __future__ import annotations

import re
from typing import Any

import pytest

from validator.rules.hw import multi_node_text
from validator.rules.hw.multi_node_text import _mentions

DATA: dict[str, Any] = {"variants": {
    "default": {"model_id": "org/Model-BF16", "precision": "bf16"},
    "fp8": {"model_id": "org/Model-FP8", "precision": "fp8"},
    "nvfp4": {"model_id": "org/Model-NVFP4", "precision": "fp4"},
    "ſtrange": {"precision": "int4"},
    "Kelvin": {"precision": "int8"}}}


def _by_patterns(text: str) -> list[str]:
    out = []
    variants = DATA["variants"]
    precisions = [v["precision"] for v in variants.values()]
    for name, variant in variants.items():
        words = [name] + ([variant["model_id"]] if "model_id" in variant else [])
        if precisions.count(variant["precision"]) == 1:
            words.append(variant["precision"])
        if any(re.search(rf"(?<![\w./-]){re.escape(w)}(?![\w/-])", text, re.IGNORECASE)
               for w in words):
            out.append(name)
    return out


@pytest.mark.parametrize("text", [
    "The FP8 variant needs vLLM 0.24", "use org/model-nvfp4 on B200", "DEFAULT is bf16",
    "nothing named here", "sTRANGE and \u212aelvin", "strange and kelvin", "ſtrange",
    "fp8/org", "x-fp8", "fp8.", "İnt4 or INT8", "Model-BF16", ""])
def test_named_variants_are_those_the_patterns_find(text: str) -> None:
    assert _mentions(text, DATA) == _by_patterns(text)


def test_ascii_text_searches_only_names_it_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    searched: list[str] = []
    real = multi_node_text._named

    def counted(word: str) -> re.Pattern[str]:
        searched.append(word)
        return real(word)

    monkeypatch.setattr(multi_node_text, "_named", counted)
    assert _mentions("The FP8 variant needs vLLM 0.24.0 or later", DATA) == ["fp8"]
    assert searched == ["fp8", "ſtrange"]  # a name beyond ASCII is always searched
