"""FLAG034 (and the range's FLAG023): a ``--speculative-config`` whose values vLLM's
``SpeculativeConfig`` refuses together, on a real recipe of the corpus at ``main``."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import check_tree, line_of, replace_once

GLM = "models/zai-org/GLM-5.1.yaml"
"""Minimum 0.19.1."""
BASE = '    - "--trust-remote-code"\n'


def refused(root: Path, value: str) -> tuple[str, list[tuple[str, int, str, str | None]]]:
    """The recipe text with ``value`` given to ``--speculative-config`` in its base
    arguments, and the FLAG034/FLAG023 findings there."""
    text = replace_once(root / GLM, BASE,
                        BASE + f"    - \"--speculative-config\"\n    - '{value}'\n")
    return text, [(f.rule, f.line, f.message, f.hint) for f in check_tree(root, GLM)
                  if f.rule in ("FLAG034", "FLAG023") and f.pointer.startswith("/model/base")]


def test_a_draft_method_without_a_model_is_an_error_at_its_value(corpus_copy: Path) -> None:
    value = '{"method":"eagle3","num_speculative_tokens":3}'
    text, found = refused(corpus_copy, value)
    [(rule, line, message, _)] = found
    assert (rule, line) == ("FLAG034", line_of(text, value))
    assert message.startswith("speculative method `eagle3` (`--speculative-config`) needs a "
                              "draft `model`")


def test_a_draft_method_with_a_model_and_an_mtp_method_without_are_no_finding(
        corpus_copy: Path) -> None:
    assert refused(corpus_copy, '{"method":"eagle3","model":"org/draft",'
                   '"num_speculative_tokens":3}')[1] == []


def test_an_mtp_method_without_a_model_is_no_finding(corpus_copy: Path) -> None:
    assert refused(corpus_copy, '{"method":"deepseek_mtp","num_speculative_tokens":1}')[1] == []


def test_prompt_lookup_min_above_max_is_an_error(corpus_copy: Path) -> None:
    value = '{"method":"ngram","num_speculative_tokens":4,"prompt_lookup_max":2,' \
        '"prompt_lookup_min":5}'
    text, found = refused(corpus_copy, value)
    [(rule, line, message, _)] = found
    assert (rule, line) == ("FLAG034", line_of(text, value))
    assert message.startswith("`prompt_lookup_min` 5 is above `prompt_lookup_max` 2")
    replace_once(corpus_copy / GLM, '"prompt_lookup_min":5', '"prompt_lookup_min":2')
    assert [f for f in check_tree(corpus_copy, GLM) if f.rule == "FLAG034"] == []
