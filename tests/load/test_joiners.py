"""YAML010 and the zero-width joiners: U+200C ZWNJ and U+200D ZWJ between two letters of a
joining or conjunct-forming script (Persian words, Devanagari half forms) or ZWJ between
two emoji (one glyph) change what is shown, so they are no hidden character; next to
ASCII, at a word's edge or between Latin letters they still are, and the other invisible
characters and bidi controls are reported wherever they are."""

from __future__ import annotations

import pytest

from validator.findings import Finding
from validator.load import load_yaml
from validator.load.joiners import is_emoji, joining_script, shows_as_spelling

PATH = "models/example-org/Example-Chat-8B.yaml"
ZWNJ, ZWJ = "\u200c", "\u200d"
MI, KHAHAM = "\u0645\u06cc", "\u062e\u0648\u0627\u0647\u0645"  # Persian "mi-khaham"
PERSIAN = f"{MI}{ZWNJ}{KHAHAM}"
HINDI = f"\u0915\u094d{ZWJ}\u0937"  # KA, VIRAMA, ZWJ, SSA: a half form of KA
TECHNOLOGIST = f"\U0001f469{ZWJ}\U0001f4bb"  # woman, ZWJ, laptop
SKIN_TONE = f"\U0001f469\U0001f3fd{ZWJ}\U0001f4bb"  # woman, medium skin tone, laptop
RAINBOW_FLAG = f"\U0001f3f3\ufe0f{ZWJ}\U0001f308"
HEART_ON_FIRE = f"\u2764\ufe0f{ZWJ}\U0001f525"
BLACK_CAT = f"\U0001f408{ZWJ}\u2b1b"


def hidden(text: str) -> list[Finding]:
    doc = load_yaml(text.encode(), PATH)
    assert doc.ok
    return [f for f in doc.findings if f.rule == "YAML010"]


def guide(*lines: str) -> str:
    return "guide: |\n" + "".join(f"  {line}\n" for line in lines)


@pytest.mark.parametrize("word", [PERSIAN, HINDI, TECHNOLOGIST, SKIN_TONE, RAINBOW_FLAG,
                                  HEART_ON_FIRE, BLACK_CAT,
                                  f"\u0712{ZWJ}\u0712",  # Syriac
                                  f"\u0d28\u0d4d{ZWJ}\u0d31",  # Malayalam
                                  f"\u1820{ZWNJ}\u1821"])  # Mongolian
def test_a_joiner_that_joins_letters_or_emoji_is_no_finding(word: str) -> None:
    curl = ("curl localhost:8000/v1/chat/completions -d '{\"messages\": [{\"role\": "
            f"\"user\", \"content\": \"{word} {word}\"}}]}}'")
    text = (f'meta:\n  title: "Chat {word}"\n  description: "{word}"\n'
            f'model:\n  env:\n    GREETING: "{word}"\n'
            + guide(f"Say {word}:", "", "```bash", curl, "```", "",
                    "```python", f'content = "Write a bio for a developer {word}"', "```"))
    assert hidden(text) == []


@pytest.mark.parametrize("escaped", [
    "\\u0645\\u06cc\\u200c\\u062e\\u0648\\u0627\\u0647\\u0645",
    "\\U0001f469\\u200d\\U0001f4bb",
    "\\u0915\\u094d\\u200d\\u0937",
])
def test_written_as_an_escape_sequence_it_is_no_finding_either(escaped: str) -> None:
    assert hidden(f'model:\n  env:\n    GREETING: "{escaped}"\n') == []


@pytest.mark.parametrize("value", [
    f"--max{ZWJ}-model-len",  # inside a flag
    f"--max-model-len{ZWNJ}",  # at a token's edge
    f"example-org/Exam{ZWNJ}ple-Chat-8B",  # a model id
    f"http://local{ZWJ}host:8000/v1",  # a URL
    f"Auf{ZWNJ}lage",  # between Latin letters (a ligature hint, but ASCII)
    f"{MI}{ZWNJ} {KHAHAM}",  # at a Persian word's edge, before a space
    f"{MI}{ZWNJ}x",  # between Arabic and Latin
    f"x{ZWJ}\u0937",  # between Latin and Devanagari
    f"\u0645{ZWNJ}\u0915",  # between two scripts
    f"\U0001f469{ZWNJ}\U0001f4bb",  # ZWNJ joins no emoji
    f"\U0001f469{ZWJ}x",  # emoji, then ASCII
    f"1{ZWJ}\U0001f4bb",  # ASCII, then emoji
    f"\U0001f1e9{ZWJ}\U0001f1ea",  # regional indicators: no ZWJ sequence
    f"{ZWJ}{KHAHAM}",  # the value's first character
    f"{MI}{ZWJ}",  # the value's last character
])
def test_a_joiner_next_to_ascii_or_at_an_edge_is_still_an_error(value: str) -> None:
    found = hidden(f'model:\n  base_args: ["--served-model-name", "{value}"]\n')
    assert [(f.line, f.severity.value, f.pointer) for f in found] == \
        [(2, "error", "/model/base_args/1")]
    assert "ZERO WIDTH" in found[0].message
    assert "between two letters of one joining script" in (found[0].hint or "")
    escaped = value.encode("unicode_escape").decode()  # the same value as escapes
    found = hidden(f'model:\n  base_args: ["--served-model-name", "{escaped}"]\n')
    assert [f.pointer for f in found] == ["/model/base_args/1"]
    assert "escape sequence" in found[0].message


@pytest.mark.parametrize("char", ["\u200b", "\u2060", "\ufeff", "\u00ad", "\u202e",
                                  "\u2066", "\u200f", "\U000e0041"])
def test_other_hidden_characters_between_joining_letters_are_still_reported(
        char: str) -> None:
    for word in (f"{MI}{char}{KHAHAM}", f"\U0001f469{char}\U0001f4bb"):
        text = f'model:\n  env:\n    GREETING: "{word}"\n' + guide("```bash", word, "```")
        assert [(f.line, f.severity.value) for f in hidden(text)] == \
            [(3, "error"), (6, "error")]


def test_only_the_unjoined_one_of_a_line_is_reported() -> None:
    text = guide("```bash", f"echo '{PERSIAN} {TECHNOLOGIST}' --max{ZWJ}-model-len", "```")
    found = hidden(text)
    assert [(f.line, f.column) for f in found] == [(3, text.splitlines()[2].index(ZWJ, 20) + 1)]


def test_the_character_data_it_reads() -> None:
    assert joining_script("\u06cc") == "ARABIC"  # ARABIC LETTER FARSI YEH
    assert joining_script("\ufb8e") == "ARABIC"  # a presentation form
    assert joining_script("\u094d") == "DEVANAGARI"  # a mark: the virama
    assert joining_script("a") is None and joining_script("\u05d0") is None  # Hebrew
    assert joining_script("\u0660") is None  # ARABIC-INDIC DIGIT ZERO: no letter
    assert is_emoji("\U0001f469") and is_emoji("\u2640") and is_emoji("\U0001f9b0")
    assert not is_emoji("\U0001f3fd") and not is_emoji("x") and not is_emoji("\u2192")
    assert shows_as_spelling(PERSIAN, 2) and not shows_as_spelling(PERSIAN, 1)
