"""FLAG030, FLAG033 (and the guide's GUIDE006, the range's FLAG023): the speculative
``method`` and the top-level keys of ``--speculative-config`` against what each vLLM release
accepts, on real recipes of the corpus at ``main``."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import check_tree, line_of, replace_once
from validator.findings import FLOOR

GLM = "models/zai-org/GLM-5.1.yaml"
"""Minimum 0.19.1; its spec_decoding feature sets the method by the dotted key."""
DOTTED = '      - "--speculative-config.method"\n      - "mtp"\n'
QWEN = "models/Qwen/Qwen3-Next-80B-A3B-Instruct.yaml"
"""Minimum 0.10.0; its feature and its guide use ``qwen3_next_mtp`` (vLLM 0.10.2 on)."""
WHOLE = "'{\"method\":\"qwen3_next_mtp\",\"num_speculative_tokens\":2}'"


def spec(root: Path, path: str, *rules: str) -> list[tuple[str, str, int, str, str | None]]:
    return [(f.rule, f.pointer, f.line, f.message.split(" (on ")[0], f.hint)
            for f in check_tree(root, path) if f.rule in rules
            and ("speculative method" in f.message or "of `--speculative-config`" in f.message)]


def test_a_misspelt_dotted_method_is_an_error_at_its_value(corpus_copy: Path) -> None:
    text = replace_once(corpus_copy / GLM, DOTTED, DOTTED.replace('"mtp"', '"deepseek-mtp"'))
    assert spec(corpus_copy, GLM, "FLAG030") == [(
        "FLAG030", "/features/spec_decoding/args/1", line_of(text, '"deepseek-mtp"'),
        "speculative method `deepseek-mtp` (`--speculative-config`) is not a speculative "
        "method vLLM 0.19.1 accepts; vLLM refuses to start", "did you mean `deepseek_mtp`?")]


def test_a_method_of_the_minimum_is_no_finding(corpus_copy: Path) -> None:
    replace_once(corpus_copy / GLM, DOTTED, DOTTED.replace('"mtp"', '"deepseek_mtp"'))
    assert spec(corpus_copy, GLM, "FLAG030", "FLAG023", "GUIDE006") == []


def test_a_method_of_a_later_release_is_a_floor_finding(corpus_copy: Path) -> None:
    """The corpus's own defect: Qwen3-Next claims vLLM 0.10.0, whose ``SpeculativeConfig``
    (a pydantic dataclass) lists no ``qwen3_next_mtp``; 0.10.2 adds it."""
    text = (corpus_copy / QWEN).read_text("utf-8")
    found = [f for f in check_tree(corpus_copy, QWEN) if f.rule in ("FLAG030", "GUIDE006")]
    assert [(f.rule, f.line, f.reason, f.hint) for f in found] == [
        ("FLAG030", line_of(text, WHOLE), FLOOR, "raise min_vllm_version to 0.10.2"),
        ("GUIDE006", line_of(text, "--speculative-config '"), FLOOR,
         "raise min_vllm_version to 0.10.2")]
    assert found[0].message.startswith("speculative method `qwen3_next_mtp` "
                                       "(`--speculative-config`) is accepted only from vLLM "
                                       "0.10.2, but the recipe's minimum is 0.10.0")
    replace_once(corpus_copy / QWEN, 'min_vllm_version: "0.10.0"', 'min_vllm_version: "0.10.2"')
    assert spec(corpus_copy, QWEN, "FLAG030", "FLAG023", "GUIDE006") == []


def test_a_method_a_release_of_the_range_drops_is_a_range_finding(corpus_copy: Path) -> None:
    """``medusa`` is a method up to 0.32.0 and not in 0.33.0: a recipe from 0.32.0 whose
    install path pulls the newest release is rejected there."""
    replace_once(corpus_copy / GLM, 'min_vllm_version: "0.19.1"', 'min_vllm_version: "0.32.0"')
    text = replace_once(corpus_copy / GLM, DOTTED, DOTTED.replace('"mtp"', '"medusa"'))
    found = spec(corpus_copy, GLM, "FLAG030", "FLAG023")
    assert [(r, p, line) for r, p, line, _, _ in found] == [
        ("FLAG023", "/features/spec_decoding/args/1", line_of(text, '"medusa"'))]
    assert "is rejected by vLLM 0.33.0, 1 release (not a speculative method there)" in \
        found[0][3]


def test_a_guide_command_with_a_misspelt_method_is_guide006(corpus_copy: Path) -> None:
    text = replace_once(corpus_copy / GLM, "--speculative-config.method mtp",
                        "--speculative-config.method mpt")
    assert [(r, line) for r, _, line, _, _ in spec(corpus_copy, GLM, "GUIDE006")] == [
        ("GUIDE006", line_of(text, "--speculative-config.method mpt"))]


TOKENS = '"--speculative-config.num_speculative_tokens"'


def test_a_misspelt_key_is_an_error_where_the_minimum_refuses_unknown_keys(
        corpus_copy: Path) -> None:
    """GLM-5.1's minimum 0.19.1 declares ``extra="forbid"``: the dotted key's name is
    wrong, so the finding is on the option token."""
    text = replace_once(corpus_copy / GLM, TOKENS, TOKENS.replace("tokens", "token"))
    assert [(r, p, line, h) for r, p, line, _, h in spec(corpus_copy, GLM, "FLAG033")] == [
        ("FLAG033", "/features/spec_decoding/args/2",
         line_of(text, "num_speculative_token\""),
         "did you mean `num_speculative_tokens`, `speculative_token_tree`?")]


def test_a_key_of_a_later_release_is_a_floor_finding(corpus_copy: Path) -> None:
    """The corpus's own defect: Qwen3.6-35B-A3B (minimum 0.17.0) passes ``moe_backend``,
    a field of ``SpeculativeConfig`` from 0.19.0; 0.17.0 and 0.18.x refuse it. Its guide
    command runs the 0.24.0 image its section names: no finding there."""
    path = "models/Qwen/Qwen3.6-35B-A3B.yaml"
    text = (corpus_copy / path).read_text("utf-8")
    found = [f for f in check_tree(corpus_copy, path) if "moe_backend" in f.message]
    assert [(f.rule, f.line, f.reason, f.hint) for f in found] == [
        ("FLAG033", line_of(text, '"moe_backend":"triton"'), FLOOR,
         "raise min_vllm_version to 0.19.0")]


def test_releases_that_ignore_unknown_keys_report_only_the_refusing_range(
        corpus_copy: Path) -> None:
    """At 0.12.0 (pydantic's default: unknown keys ignored) no FLAG033; the install range
    reaches 0.16.0 on, which refuse the key: FLAG023."""
    replace_once(corpus_copy / GLM, 'min_vllm_version: "0.19.1"', 'min_vllm_version: "0.12.0"')
    replace_once(corpus_copy / GLM, TOKENS, TOKENS.replace("tokens", "token"))
    found = spec(corpus_copy, GLM, "FLAG033", "FLAG023")
    assert [r for r, _, _, _, _ in found] == ["FLAG023"]
    assert "is rejected by vLLM 0.16.0–0.33.0" in found[0][3]
