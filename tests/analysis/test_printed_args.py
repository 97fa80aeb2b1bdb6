"""An argument list judged from its chunks (a ``-`` item and the items up to the next)
gives exactly the issues of the whole list judged at once, at the same items, wherever
the chunks cannot decide it too (a ``-`` item that is no option word, a dotted key
without a value, duplicates, ``--enable-auto-tool-choice`` without a parser, a parser
plugin); and a chunk met before is not read or judged again."""

from __future__ import annotations

import pytest
from packaging.version import Version

from validator.analysis.cli_plan import plan_for
from validator.analysis.printed_args import judged_items, whole_items
from validator.analysis.shell_words import shell_words
from validator.vllm_cli.data_source import CliRegistries

LISTS: tuple[tuple[str, ...], ...] = (
    ("--max-model-len", "abc", "--kv-cache-dtype", "fp9", "--enforce-eager"),
    ("--enforce-eager", "--kv-cache-dtype fp9", "--max-model-len", "abc"),
    ("--speculative-config.method", "--enforce-eager", "--max-model-len", "8"),
    ("--enforce-eager", "--speculative-config.method"),
    ("--max-model-len", "10", "--kv-cache-dtype", "fp8", "--max-model-len", "20"),
    ("--max-model-len 10", "--max-model-len", "20"),
    ("--speculative-config", '{"method": "ngram"}',
     "--speculative-config.num_speculative_tokens", "0"),
    ("--enable-auto-tool-choice", "--max-model-len", "5"),
    ("--enable-auto-tool-choice", "--tool-call-parser", "hermes"),
    ("--tool-call-parser", "quill", "--tool-parser-plugin", "quill.py"),
    ("--tool-call-parser", "quill", "--enforce-eager", "yes"),
    ("stray", "--enforce-eager", "x", "--max-model-len", "1", "2"),
    ("--host", "$HEAD_IP", "--enforce-eager", "$EXTRA", "tail"),
    ("$EXTRA", "tail", "--max-model-len", "abc"),
    ("--enforce-eager", "--", "x", "--max_model_len", "5", "--enforce-eag"),
    ("--max-model-len", "-1", "--kv-cache-dtype=fp9", "-O3", "--gpu-memory-utilization",
     "0.9", "--no-such-flag", "v"),
    ("--max-model-len", "8", "-", "--enforce-eager"),
    ("--max-model-len", "8", "- x", "--enforce-eager"),
    ("--max-model-len", "8", "-5 --enforce-eager", "x"),
    ("--served-model-name", "a b", "--enforce-eager x", "y"),
    ("--attention-config.a", "1", "--attention-config.b", "2"),
    ("--attention-config.a", "1", "--attention-config.a", "2"),
    ("  ", "--enforce-eager"),
    (),
)


@pytest.mark.parametrize("minimum", ["0.6.0", "0.9.0", "0.11.0"])
def test_chunk_verdicts_equal_the_whole_printed_list(minimum: str) -> None:
    plan = plan_for(CliRegistries(), Version(minimum))
    for args in LISTS:
        assert judged_items(args, plan) == whole_items(args, plan), args


def test_a_chunk_met_before_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    plan = plan_for(CliRegistries(), Version("0.9.0"))
    read: list[tuple[str, ...]] = []

    def counted(items: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[int, ...]]:
        read.append(tuple(items))
        return shell_words(items)

    monkeypatch.setattr("validator.analysis.printed_args.shell_words", counted)
    first = ("--max-model-len", "abc", "--kv-cache-dtype", "fp9", "--enforce-eager")
    second = ("--enforce-eager", "--max-model-len", "abc", "--kv-cache-dtype", "fp9")
    assert judged_items(first, plan) == whole_items(first, plan)
    read.clear()
    issues = judged_items(second, plan)
    assert read == []  # every chunk of the second list was read and judged for the first
    assert [(i.code, i.index) for i in issues] == [
        (i.code, i.index) for i in whole_items(second, plan)]
    assert {i.index for i in issues} == {2, 4}


def test_a_chunk_is_read_once_per_run_whatever_plan_judges_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The chunk reading memo is keyed by the chunk's items alone: a second plan judging
    the same chunk does not read it again, while a chunk that differs from it only in a
    later item (its value) or in how an item prints is read and judged on its own (a key
    narrower than every item would hand it the first chunk's words)."""
    cli = CliRegistries()
    low, high = plan_for(cli, Version("0.6.0")), plan_for(cli, Version("0.11.0"))
    chunk = ("--max-model-len", "abc")
    others = (("--max-model-len", "8"), ("--max-model-len", "$LEN"),
              ("--max-model-len 8",), ("--max-model-len", "abc def"))
    wanted = {(args, id(plan)): whole_items(args, plan)
              for args in (chunk, *others) for plan in (low, high)}
    read: list[tuple[str, ...]] = []

    def counted(items: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[int, ...]]:
        read.append(tuple(items))
        return shell_words(items)

    monkeypatch.setattr("validator.analysis.printed_args.shell_words", counted)
    assert judged_items(chunk, low) == wanted[chunk, id(low)]
    assert read == [chunk]
    assert judged_items(chunk, high) == wanted[chunk, id(high)]
    assert read == [chunk]  # the second plan judges the reading the first one made
    for other in others:
        read.clear()
        assert judged_items(other, high) == wanted[other, id(high)], other
        assert read == [other]
    assert wanted[chunk, id(high)] != wanted[others[0], id(high)]
