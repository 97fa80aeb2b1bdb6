"""The guide checks scale linearly with the number of code blocks in a guide: counts of
work (lines executed in the ``GUIDE`` modules, characters the section searches scan),
never wall time (speed belongs to the bench). A guide of many identical blocks in one
section, or of many sections of one block, used to search ever longer section prefixes
and compare every block with every other."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from tests.rules.guide.test_guide_rendered import (
    MODEL,
    amd_override,
    check,
    tree,  # noqa: F401 - the fixture
)
from validator.findings import Finding
from validator.rules.guide import structured_args_agree as guide_structured

GUIDE_MODULES = re.compile(
    r"[/\\]validator[/\\](?:rules[/\\]guide[/\\]\w+|analysis[/\\]guide_\w+)\.py$")
BLOCK = f"```bash\nvllm serve {MODEL} --tool-call-parser mistral --max-model-len 4096\n```\n\n"


def one_section(n: int) -> str:
    return "## NVIDIA H200\n\nLaunch it:\n\n" + BLOCK * n


def many_sections(n: int) -> str:
    return "".join(f"## NVIDIA H200, part {i}\n\nLaunch it:\n\n{BLOCK}" for i in range(n))


class CountingPattern:
    """A compiled pattern that counts the characters it is asked to search."""

    scanned = 0

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern

    def search(self, text: str) -> re.Match[str] | None:
        CountingPattern.scanned += len(text)
        return self.pattern.search(text)

    def __hash__(self) -> int:
        return hash(self.pattern)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CountingPattern) and other.pattern == self.pattern


@contextmanager
def counting_lines() -> Iterator[list[int]]:
    """Count the lines executed in ``validator/rules/guide/*.py`` and
    ``validator/analysis/guide_*.py`` inside the block."""
    count = [0]

    def local(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if event == "line":
            count[0] += 1
        return local

    def trace(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        return local if GUIDE_MODULES.search(frame.f_code.co_filename) else None

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        yield count
    finally:
        sys.settrace(previous)


def work(root: Path, text: str) -> tuple[list[Finding], int, int]:
    """GUIDE011's findings on a recipe with guide ``text``, the lines executed in the
    GUIDE modules and the characters searched for hardware and strategy names."""
    data = amd_override()
    data["guide"] = text
    CountingPattern.scanned = 0
    with counting_lines() as lines:
        found = check(root, data)
    return found, lines[0], CountingPattern.scanned


@pytest.mark.parametrize("layout", [one_section, many_sections])
def test_guide011_work_grows_linearly_with_the_blocks(
        tree: Path, monkeypatch: pytest.MonkeyPatch,  # noqa: F811 - the fixture
        layout: Callable[[int], str]) -> None:
    real = guide_structured._word
    monkeypatch.setattr(guide_structured, "_word", lambda p: CountingPattern(real(p)))
    n = 25
    small, small_lines, small_chars = work(tree, layout(n))
    large, large_lines, large_chars = work(tree, layout(4 * n))
    # every block serves `mistral` in a section naming H200, where `hermes` is rendered
    assert len(small) == n and len(large) == 4 * n
    assert all("`--tool-call-parser mistral`" in f.message and "`hermes`" in f.message
               and "on h200" in f.message for f in large)
    assert small_chars > 0 and small_lines > 0
    # linear: 4x the blocks, at most ~4x the work (a prefix search per block was ~16x)
    assert large_chars <= 4.5 * small_chars, (small_chars, large_chars)
    assert large_lines <= 4.5 * small_lines, (small_lines, large_lines)


@pytest.mark.parametrize("layout", [one_section, many_sections])
def test_guide011_picks_the_targets_of_one_naming_once(
        tree: Path, monkeypatch: pytest.MonkeyPatch,  # noqa: F811 - the fixture
        layout: Callable[[int], str]) -> None:
    narrowed: list[int] = []
    real = guide_structured._narrow

    def counted(items: list[Any], keep: Callable[[Any], bool]) -> list[Any]:
        narrowed.append(len(items))
        return real(items, keep)

    monkeypatch.setattr(guide_structured, "_narrow", counted)
    n = 12
    data = amd_override()
    data["guide"] = layout(n)
    found = check(tree, data)
    # every block names H200 and serves the recipe's model id: one set of targets
    assert len(found) == n
    assert 0 < len(narrowed) <= 2, narrowed
