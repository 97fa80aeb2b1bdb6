"""HW020 on real recipes of corpus ``main`` (a throw-away copy): the recipe's text says a
variant needs multi-node while its vram_minimum_gb fits one node of a picker profile."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.checks.test_hw import GLM51, hw, inject
from tests.conftest import line_of

pytestmark = pytest.mark.corpus


def test_glm51_default_bf16_text_and_fit_disagree(corpus_copy: Path) -> None:
    text = (corpus_copy / GLM51).read_text("utf-8")
    assert hw(corpus_copy, GLM51, "HW020") == [
        ("HW020", "/variants/default/description", line_of(text, "requires multi-node"))]


def test_glm51_passes_when_the_minimum_needs_several_nodes(corpus_copy: Path) -> None:
    inject(corpus_copy, GLM51, "vram_minimum_gb: 1786", "vram_minimum_gb: 2600")
    assert hw(corpus_copy, GLM51, "HW020") == []


def test_a_negated_statement_is_not_a_claim(corpus_copy: Path) -> None:
    inject(corpus_copy, GLM51, "requires multi-node deployment",
           "does not need multi-node deployment")
    assert hw(corpus_copy, GLM51, "HW020") == []
