"""FLAG006 for a typo of a choice of an option whose choices list a later vLLM release
dropped (``--load-format`` lists its loaders up to 0.10.0, ``--tokenizer-mode`` its modes
up to 0.11.2; later releases take any string at argparse and fail when the value is
used): a value in no vendored release's choices that is a near-miss of one is a typo,
never "accepted from" the release that dropped the list, and raising the minimum is no
fix for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree
from tests.tiny_recipe import PATH, RECIPE, write_tiny
from validator.cli import main

TYPOS = '["--load-format", "safetensor", "--tokenizer-mode", "mistrall"]'


def flag006(root: Path) -> list[str]:
    return [f.message for f in check_tree(root, PATH) if f.rule == "FLAG006"]


@pytest.mark.parametrize("minimum", ["0.8.5", "0.23.0"])
def test_a_near_miss_of_a_dropped_choice_is_a_typo_at_any_minimum(
        corpus_copy: Path, minimum: str) -> None:
    write_tiny(corpus_copy, TYPOS, RECIPE.replace('"0.12.0"', f'"{minimum}"'))
    found = flag006(corpus_copy)
    assert len(found) == 2, found
    assert "a typo of `safetensors`" in found[0] and "a typo of `mistral`" in found[1]
    assert not [m for m in found if "accepted only from" in m]


def test_a_listed_value_of_a_dropped_list_stays_accepted(corpus_copy: Path) -> None:
    write_tiny(corpus_copy, '["--load-format", "safetensors", "--tokenizer-mode", "mistral"]',
               RECIPE.replace('"0.12.0"', '"0.23.0"'))
    assert flag006(corpus_copy) == []


def test_unsafe_fixes_leave_the_minimum_of_a_choice_typo(
        corpus_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = write_tiny(corpus_copy, TYPOS, RECIPE.replace('"0.12.0"', '"0.8.5"'))
    assert main(["--no-cache", "--fix", "--unsafe-fixes", str(corpus_copy / PATH)]) == 1
    assert (corpus_copy / PATH).read_text() == text
    assert "typo of `safetensors`" in capsys.readouterr().out
