"""A whole shell parameter expansion (``"$@"``, ``$EXTRA_ARGS``, ``"${ARGS[@]}"``) standing
where an option would be is replaced by bash with words the tool cannot know: it is not an
unknown positional (``GUIDE006``/``FLAG005``), nor are the bare words right after it; a
value (``--host $HEAD_IP``) and the literal flags around it are still judged. In a recipe's
lists the site's printing decides: a raw item or a bare ``$NAME`` value expands, a value
the site single-quotes (``'${NAME}'``) reaches vLLM as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.tiny_recipe import PATH, RECIPE, write_tiny
from validator.analysis.cli_plan import registry
from validator.analysis.shell_words import printed_expansions, whole_expansion, word_expansions
from validator.vllm_cli.argv import parse_args
from validator.vllm_cli.data_source import CliRegistries
from validator.vllm_cli.parsed_args import Problem


@pytest.mark.parametrize("word", ["$@", "$*", "$1", "$EXTRA_ARGS", "${EXTRA_ARGS}",
                                  "${ARGS[@]}", "${ARGS[*]}", "${PORT:-8000}", '"$@"',
                                  '"${ARGS[@]}"', "$A$B"])
def test_whole_expansions(word: str) -> None:
    assert whole_expansion(word)


@pytest.mark.parametrize("word", ["$", "$EXTRA/x", "a$B", "--x=$A", "-$A", "8000", '"$@'])
def test_not_whole_expansions(word: str) -> None:
    assert not whole_expansion(word)


def _problems(tokens: list[str], expansions: frozenset[int]) -> list[tuple[Problem, int]]:
    parsed = parse_args(tokens, registry(CliRegistries(), "0.12.0"), expansions=expansions)
    return [(p.kind, p.index) for p in parsed.problems]


def test_the_parser_leaves_an_expansion_and_the_bare_words_after_it_unread() -> None:
    tokens = ["--enable-prefix-caching", "$EXTRA", "64", "--max-num-seqs", "4", "junk"]
    assert _problems(tokens, frozenset()) == [(Problem.SWITCH_VALUE, 0), (Problem.STRAY, 2),
                                               (Problem.STRAY, 5)]
    assert _problems(tokens, word_expansions(tokens)) == [(Problem.STRAY, 5)]
    parsed = parse_args(["--host", "$HEAD_IP"], registry(CliRegistries(), "0.12.0"), expansions={1})
    assert parsed.find("host")[0].values == ("$HEAD_IP",) and not parsed.unread


# (no `ARGS` in the guide: write_tiny puts the base list there)
GUIDE = RECIPE.replace("  Serve it.\n", """  ```bash
  exec vllm serve org/Tiny-1B --max-model-len 32768 "$@"
  vllm serve org/Tiny-1B $EXTRA_OPTS
  vllm serve org/Tiny-1B ${EXTRA_OPTS} --max-num-seqs 8
  vllm serve org/Tiny-1B "${OPTS[@]}"
  vllm serve org/Tiny-1B --host $HEAD_IP --port ${PORT:-8000} --enable-prefix-caching $MORE 8
  ```
""")


def _guide(root: Path) -> list[tuple[str, int, str]]:
    return [(f.rule, f.line, f.message) for f in check_tree(root, PATH)
            if f.rule.startswith("GUIDE0")]


def test_guide_expansions_are_not_unknown_arguments(corpus_copy: Path) -> None:
    write_tiny(corpus_copy, '    - "--trust-remote-code"\n', GUIDE)
    assert _guide(corpus_copy) == []


def test_guide_literal_words_around_an_expansion_are_still_judged(corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, '    - "--trust-remote-code"\n', GUIDE.replace(
        '32768 "$@"', '32768 --bogus-flag "$@"').replace(
        "$EXTRA_OPTS\n", "$EXTRA_OPTS --max-num-seqs 8 junk\n").replace(
        "--enable-prefix-caching $MORE 8", "--enable-prefix-caching literal"))
    found = _guide(corpus_copy)
    assert [(r, line) for r, line, _ in found] == [
        ("GUIDE003", line_of(text, "--bogus-flag")), ("GUIDE006", line_of(text, "junk")),
        ("GUIDE006", line_of(text, "caching literal"))]
    assert "`junk` is not an option" in found[1][2] and "`literal` follows it" in found[2][2]


def _switch_values(root: Path) -> list[str]:
    return [f.message for f in check_tree(root, PATH) if f.rule == "FLAG005"]


def test_list_items_the_printed_command_expands(corpus_copy: Path) -> None:
    write_tiny(corpus_copy, '["--max-model-len", "4096", "$EXTRA", "--enable-prefix-caching", '
               '"$MORE", "--max-num-seqs", "8", "\\"$@\\""]')
    assert _switch_values(corpus_copy) == []


def test_a_value_the_site_quotes_reaches_vllm_as_written(corpus_copy: Path) -> None:
    items = ["--enable-prefix-caching", "${OTHER}"]
    assert printed_expansions(items, items, (0, 1)) == frozenset()
    write_tiny(corpus_copy, '["--enable-prefix-caching", "${OTHER}"]')
    (message,) = _switch_values(corpus_copy)
    assert "`${OTHER}` follows it" in message
