"""HW020 on real recipes of corpus ``main`` (a throw-away copy): the recipe's text says a
variant needs multi-node while its vram_minimum_gb fits one node of a picker profile."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.rules.hw.test_hw import GLM51, hw, inject

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


# A statement that names hardware is judged on those profiles only. GLM-5.1's default
# variant (1786 GB) fits one node of b300, mi325x and mi355x only; h100 (640 GB) and
# mi300x (1536 GB) are too small.
@pytest.mark.parametrize("text", [
    "Full precision BF16 — requires multi-node deployment on H100",
    "Full precision BF16 — requires multi-node on 8xH100 (one node is too small)",
    "Full precision BF16 — requires multi-node for MI300X",
    "Full precision BF16 on 8x B300; requires multi-node on h100 and mi300x",
    "Full precision BF16 — on Hopper it requires multi-node deployment",
])
def test_a_statement_about_named_hardware_that_holds_there(corpus_copy: Path,
                                                           text: str) -> None:
    inject(corpus_copy, GLM51, "Full precision BF16 — requires multi-node deployment", text)
    assert hw(corpus_copy, GLM51, "HW020") == []


def test_a_statement_about_named_hardware_that_fits_there(corpus_copy: Path) -> None:
    # one mi355x node (2304 GB) holds 1786 GB: the claim is wrong on the hardware it names
    text = inject(corpus_copy, GLM51, "Full precision BF16 — requires multi-node deployment",
                  "Full precision BF16 — requires multi-node on MI355X")
    [found] = [f for f in check_tree(corpus_copy, GLM51) if f.rule == "HW020"]
    assert (found.pointer, found.line) == ("/variants/default/description",
                                           line_of(text, "requires multi-node on MI355X"))
    assert '"requires multi-node" on mi355x' in found.message
    assert "fits one node of mi355x (2304 GB), so" in found.message
    assert "b300" not in found.message
