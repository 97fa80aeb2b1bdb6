"""FLAG007's ``KEY=VALUE``-only releases and FLAG040: values vLLM's own types judge, per
release, on real recipes of the corpus at ``main``: a JSON ``--limit-mm-per-prompt`` on a
minimum whose type is ``nullable_kvs``; misspelt keys and values of
``--compilation-config``, ``--structured-outputs-config`` and ``--eplb-config``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once
from validator.findings import FLOOR

VL = "models/Qwen/Qwen2.5-VL-72B-Instruct.yaml"
"""Minimum 0.7.0; ``--limit-mm-per-prompt '{"image":2,"video":0}'`` in its YAML and guide."""
GLM = "models/zai-org/GLM-5.1.yaml"
"""Minimum 0.19.1."""
BASE = '    - "--trust-remote-code"\n'


def found(root: Path, path: str, rule: str) -> list[tuple[int, str, str | None, str | None]]:
    """(line, message, hint, reason) of ``rule``'s findings on ``path``."""
    return [(f.line, f.message, f.hint, f.reason) for f in check_tree(root, path)
            if f.rule == rule]


def with_args(root: Path, *args: str, minimum: str | None = None) -> str:
    """GLM-5.1 with ``args`` added to its base arguments (and another minimum)."""
    text = replace_once(root / GLM, BASE, BASE + "".join(f"    - '{a}'\n" for a in args))
    if minimum is not None:
        text = replace_once(root / GLM, 'min_vllm_version: "0.19.1"',
                            f'min_vllm_version: "{minimum}"')
    return text


def test_a_json_object_on_a_key_value_only_release_is_flag007_with_the_release_taking_it(
        corpus_copy: Path) -> None:
    text = (corpus_copy / VL).read_text("utf-8")
    [(line, message, hint, reason)] = found(corpus_copy, VL, "FLAG007")
    assert line == line_of(text, '{"image":2,"video":0}')
    assert message.startswith("value of `--limit-mm-per-prompt` is a JSON object, but vLLM "
                              "0.7.0 takes only comma-separated KEY=VALUE pairs there")
    assert "JSON is taken from vLLM 0.8.5" in message
    assert (hint, reason) == ("raise min_vllm_version to 0.8.5, or write `image=2,video=0`",
                              FLOOR)
    guide = [ln for ln, *_ in found(corpus_copy, VL, "GUIDE006")]
    assert guide == [n for n, ln in enumerate(text.splitlines(), 1)
                     if "--limit-mm-per-prompt '{" in ln]


def test_key_value_pairs_on_a_key_value_only_release_are_no_finding(corpus_copy: Path) -> None:
    replace_once(corpus_copy / VL, '''- '{"image":2,"video":0}\'''', '- "image=2,video=0"')
    assert found(corpus_copy, VL, "FLAG007") == []


@pytest.mark.parametrize(("args", "needle", "start", "hint"), [
    (("--compilation-config", '{"cudagraph_mode":"FULL_DECODE_ONLI"}'), "FULL_DECODE_ONLI",
     "`--compilation-config` key `cudagraph_mode`: `FULL_DECODE_ONLI` names none of the "
     "modes FULL, FULL_AND_PIECEWISE, FULL_DECODE_ONLY, NONE, PIECEWISE",
     "did you mean `FULL_DECODE_ONLY`?"),
    (("--structured-outputs-config", '{"backend":"xgrammer"}'), "xgrammer",
     "`--structured-outputs-config` key `backend`: `xgrammer` is none of the values auto, "
     "guidance, lm-format-enforcer, outlines, xgrammar", "did you mean `xgrammar`?"),
    (("--structured-outputs-config.backend", "xgrammer"), "xgrammer",
     "`--structured-outputs-config` key `backend`: `xgrammer`", "did you mean `xgrammar`?"),
    (("--structured-outputs-config.backnd", "xgrammar"), "backnd",
     "`--structured-outputs-config` key `backnd` is no field of the config vLLM 0.19.1 "
     "builds from it", "did you mean `backend`?"),
    (("--eplb-config", '{"num_redundant_experts":"thirty-two"}'), "thirty-two",
     "`--eplb-config` key `num_redundant_experts`: `thirty-two` is not an integer",
     "write an integer"),
    (("--eplb-config", '{"num_redundant_expert":32}'), "num_redundant_expert",
     "`--eplb-config` key `num_redundant_expert` is no field", "did you mean "
     "`num_redundant_experts`?"),
])
def test_a_config_key_or_value_the_minimum_refuses_is_flag040(
        corpus_copy: Path, args: tuple[str, str], needle: str, start: str, hint: str) -> None:
    text = with_args(corpus_copy, *args)
    [(line, message, got, reason)] = found(corpus_copy, GLM, "FLAG040")
    assert line == line_of(text, needle)
    assert message.startswith(start)
    assert message.endswith("vLLM 0.19.1 refuses it and does not start") or "no field" in message
    assert got is not None and got.startswith(hint)
    assert reason is None


def test_well_spelt_config_values_are_no_finding(corpus_copy: Path) -> None:
    with_args(corpus_copy, "--compilation-config", '{"cudagraph_mode":"full_and_piecewise"}',
              "--structured-outputs-config.backend", "guidance",
              "--eplb-config", '{"num_redundant_experts":"32","window_size":1000}')
    assert found(corpus_copy, GLM, "FLAG040") == []


def test_an_unknown_key_where_the_release_ignores_it_is_no_finding(corpus_copy: Path) -> None:
    """vLLM 0.11.0's ``EPLBConfig`` is a pydantic dataclass with the default
    ``extra="ignore"``: a misspelt key is dropped, not refused."""
    with_args(corpus_copy, "--eplb-config", '{"num_redundant_expert":32}', minimum="0.11.0")
    assert found(corpus_copy, GLM, "FLAG040") == []


def test_a_key_of_a_later_release_is_a_floor_finding(corpus_copy: Path) -> None:
    """``communicator`` is an ``EPLBConfig`` field from vLLM 0.20.0; 0.19.1 forbids extras."""
    text = with_args(corpus_copy, "--eplb-config", '{"communicator":"nixl"}')
    [(line, message, hint, reason)] = found(corpus_copy, GLM, "FLAG040")
    assert line == line_of(text, "communicator")
    assert message == ("`--eplb-config` key `communicator` is taken only from vLLM 0.20.0, "
                       "but the recipe's minimum is 0.19.1")
    assert (hint, reason) == ("raise min_vllm_version to 0.20.0", FLOOR)


def test_a_key_an_earlier_release_took_names_the_release_that_removed_it(
        corpus_copy: Path) -> None:
    """``use_inductor`` is a ``CompilationConfig`` field up to vLLM 0.11.2; 0.19.1 forbids
    extras (Ring-1T-FP8's variant sets it, rendered with a 0.21.0 kv-store strategy)."""
    text = with_args(corpus_copy, "--compilation-config", '{"use_inductor": false}')
    [(line, message, hint, reason)] = found(corpus_copy, GLM, "FLAG040")
    assert line == line_of(text, "use_inductor")
    assert message.startswith("`--compilation-config` key `use_inductor` is no field of the "
                              "config vLLM 0.19.1 builds from it (a field up to 0.11.2)")
    assert (hint, reason) == ("drop the key: vLLM 0.12.0 removed the field", None)
