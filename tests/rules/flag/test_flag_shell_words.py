"""What bash makes of the command the site prints: ``FLAG027`` (a flag item bash changes)
and the rendered-command checks judging the shell's words (a ``"--flag value"`` item is
``FLAG020`` alone, not also an unknown option of the rendered command)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import line_of
from tests.rules.flag.test_flag_rendered import rendered_findings
from tests.tiny_recipe import PATH, RECIPE, write_tiny
from validator.analysis.shell_words import printed_raw, read_item, shell_words

SPEC = '--speculative-config={"method":"ngram","num_speculative_tokens":2}'


def test_braces_and_quotes_of_a_json_flag_item_give_two_other_words() -> None:
    reading = read_item(SPEC)
    assert reading.words == ["--speculative-config=method:ngram",
                             "--speculative-config=num_speculative_tokens:2"]
    assert reading.changes == ["quotes removed", "braces expanded"]
    assert reading.changed


@pytest.mark.parametrize(("item", "words"), [
    ("--ids=x{1..3}", ["--ids=x1", "--ids=x2", "--ids=x3"]),
    ("--ids={c..a}", ["--ids=c", "--ids=b", "--ids=a"]),
    ("--a=p{q,r{s,t}}", ["--a=pq", "--a=prs", "--a=prt"]),
    ("--a=x{y{b,c}", ["--a=x{yb", "--a=x{yc"]),
    ("--a={y{b,c}}", ["--a={yb}", "--a={yc}"]),
    ('--a="b c"', ["--a=b c"]),
    ("--a=b\\c", ["--a=bc"]),
    ("--a 'x y'", ["--a", "x y"]),
    ("--files *.json", ["--files", "*.json"]),
    ("--dir ~/models", ["--dir", "$HOME/models"]),
])
def test_the_words_bash_produces(item: str, words: list[str]) -> None:
    reading = read_item(item)
    assert reading.words == words
    assert reading.changed, item


@pytest.mark.parametrize(("item", "words", "why"), [
    ("--a;rm", ["--a"], "`;` is a command separator"),
    ("--a|b", ["--a"], "`|` is a pipe"),
    ("--a>out", ["--a"], "`>` is a redirection"),
    ("--a #note", ["--a"], "`#` starts a comment"),
    ("--a=$(id)", ["--a="], "`$(` runs a command"),
    ("--a=`id`", ["--a="], "a backquote runs a command"),
    ("--a='b", ["--a="], "an unclosed `'`"),
])
def test_an_operator_ends_the_command(item: str, words: list[str], why: str) -> None:
    reading = read_item(item)
    assert reading.words == words
    assert reading.breaks is not None and reading.breaks.startswith(why), reading.breaks


@pytest.mark.parametrize("item", [
    "--max-model-len", "--tool-call-parser hermes", "--a=b,c", "--a={}", "--a={b}",
    "--a=${HOME}", "--download-dir=$HF_HOME", "--a=~/x", "--a=[x",
    "--a=b#c",
])
def test_what_bash_passes_unchanged(item: str) -> None:
    reading = read_item(item)
    assert not reading.changed, reading
    assert reading.words == item.split()


def test_a_bare_variable_is_noted_not_a_change() -> None:
    reading = read_item("--download-dir=${HF_HOME}")
    assert reading.variables and not reading.changed


def test_the_site_quotes_only_the_value_after_a_flag() -> None:
    args = ["--a b", "x y", "--c", "--d", "e f", "g h"]
    assert printed_raw(args) == [True, False, True, True, False, True]
    words, where = shell_words(args)
    assert words == ("--a", "b", "x y", "--c", "--d", "e f", "g", "h")
    assert where == (0, 0, 1, 2, 3, 4, 5, 5)
    # an item bash changes otherwise stays whole here: FLAG027 reports it
    assert shell_words([SPEC]) == ((SPEC,), (0,))


def test_flag027_names_the_words_and_the_fix(corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, f"    - '{SPEC}'\n    - \"--max-model-len\"\n    - \"4096\"\n")
    (hit,) = rendered_findings(corpus_copy, "FLAG027", PATH)
    assert hit.pointer == "/model/base_args/0"
    assert hit.line == line_of(text, "--speculative-config")
    assert "`--speculative-config=method:ngram`, " \
           "`--speculative-config=num_speculative_tokens:2`" in hit.message, hit.message
    assert hit.hint is not None and '`- "--speculative-config"` then ' \
        "`- '{\"method\":\"ngram\",\"num_speculative_tokens\":2}'`" in hit.hint, hit.hint


def test_flag027_passes_the_flag_and_its_value_as_two_items(corpus_copy: Path) -> None:
    value = SPEC.split("=", 1)[1]
    write_tiny(corpus_copy, f"    - \"--speculative-config\"\n    - '{value}'\n"
                            "    - \"--download-dir=$HF_HOME\"\n")
    assert rendered_findings(corpus_copy, "FLAG027", PATH) == []


def test_a_flag_and_value_in_one_item_is_flag020_alone(corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, '    - "--enable-auto-tool-choice"\n'
                                   '    - "--tool-call-parser hermes"\n')
    (warning,) = rendered_findings(corpus_copy, "FLAG020", PATH)
    assert warning.line == line_of(text, "--tool-call-parser hermes")
    assert "API argv keeps one token" in warning.message, warning.message
    # the shell command splits the item: it is no unknown option, and the parser is set
    for rule in ("FLAG001", "FLAG010", "FLAG024", "FLAG027"):
        assert rendered_findings(corpus_copy, rule, PATH) == [], rule


def test_the_rendered_command_still_judges_a_split_item(corpus_copy: Path) -> None:
    # the words of a split item are judged: an unknown flag inside it is still FLAG001
    text = write_tiny(corpus_copy, '    - "--no-such-flag-here 3"\n')
    found = rendered_findings(corpus_copy, "FLAG001", PATH)
    assert found and {f.line for f in found} == {line_of(text, "--no-such-flag-here")}
    assert all("`--no-such-flag-here`" in f.message for f in found), found


def test_a_split_item_next_to_the_same_flag_is_no_duplicate(corpus_copy: Path) -> None:
    # the site de-duplicates items whole, so both reach the command; the fix is FLAG020's
    # (two lists: in one list it is FLAG011 of the layer check)
    recipe = RECIPE.replace("    vram_minimum_gb: 3\n", "    vram_minimum_gb: 3\n"
                            '    extra_args: ["--max-model-len", "4096"]\n')
    write_tiny(corpus_copy, '    - "--max-model-len 4096"\n', recipe)
    assert rendered_findings(corpus_copy, "FLAG011", PATH) == []
    assert len(rendered_findings(corpus_copy, "FLAG020", PATH)) == 1


def test_an_item_without_shell_special_characters_reads_as_its_words() -> None:
    """The fast path of ``_plain`` (no character of ``_SHELL_SPECIAL``) agrees with the
    full reading: every ASCII character, alone and next to another, inside a flag item."""
    from validator.analysis.shell_words import _SHELL_SPECIAL, _plain

    chars = [chr(c) for c in range(128)] + ["é", "\u00a0"]
    for a in chars:
        for b in chars:
            for item in (f"--x{a}{b}", f"-{a} {b}", f"{a}y{b}"):
                if _SHELL_SPECIAL.isdisjoint(item):
                    assert _plain(item) and not read_item(item).changed, item
                else:
                    assert _plain(item) == (not read_item(item).changed), item
