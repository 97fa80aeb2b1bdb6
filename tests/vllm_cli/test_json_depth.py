"""A JSON value nested too deeply to parse gets the same verdict in every process, whatever
the interpreter's recursion limit is at the time (a test framework may raise it for a
while: a flag value then parsed, or not, depending on which test ran before)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

import pytest

from validator.vllm_cli.parsed_args import JSON_DEPTH_LIMIT, parse_json


@pytest.fixture()
def raised_recursion_limit() -> Iterator[None]:
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def test_too_deep_is_refused_even_under_a_raised_recursion_limit(
        raised_recursion_limit: None) -> None:
    with pytest.raises(json.JSONDecodeError, match="nested too deeply"):
        parse_json(nested(1200))


def test_just_below_the_limit_parses() -> None:
    value = parse_json(nested(JSON_DEPTH_LIMIT - 50))
    assert isinstance(value, dict) and list(value) == ["a"]


def test_brackets_and_escaped_quotes_inside_strings_do_not_count() -> None:
    text = json.dumps({"k": "[{" * 2000 + '\\"' + "}]" * 2000})
    assert parse_json(text) == json.loads(text)
