"""The model of vLLM's argument parsing (``validator.vllm_cli.argv``) on real registries.

Besides examples of each ``FlexibleArgumentParser`` rewrite, a property test checks the
model against CPython's own :mod:`argparse` built from the same vendored option table:
for any list of option strings, abbreviations and values, argparse fails exactly when
the model reports an error-kind problem.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from validator.vllm_cli.argv import duplicates, looks_like_option, parse_args
from validator.vllm_cli.parsed_args import Problem
from validator.vllm_cli.registry import CliRegistry, available_versions, load_registry

ERRORS = {Problem.UNKNOWN, Problem.AMBIGUOUS, Problem.MISSING_VALUE, Problem.SWITCH_VALUE,
          Problem.STRAY}


@pytest.fixture(scope="module")
def reg() -> CliRegistry:
    return load_registry("0.23.0")


def kinds(tokens: list[str], reg: CliRegistry) -> list[tuple[Problem, int]]:
    return [(p.kind, p.index) for p in parse_args(tokens, reg).problems]


def test_equals_form_and_underscore_normalisation(reg: CliRegistry) -> None:
    parsed = parse_args(["--max_model_len=4096", "--tensor-parallel-size", "2"], reg)
    first, second = parsed.options
    assert (first.option, first.dest, first.value, first.inline) == (
        "--max-model-len", "max_model_len", "4096", True)
    assert second.values == ("2",) and second.value_indexes == (2,)
    assert [(p.kind, p.index) for p in parsed.problems] == [(Problem.UNDERSCORE, 0)]


def test_dotted_keys_keep_underscores_after_the_first_dot(reg: CliRegistry) -> None:
    parsed = parse_args(["--speculative_config.num_speculative_tokens", "3",
                         "--speculative-config.method=mtp"], reg)
    assert [o.keys for o in parsed.options] == [("num_speculative_tokens",), ("method",)]
    assert {o.option for o in parsed.options} == {"--speculative-config"}
    value, sources = parsed.json_value("speculative_config")
    assert value == {"num_speculative_tokens": 3, "method": "mtp"} and len(sources) == 2
    assert [p.kind for p in parsed.problems] == [Problem.UNDERSCORE]


def test_dotted_boolean_without_value_swallows_the_next_flag(reg: CliRegistry) -> None:
    parsed = parse_args(["--speculative-config.enforce_eager", "--max-model-len", "4096"], reg)
    assert parsed.options[0].value == "--max-model-len"
    assert [(p.kind, p.index) for p in parsed.problems] == [
        (Problem.DOTTED_NO_VALUE, 0), (Problem.STRAY, 2)]


def test_single_dash_dotted_short_alias(reg: CliRegistry) -> None:
    parsed = parse_args(["-cc.pass_config.fuse_allreduce_rms=False"], reg)
    (opt,) = parsed.options
    assert opt.option == "-cc" and opt.dest == "compilation_config"
    assert opt.keys == ("pass_config", "fuse_allreduce_rms") and opt.value == "False"
    assert parsed.problems == []


def test_whole_json_and_dotted_keys_conflict(reg: CliRegistry) -> None:
    parsed = parse_args(["--speculative-config", '{"method": "eagle3"}',
                         "--speculative-config.num_speculative_tokens", "2"], reg)
    value, _ = parsed.json_value("speculative_config")
    assert value == {"num_speculative_tokens": 2}  # dotted keys replace the whole value
    assert len(duplicates(parsed)) == 1


def test_repeated_option_last_wins_and_is_a_duplicate(reg: CliRegistry) -> None:
    parsed = parse_args(["--max-model-len", "1", "--max_model_len", "2"], reg)
    assert [o.value for o in parsed.find("max_model_len")][-1] == "2"
    ((a, b),) = duplicates(parsed)
    assert (a.index, b.index) == (0, 2)


def test_abbreviation_and_ambiguity(reg: CliRegistry) -> None:
    parsed = parse_args(["--max-model", "4096"], reg)
    assert parsed.options[0].option == "--max-model-len"
    assert [p.kind for p in parsed.problems] == [Problem.ABBREVIATION]
    assert kinds(["--max", "1"], reg)[0] == (Problem.AMBIGUOUS, 0)
    assert kinds(["--no-such-flag-at-all"], reg) == [(Problem.UNKNOWN, 0)]


def test_switches_values_and_negative_numbers(reg: CliRegistry) -> None:
    assert kinds(["--trust-remote-code=yes"], reg) == [(Problem.SWITCH_VALUE, 0)]
    assert kinds(["--trust-remote-code", "true"], reg) == [(Problem.SWITCH_VALUE, 0)]
    assert kinds(["--max-model-len", "--trust-remote-code"], reg) == [
        (Problem.MISSING_VALUE, 0)]
    assert kinds(["--max-model-len"], reg) == [(Problem.MISSING_VALUE, 0)]
    assert kinds(["--max-num-seqs", "-1"], reg) == []
    assert kinds(["--no-enable-prefix-caching", "--enable-expert-parallel"], reg) == []
    assert not looks_like_option("-0.5") and looks_like_option("-tp")


def test_short_o_level(reg: CliRegistry) -> None:
    if not reg.short_o:
        pytest.skip("release without -O rewriting")
    (opt,) = parse_args(["-O3"], reg).options
    assert opt.value == "3" and opt.spec is not None


def test_dotted_keys_rejected_before_their_release() -> None:
    versions = [str(v) for v in available_versions()]
    old = next((v for v in versions if (r := load_registry(v)).serve_available
                and not r.dotted_keys and r.lookup("--speculative-config") is not None), None)
    if old is None:
        pytest.skip("every vendored release with --speculative-config accepts dotted keys")
    assert kinds(["--speculative-config.method", "mtp"], load_registry(old)) == [
        (Problem.DOTTED_UNSUPPORTED, 0)]


# ------------------------------------------------------------ the model vs argparse


def argparse_of(reg: CliRegistry) -> argparse.ArgumentParser:
    """CPython argparse with the registry's option table (types and choices left out:
    the model checks values separately)."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=reg.allow_abbrev)
    for opt in reg.options:
        if not opt.strings:
            continue
        kw: dict[str, Any] = {"dest": opt.dest + "__" + str(id(opt))}
        if not opt.takes_value:
            kw["action"] = "store_true"
        elif opt.nargs not in (None, "1"):
            kw["nargs"] = int(opt.nargs) if opt.nargs.isdigit() else opt.nargs
        parser.add_argument(*opt.strings, **kw)
    return parser


def argparse_fails(parser: argparse.ArgumentParser, tokens: list[str]) -> bool:
    with contextlib.redirect_stderr(io.StringIO()):
        try:
            parser.parse_args(tokens)
        except SystemExit:
            return True
    return False


@st.composite
def arg_lists(draw: st.DrawFn, reg: CliRegistry) -> list[str]:
    longs = sorted(s for s in reg.option_strings if s.startswith("--"))
    shorts = sorted(s for s in reg.option_strings if not s.startswith("--") and s != "-O")
    values = st.sampled_from(["1", "auto", "-1", "fp8", "x", "-x", '{"a": 1}', "0.9"])
    word = st.one_of(
        st.sampled_from(longs),
        st.sampled_from(shorts),
        st.sampled_from(longs).map(lambda s: s[: max(3, len(s) - 3)]),  # abbreviations
        st.sampled_from(longs).flatmap(lambda s: values.map(lambda v: f"{s}={v}")),
        st.sampled_from(["--not-a-vllm-flag", "--max", "--enable"]),
        values,
    )
    return draw(st.lists(word, max_size=8))


@pytest.mark.parametrize("version", ["0.10.0", "0.23.0"])
def test_model_agrees_with_argparse(version: str) -> None:
    reg = load_registry(version)
    parser = argparse_of(reg)

    @settings(max_examples=400, deadline=None)
    @given(arg_lists(reg))
    def check(tokens: list[str]) -> None:
        model_error = any(p.kind in ERRORS for p in parse_args(tokens, reg).problems)
        assert model_error == argparse_fails(parser, tokens), (tokens, json.dumps(
            [(p.kind, p.message) for p in parse_args(tokens, reg).problems]))

    check()


def test_config_dataclass_options_take_dotted_keys() -> None:
    # 0.12.0 parses --compilation-config with TypeAdapter(CompilationConfig).validate_json
    # (vllm/engine/arg_utils.py, parse_dataclass): dotted keys work
    parsed = parse_args(["--compilation-config.cudagraph_mode", "FULL_DECODE_ONLY"],
                        load_registry("0.12.0"))
    assert parsed.problems == []
    assert parsed.json_value("compilation_config")[0] == {"cudagraph_mode": "FULL_DECODE_ONLY"}
    # --generation-config is a path, not JSON
    assert kinds(["--generation-config.x", "1"], load_registry("0.12.0")) == [
        (Problem.DOTTED_NOT_JSON, 0)]


def test_hidden_no_enable_alias_of_enable_disable_pairs() -> None:
    newest = load_registry(str(available_versions()[-1]))
    spec = newest.lookup("--enable-prefix-caching")
    assert spec is not None and "--disable-prefix-caching" in spec.strings
    parsed = parse_args(["--no-enable-prefix-caching"], newest)
    assert parsed.problems == [] and parsed.options[0].dest == "enable_prefix_caching"
    assert kinds(["--no-max-model-len"], newest)[0][0] in {Problem.UNKNOWN, Problem.AMBIGUOUS}


@pytest.mark.parametrize("token", ["-1", "-1.5", "-.5", "-٣", "-1e5", "-1.", "-¹", "-x", "-",
                                   "--", "--1", "-O3"])
def test_a_token_is_an_option_exactly_when_argparse_takes_it_for_one(token: str) -> None:
    parser = argparse.ArgumentParser()
    assert looks_like_option(token) == (
        token.startswith("-") and token != "-"
        and not parser._negative_number_matcher.match(token))


def test_a_registry_reads_each_option_token_once_and_every_parse_agrees(
        reg: CliRegistry) -> None:
    tokens = ["--max_model_len=4096", "--speculative-config.method", "mtp", "--tens", "2",
              "-O3", "--no-such-flag", "x", "--max_model_len=4096"]
    reg.key_readings.clear()
    first = parse_args(tokens, reg)
    assert set(reg.key_readings) == {t for t in tokens if looks_like_option(t)}
    again = parse_args(tokens, reg)
    uncached = parse_args(tokens, _WithoutMemo(reg))
    assert first == again == uncached


class _WithoutMemo:
    """A registry's tables without its memo of token readings."""

    def __init__(self, reg: CliRegistry) -> None:
        self._reg = reg

    def __getattr__(self, name: str) -> Any:
        if name == "key_readings":
            raise AttributeError(name)
        return getattr(self._reg, name)
