"""``YAML010``, ``YAML013``: bidirectional controls and invisible characters anywhere in
the file, look-alike characters in a flag or a key (found by :mod:`validator.load.hidden`
after the file is read)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

HIDDEN_CHARACTER = declare(
    "YAML010",
    Severity.ERROR,
    "Bidirectional control or invisible character",
    """The file holds a Unicode bidirectional control (U+202A-U+202E, U+2066-U+2069, the
    marks U+200E, U+200F, U+061C) or an invisible character (U+200B-U+200D, U+2060-U+2064,
    U+FEFF after the start, U+00AD soft hyphen, U+180E, the tag characters
    U+E0000-U+E007F), or a line separator that only some readers break lines at (U+0085
    NEXT LINE, U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR: libyaml and editors
    start a new line there, GitHub and js-yaml do not, so line numbers and what looks like
    a comment line differ between them), written as itself or as a YAML escape such as
    ``"\\u202e"``. Such a
    character changes what a reader sees ("Trojan Source", CVE-2021-42574) without
    changing what runs: the site prints it into the command a user copies. The finding
    names the code point and its position. Error where it lands in something executed or
    copied (arguments, environment, model ids, image names, commands of the guide, keys);
    warning in prose (descriptions, titles, notes, the guide's text outside its code
    blocks, comments). Not reported: U+200C ZERO WIDTH NON-JOINER and U+200D ZERO WIDTH
    JOINER between two letters of one joining or conjunct-forming script (Arabic with
    Persian and Urdu, Syriac, N'Ko, Mongolian, Devanagari and the other Indic scripts,
    Sinhala, Myanmar, Khmer ...), where they change the letter forms and the spelling
    needs them (Persian ``\\u0645\\u06cc\\u200c\\u0634\\u0648\\u062f``), and U+200D
    between two emoji, which it joins into one (woman, U+200D, laptop: "woman
    technologist"; after a U+FE0F or a skin tone too). There the character shows, and
    deleting it would change the text; next to ASCII (in a flag, a model id, a URL,
    between Latin letters) or at a word's edge it shows nothing and is reported.

    Failing::

        model:
          model_id: "example-org/Example-Chat-8B"
          base_args: ["--served-model-name", "chat\\u202e8b", "--max\\u200d-model-len", "4096"]

    Passing::

        model:
          model_id: "example-org/Example-Chat-8B"
          base_args: ["--served-model-name", "chat-8b", "--max-model-len", "4096"]
        meta:
          title: "Example Chat \\U0001f469\\u200d\\U0001f4bb"
          description: "\\u0645\\u06cc\\u200c\\u0634\\u0648\\u062f in Persian"

    How to fix: delete the character (in an editor that shows it, or retype the value);
    write direction-neutral text instead of bidi controls. Keep a ZWNJ or ZWJ that a word
    or an emoji needs, written between the two letters or emoji it joins.""",
)


LOOKALIKE = declare(
    "YAML013",
    Severity.ERROR,
    "Look-alike character in a flag or a key",
    """A command-line flag or a mapping key holds a character that looks like an ASCII one
    but is not: a no-break or other Unicode space (U+00A0, U+2000-U+200A, U+202F, U+205F,
    U+3000) that looks like a space, a Unicode dash (U+2010-U+2015, U+2212 minus, the
    small and full-width hyphen-minus) that looks like ``-``, or a Cyrillic, Greek or
    full-width letter that looks like a Latin one. Pasted from a document or a chat, an
    en dash before ``max-model-len`` is no option to vLLM (``vllm serve`` takes it for a
    positional argument), a Cyrillic ``а`` makes an unknown flag, and a no-break space
    joins a flag and its value into one argument; in a key it names another feature,
    variant or variable than the one it looks like. A flag is a token that starts with
    ``-`` (or a look-alike of it) and a letter, in an argument list, an environment value
    or a command of the guide's code blocks; prose (descriptions, titles, notes, the
    guide's text outside code blocks, comments) is not checked, where typographic dashes
    and spaces are at home. The finding names the character, its line and column, and
    the ASCII character it looks like.

    Failing::

        model:
          model_id: "example-org/Example-Chat-8B"
          base_args: ["\u2013max-model-len", "4096"]

    Passing::

        model:
          model_id: "example-org/Example-Chat-8B"
          base_args: ["--max-model-len", "4096"]

    How to fix: retype the flag or key in ASCII (the hint shows it).""",
)
