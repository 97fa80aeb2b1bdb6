"""The version a guide section states for its own commands.

A section of the guide (the text from one markdown heading to the next) may say which
vLLM its commands are for: "requires vLLM >= 0.9.0", "validated with vLLM 0.25.0",
``pip install vllm==0.11.2``, an image ``vllm/vllm-openai:v0.25.0``, or unreleased code
("ships in the nightly TPU image", ``vllm/vllm-tpu:nightly``, a source install). The
``GUIDE`` rules check that section's commands against what it states, not against the
recipe's minimum alone (:func:`section_context`).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache

from packaging.version import InvalidVersion, Version

from validator.checks.install_range import UNRELEASED_KINDS, classify_command
from validator.checks.ver_guide import version_statements
from validator.guide.commands import find_fences

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S")
_VALIDATED = re.compile(r"\b(?:validated|tested|verified|benchmarked)\s+(?:with|on|against)\s+"
                        r"vllm\s+v?(?P<ver>\d+\.\d+(?:\.\d+)*(?:\.post\d+)?)\b", re.IGNORECASE)
_NIGHTLY = re.compile(r"\bnightly\b", re.IGNORECASE)


@dataclass(frozen=True)
class SectionContext:
    """What one guide section states about the vLLM its commands need.

    ``minimum``: the highest version it states as needed or validated (``None`` if
    none); ``top``: the release it pins (``vllm==X``, a ``vX`` image, "validated with
    X"); ``unreleased``: it points at nightly or source code; ``line``: 0-based guide line
    of the first statement; ``text``: that statement, for messages.
    """

    minimum: Version | None
    top: Version | None
    unreleased: bool
    line: int
    text: str


def section_context(guide: str, line: int) -> SectionContext | None:
    """The :class:`SectionContext` of the code block holding 0-based guide ``line``, or
    ``None`` when its section states nothing about it. A statement belongs to the block
    of its section nearest to it (the one it is in, or the one it introduces or
    follows), so a note about the TPU image of one block does not cover another."""
    return _contexts(guide).get(_fence_of(guide, line))


def section_headings(guide: str, line: int) -> tuple[list[str], list[str]]:
    """``(headings, prose)`` of the section holding 0-based guide ``line``: the heading
    chain above it (outermost first: ``## AMD MI300X``, ``### Docker``) and the lines of
    the innermost section before ``line``."""
    lines = guide.splitlines()
    heads = [h for h in _headings(guide) if h < line]
    chain: list[str] = []
    level = 7
    for h in reversed(heads):
        depth = len(lines[h].lstrip()) - len(lines[h].lstrip().lstrip("#"))
        if depth < level:
            chain.insert(0, lines[h].strip())
            level = depth
    start = heads[-1] + 1 if heads else 0
    return chain, lines[start:line]


def _fence_of(guide: str, line: int) -> int:
    for start, end, _ in _fences(guide):
        if start <= line <= end:
            return start
    return -1


@lru_cache(maxsize=64)
def _fences(guide: str) -> tuple[tuple[int, int, int], ...]:
    """``(first line, last line, section start)`` of every fenced block."""
    heads = _headings(guide)
    out = []
    for fence in find_fences(guide):
        section = max((h for h in heads if h < fence.start), default=-1)
        out.append((fence.start, fence.first + len(fence.lines), section))
    return tuple(out)


@lru_cache(maxsize=64)
def _headings(guide: str) -> tuple[int, ...]:
    in_fence: set[int] = set()
    for fence in find_fences(guide):
        in_fence.update(range(fence.start, fence.first + len(fence.lines) + 1))
    return tuple(i for i, text in enumerate(guide.splitlines())
                 if i not in in_fence and _HEADING.match(text))


@lru_cache(maxsize=64)
def _contexts(guide: str) -> dict[int, SectionContext]:
    lines = guide.splitlines()
    heads = _headings(guide)
    fences = _fences(guide)
    by_section: dict[int, list[tuple[int, int]]] = {}
    for a, b, sec in fences:
        by_section.setdefault(sec, []).append((a, b))
    owned: dict[int, list[int]] = {}
    for i in range(len(lines)):
        k = bisect.bisect_right(heads, i)
        section = heads[k - 1] if k else -1
        near = [(0 if a <= i <= b else min(abs(i - a), abs(i - b)), a)
                for a, b in by_section.get(section, ())]
        if near:
            owned.setdefault(min(near)[1], []).append(i)
    out: dict[int, SectionContext] = {}
    for fence_start, where in owned.items():
        found = _scan(lines, where)
        if found is not None:
            out[fence_start] = found
    return out


def _scan(lines: list[str], where: list[int]) -> SectionContext | None:
    minimum: Version | None = None
    top: Version | None = None
    unreleased = False
    first: tuple[int, str] | None = None
    for i in where:
        text = lines[i]
        stated: list[tuple[Version, bool]] = [(s.version, s.kind == "pin")
                                              for s in version_statements(text)]
        for m in _VALIDATED.finditer(text):
            try:
                stated.append((Version(m.group("ver")), True))
            except InvalidVersion:
                continue
        path = classify_command(text, "/guide") if _looks_like_install(text) else None
        if path is not None and path.kind in UNRELEASED_KINDS:
            unreleased = True
        elif path is not None and path.version is not None:
            stated.append((Version(path.version), True))
        if _NIGHTLY.search(text) and path is None:
            unreleased = True
        for version, pinned in stated:
            minimum = version if minimum is None else max(minimum, version)
            if pinned:
                top = version if top is None else max(top, version)
        if first is None and (stated or unreleased):
            first = (i, text.strip())
    if first is None:
        return None
    return SectionContext(minimum, top, unreleased, first[0], first[1][:120])


def _looks_like_install(text: str) -> bool:
    return any(w in text for w in ("install", "docker", "clone", "vllm/"))
