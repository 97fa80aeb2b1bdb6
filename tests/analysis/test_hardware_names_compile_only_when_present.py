"""Naming hardware in a guide section or a multi-node statement compiles a name's
case-insensitive pattern only when the text may hold that name: checking one file no
longer compiles a pattern per hardware profile (most names are in no section), and what is
found is what the patterns find."""

from __future__ import annotations

import random
import re
import string
from types import SimpleNamespace
from typing import Any, cast

from validator.analysis import guide_sections
from validator.analysis.guide_sections import SectionSearch
from validator.context import Context
from validator.rules.guide.structured_args_agree import _word, named_hardware
from validator.rules.hw.multi_node_text import MultiNodeStatement, _qualifier, qualified_hardware

PROFILES = {"zq-h100": {"display_name": "ZQ H100 SXM"}, "zq-mi300x": {"display_name": "ZQ MI300X"},
            "zq-tpu-v6e": {"display_name": "ZQ TPU v6e"}}
GROUPS = {"ZQbrand": {"zq-h100", "zq-mi300x"}, "Zqhopper": {"zq-h100"}}


def taxonomy_context() -> Context:
    """What :func:`~validator.rules.hw.facts.hardware_named` reads of a context."""
    return cast(Context, SimpleNamespace(hardware_profiles=PROFILES, hardware_groups=GROUPS))


def test_a_section_naming_no_profile_compiles_no_pattern() -> None:
    search = SectionSearch("## Deploy\n\nServe it on one node.\n\n```bash\nvllm serve a/b\n```\n")
    before = _word.cache_info().misses
    assert named_hardware(taxonomy_context(), search, 4) == set()
    assert _word.cache_info().misses == before


def test_a_statement_naming_no_profile_compiles_no_pattern() -> None:
    statement = MultiNodeStatement("bf16", "/guide", 3, "requires multi-node",
                                   before="BF16 weights are large;", after=" deployment on 2 nodes")
    before = _qualifier.cache_info().misses
    assert qualified_hardware(statement, taxonomy_context()) == set()
    assert _qualifier.cache_info().misses == before


def test_names_written_in_any_case_are_still_found() -> None:
    # the dotless and dotted i, the long s and the Kelvin sign: re.IGNORECASE matches them
    search = SectionSearch("## ZQ h100 sxm\n\nOr ZQ MI300X.\n\n## zqbrand\n\ntext\n")
    assert named_hardware(taxonomy_context(), search, 3) == {"zq-h100", "zq-mi300x"}
    assert named_hardware(taxonomy_context(), search, 6) == {"zq-h100", "zq-mi300x"}  # group
    assert named_hardware(taxonomy_context(), SectionSearch("## Deploy\n\nZQ M\u0130300X\n"),
                          3) == {"zq-mi300x"}
    statement = MultiNodeStatement("bf16", "/guide", 3, "requires multi-node",
                                   after=" on 8x zq h100 \u017fxm")
    assert qualified_hardware(statement, taxonomy_context()) == {"zq-h100"}


def test_folding_keeps_every_match_of_an_ascii_literal() -> None:
    """Wherever ``re.IGNORECASE`` matches a printable ASCII character, the folded text has
    that character in lower case (over every code point)."""
    every = "".join(chr(i) for i in range(0x110000) if not 0xD800 <= i < 0xE000)
    ascii_like = set(re.findall(r"[\x00-\x7f]", every, re.IGNORECASE))  # one pass
    assert len(ascii_like) > 128
    for found in ascii_like:
        for ch in string.printable:
            if re.fullmatch(re.escape(ch), found, re.IGNORECASE):
                assert guide_sections.folded(found) == ch.lower(), (ch, hex(ord(found)))


def test_the_prefilter_never_hides_a_match() -> None:
    rng = random.Random(29)
    alphabet = "iIsSk \u0130\u0131\u017f\u212a-\u00e9"
    hits = 0
    for _ in range(8000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        word = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 2)))
        pattern: Any = re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])", re.IGNORECASE)
        if pattern.search(text):
            hits += 1
            assert guide_sections.may_match(word, guide_sections.folded(text)), (word, text)
    assert hits > 200, hits
