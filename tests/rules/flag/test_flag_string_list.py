"""FLAG026: an argument list written as one string is one finding with the list to write,
not one FLAG005/FLAG012 per character the site spreads it into."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import check_tree, line_of
from tests.tiny_recipe import PATH, write_tiny


def test_a_string_argument_list_is_one_finding_with_the_list_to_write(
        corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, '"--trust-remote-code --max-model-len 4096"')
    found = [f for f in check_tree(corpus_copy, PATH) if f.rule.startswith("FLAG")]
    assert [(f.rule, f.line) for f in found] == [("FLAG026", line_of(text, "base_args"))]
    (hit,) = found
    assert hit.pointer == "/model/base_args"
    assert "its 40 characters (`-`, `-`, `t`, `r`" in hit.message
    assert "model.base_args is a string" in hit.message
    assert hit.hint == 'write a list: ["--trust-remote-code", "--max-model-len", "4096"]'


def test_the_same_tokens_as_a_list_pass(corpus_copy: Path) -> None:
    write_tiny(corpus_copy, '["--trust-remote-code", "--max-model-len", "4096"]')
    assert [f for f in check_tree(corpus_copy, PATH) if f.rule.startswith("FLAG")] == []


def test_a_variant_string_list_does_not_give_per_character_overrides(
        corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, '"--kv-cache-dtype auto"').replace(
        "    vram_minimum_gb: 3\n",
        '    vram_minimum_gb: 3\n    extra_args: "--kv-cache-dtype fp8"\n')
    (corpus_copy / PATH).write_text(text)
    found = [(f.rule, f.line) for f in check_tree(corpus_copy, PATH)
             if f.rule.startswith("FLAG")]
    assert found == [("FLAG026", line_of(text, "base_args")),
                     ("FLAG026", line_of(text, "extra_args"))]
