"""The version statements of a text are read once per distinct text: the rules of one
recipe read the same guide lines again. Each caller gets a list of its own."""

from __future__ import annotations

from packaging.version import Version

from validator.analysis import version_prose
from validator.analysis.version_prose import version_statements


def test_a_text_read_again_is_not_scanned_again() -> None:
    line = "Requires vLLM 0.11.2 or newer; `pip install vllm==0.12.0` for FP8."
    first = version_statements(line)
    before = version_prose._statements.cache_info()
    again = version_statements(line)
    after = version_prose._statements.cache_info()
    assert (after.hits, after.misses) == (before.hits + 1, before.misses)
    assert again == first
    assert [(s.version, s.kind) for s in again] == [(Version("0.12.0"), "pin"),
                                                     (Version("0.11.2"), "minimum")]


def test_each_caller_gets_its_own_list() -> None:
    line = "pip install vllm>=0.10.1"
    mine = version_statements(line)
    mine.clear()
    assert [s.version for s in version_statements(line)] == [Version("0.10.1")]
