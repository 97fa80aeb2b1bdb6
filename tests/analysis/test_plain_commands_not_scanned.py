"""A printed command of plain text -- words, continuation lines, quoted JSON, a plain
``$NAME`` -- holds no shell hazard, and :func:`command_hazards` says so without reading it
character by character (a catalogue reads thousands of such commands); any other text is
read as before, with the same hazards."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from validator.analysis import shell_hazards
from validator.analysis.shell_hazards import command_hazards

PLAIN = ("vllm serve zai-org/GLM-5.2-FP8 \\\n  --tensor-parallel-size 8 \\\n"
         "  --kv-transfer-config '{\"kv_connector\":\"SimpleCPUOffloadConnector\"}' \\\n"
         "  --data-parallel-address $HEAD_IP --api-key \"${API_KEY}\" --x=\"a b\" \\\\ end\\")


def test_a_plain_command_is_not_read_character_by_character(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(scan: object, i: int) -> int:
        raise AssertionError("read character by character")

    monkeypatch.setattr(shell_hazards, "_step", refuse)
    assert command_hazards(PLAIN) == []
    assert command_hazards(PLAIN, embedded=True) == []


@pytest.mark.parametrize("text", [
    "a\\\\\nb",  # an escaped backslash, then a real line break
    "x $(touch y)", "x `id`", "x ${A:-b}", "x ${A}", "x $A$", "x \"$(id)\"", "x \"a\"b\"",
    "x 'open", "x \"open", "x !-2", "x \"!-2\"", "x # c", "x#y", "x; y", "x && y",
    "x > f", "x 2>f", "x (y)", "a\rb", "a\x15b", "x \\", "x \"\\", "x '$(id)'",
])
def test_other_text_gives_the_hazards_of_a_full_reading(text: str) -> None:
    for embedded in (False, True):
        assert command_hazards(text, embedded=embedded) == \
            shell_hazards._scan(text, embedded).out


@given(st.text(alphabet="ab1 \t\n\r\\'\"`$!#<>&|;(){}=-_*?~@\x01\x7f", max_size=16),
       st.booleans())
def test_plain_shortcut_agrees_with_the_full_reading(text: str, embedded: bool) -> None:
    assert command_hazards(text, embedded=embedded) == \
        shell_hazards._scan(text, embedded).out
