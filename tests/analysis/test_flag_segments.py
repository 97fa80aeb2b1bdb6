"""A rendered command's words judged segment by segment (an option word and the words up
to the next option word) give exactly the issues the engine gives for the whole list, in
the same order, including where only the whole list can tell (a dotted key taking the
next option as its value, duplicates, ``--enable-auto-tool-choice`` without a parser, a
parser plugin, merged ``--speculative-config`` keys); and a list made of segments judged
before judges none again."""

from __future__ import annotations

import pytest
from packaging.version import Version

from validator.analysis.cli_plan import plan_for
from validator.analysis.flag_engine import check_tokens
from validator.analysis.flag_segments import command_issues, segment_spans, segment_starts
from validator.vllm_cli import argv
from validator.vllm_cli.data_source import CliRegistries

LISTS: tuple[tuple[list[str], frozenset[int]], ...] = (
    (["--max-model-len", "abc", "--kv-cache-dtype", "fp9", "--enforce-eager"], frozenset()),
    (["--enforce-eager", "--kv-cache-dtype", "fp9", "--max-model-len", "abc"], frozenset()),
    (["--speculative-config.method", "--enforce-eager", "--max-model-len", "8"], frozenset()),
    (["--enforce-eager", "--speculative-config.method"], frozenset()),
    (["--max-model-len", "10", "--kv-cache-dtype", "fp8", "--max-model-len", "20"],
     frozenset()),
    (["--speculative-config", '{"method": "ngram"}',
      "--speculative-config.num_speculative_tokens", "0"], frozenset()),
    (["--speculative-config.method", "ngram", "--speculative-config.num_speculative_tokens",
      "0"], frozenset()),
    (["--enable-auto-tool-choice", "--max-model-len", "5"], frozenset()),
    (["--enable-auto-tool-choice", "--tool-call-parser", "hermes"], frozenset()),
    (["--tool-call-parser", "quill", "--tool-parser-plugin", "quill.py"], frozenset()),
    (["--tool-call-parser", "quill", "--enforce-eager", "yes"], frozenset()),
    (["stray", "--enforce-eager", "x", "--max-model-len", "1", "2"], frozenset()),
    (["--host", "$HEAD_IP", "--enforce-eager", "$EXTRA", "tail"], frozenset({1, 3})),
    (["$EXTRA", "tail", "--max-model-len", "abc"], frozenset({0})),
    (["--enforce-eager", "--", "x", "--max_model_len", "5", "--enforce-eag"], frozenset()),
    (["--max-model-len", "-1", "--kv-cache-dtype=fp9", "-O3", "--gpu-memory-utilization",
      "0.9", "--no-such-flag", "v"], frozenset()),
    ([], frozenset()),
)


@pytest.mark.parametrize("minimum", ["0.6.0", "0.9.0", "0.11.0"])
def test_segment_verdicts_equal_the_whole_lists(minimum: str) -> None:
    cli = CliRegistries()
    plan = plan_for(cli, Version(minimum))
    for words, expansions in LISTS:
        alone = check_tokens(words, plan, expansions=expansions, auto_tool=True)[1]
        assert command_issues(words, plan, expansions) == alone, words


def test_a_list_of_judged_segments_judges_none_again() -> None:
    cli = CliRegistries()
    plan = plan_for(cli, Version("0.9.0"))
    command_issues(["--max-model-len", "abc", "--kv-cache-dtype", "fp9"], plan)
    command_issues(["--enforce-eager", "--tensor-parallel-size", "2"], plan)
    judged = dict(cli._bounded["flag:segments"])
    issues = command_issues(["--tensor-parallel-size", "2", "--kv-cache-dtype", "fp9",
                             "--enforce-eager", "--max-model-len", "abc"], plan)
    assert cli._bounded["flag:segments"] == judged
    assert [(i.code, i.index) for i in issues] == [("choice", 3), ("value_type", 6)]


@pytest.mark.parametrize("minimum", ["0.6.0", "0.9.0", "0.11.0"])
def test_a_list_parses_into_the_options_of_its_segments(minimum: str) -> None:
    registry = plan_for(CliRegistries(), Version(minimum)).minimum
    assert registry is not None
    for words, _ in LISTS:
        spans = segment_spans(words)
        if spans is None:
            assert any(len(w) > 1 and "." in w and "=" not in w for w in words), words
            continue
        whole = [(o.index, o.option, o.values, o.keys)
                 for o in argv.parse_args(words, registry).options]
        parts = [(start + o.index, o.option, o.values, o.keys)
                 for start, end in spans
                 for o in argv.parse_args(words[start:end], registry).options]
        assert parts == whole, words


def test_a_dotted_key_taking_the_next_option_leaves_the_list_whole() -> None:
    assert segment_starts(["--speculative-config.method", "--enforce-eager"]) is None
    assert segment_starts(["--speculative-config.method", "ngram", "--enforce-eager"]) == [0, 2]


@pytest.mark.parametrize("minimum", ["0.9.0", "0.11.0"])
def test_distinct_dotted_keys_of_one_option_are_judged_by_segments(minimum: str) -> None:
    cli = CliRegistries()
    plan = plan_for(cli, Version(minimum))
    lists = (["--compilation-config.level", "3", "--enforce-eager", "--compilation-config.x",
              "{", "--max-model-len", "abc"],
             ["--compilation-config.level", "3", "--compilation-config.level", "2"],
             ["--compilation-config", '{"level": 3}', "--compilation-config.level", "2"],
             ["--compilation-config.level", "3", "--compilation-config", '{"level": 3}'])
    whole = []  # whether each list was judged whole (the engine's memo of whole lists grew)
    for words in lists:
        before = len(cli._bounded.get("flag:check_tokens", {}))
        issues = command_issues(words, plan)
        whole.append(len(cli._bounded.get("flag:check_tokens", {})) > before)
        assert issues == check_tokens(words, plan, auto_tool=True)[1]
    assert whole == [False, True, True, True]
