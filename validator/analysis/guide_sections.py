"""The version a guide section states for its own commands.

A section of the guide (the text from one markdown heading to the next) may say which
vLLM its commands are for: "requires vLLM >= 0.9.0", "vLLM 0.25.0 and newer" (its heading
too; any wording :func:`~validator.analysis.version_prose.version_statements` reads as a lower
bound, not an upper one such as "up to vLLM 0.20"), "validated with vLLM 0.25.0",
``pip install vllm==0.11.2``, an image ``vllm/vllm-openai:v0.25.0``, or unreleased code
("ships in the nightly TPU image", ``vllm/vllm-tpu:nightly``, a source install). The
``GUIDE`` rules check that section's commands against what it states, not against the
recipe's minimum alone (:func:`section_context`).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from packaging.version import InvalidVersion, Version

from validator.analysis.install_range import UNRELEASED_KINDS, classify_command
from validator.analysis.version_prose import version_statements
from validator.guide.commands import find_fences

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S")
GUIDES_KEPT = 8
"""Guides whose lines, fences and sections stay cached: the rules of one recipe read its
guide many times (two revisions of it in a pull request), a later recipe never."""
_VLLM_NAMED = (r"`?(?:vllm/)?vllm(?:-openai(?:-rocm)?)?`?(?:\s+|:)v?"
               r"(?P<ver>\d+\.\d+(?:\.\d+)*(?:\.post\d+)?)\b")
_VALIDATED = re.compile(r"\b(?:validated|tested|verified|benchmarked)(?:\s+[\w-]+){0,3}?\s+"
                        r"(?:with|on|against)\s+" + _VLLM_NAMED, re.IGNORECASE)
"""A section saying which vLLM it ran: "validated with vLLM 0.25.0", "validated end-to-end
with vLLM 0.25.0", "verified on vllm-openai v0.18.0"."""
_IMAGE_NAMED = re.compile(r"\bvllm-openai(?:-rocm)?:v(?P<ver>\d+\.\d+(?:\.\d+)*)\b",
                          re.IGNORECASE)
"""A release image the section names in prose ("the verified image was based on
`vllm-openai:v0.18.0`"): the release its commands ran on."""
_NIGHTLY = re.compile(r"\bnightly\b", re.IGNORECASE)


BRAND_WORDS: dict[str, re.Pattern[str]] = {
    "amd": re.compile(r"\b(?:amd|rocm|mi\d{3}[a-z]*)\b", re.IGNORECASE),
    "tpu": re.compile(r"\btpu\b", re.IGNORECASE),
    "intel": re.compile(r"\b(?:intel|xpu|gaudi\d*)\b", re.IGNORECASE),
    "nvidia": re.compile(r"\b(?:nvidia|cuda|dgx|[abhl]\d{2,3}|gb\d{2,3}|rtx)\b", re.IGNORECASE),
}
"""Words that name a hardware brand (in a heading, or the text introducing a block)."""


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
    chain, start, _ = section_span(guide, line)
    return list(chain), list(_lines(guide)[start:line])


def section_span(guide: str, line: int) -> tuple[tuple[str, ...], int, int]:
    """``(heading chain, first line, end)`` of the section holding 0-based guide
    ``line``: the chain of :func:`section_headings`, the first line after its innermost
    heading (0 before the first heading) and the line of the next heading (or the line
    count); a bisection over headings read once per guide."""
    heads = _headings(guide)
    k = bisect.bisect_left(heads, line)  # the headings above ``line``: heads[:k]
    chain = _chains(guide)[k - 1] if k else ()
    start = heads[k - 1] + 1 if k else 0
    end = next((h for h in heads[k:k + 2] if h > line), len(_lines(guide)))
    return chain, start, end


def headings(guide: str) -> list[tuple[int, str]]:
    """``(0-based line, text)`` of every markdown heading of the guide outside its code
    blocks, in order (the text stripped: ``## AMD MI300X``)."""
    lines = _lines(guide)
    return [(h, lines[h].strip()) for h in _headings(guide)]


_ASCII_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
"""The characters besides an ASCII letter's two cases that ``re.IGNORECASE`` matches to it
(``İ ı`` to ``i``, ``ſ`` to ``s``, the Kelvin sign to ``k``), as that letter."""


def folded(text: str) -> str:
    """``text`` lower-cased after :data:`_ASCII_FOLD`: where a pattern holding the ASCII
    literal ``word`` matches ``text`` case-insensitively, ``word.lower()`` is a substring
    of ``folded(text)`` (:func:`may_match`)."""
    return text.translate(_ASCII_FOLD).lower()


def may_match(word: str, folded_text: str) -> bool:
    """Whether a case-insensitive pattern that must match the literal ``word`` may match
    the text whose :func:`folded` form is ``folded_text``: ``False`` only when it surely
    cannot (``word`` is ASCII and not in it), so that a caller can skip compiling it."""
    return not word.isascii() or word.lower() in folded_text


class SectionSearch:
    """Whether the text of a guide section up to a line matches a pattern: the text is
    ``" ".join(headings + prose)`` of :func:`section_headings`, and each pattern is
    searched once per section, not once per line asked about (a guide with many blocks
    in one section would otherwise search ever longer prefixes of it).

    A pattern must match a fixed number of characters (literal names, character
    classes): then the text up to a line has a match exactly when the section's first
    match ends within it (a match at the end of that text is followed by the separating
    space in the whole section, which the patterns' look-arounds accept alike)."""

    def __init__(self, guide: str) -> None:
        self.guide = guide
        self._texts: dict[int, tuple[str, tuple[int, ...]]] = {}
        self._first: dict[tuple[int, re.Pattern[str]], int | None] = {}
        self._folded: dict[int, str] = {}

    def may_say(self, word: str, line: int) -> bool:
        """Whether :meth:`says` may find a case-insensitive pattern that matches the
        literal ``word`` (:func:`may_match` on the section's whole text): checked before
        compiling such a pattern, most names being nowhere in the section."""
        chain, start, end = section_span(self.guide, line)
        text = self._folded.get(start)
        if text is None:
            text = self._folded[start] = folded(self._text(chain, start, end)[0])
        return may_match(word, text)

    def says(self, pattern: re.Pattern[str], line: int, headings_only: bool = False) -> bool:
        """Whether the section text before 0-based guide ``line`` (with
        ``headings_only``: its heading chain alone) matches ``pattern``."""
        chain, start, end = section_span(self.guide, line)
        text, ends = self._text(chain, start, end)
        used = len(chain) + (0 if headings_only else line - start)
        first = self._first.get((start, pattern), -1)
        if first == -1:
            m = pattern.search(text)
            first = self._first[start, pattern] = None if m is None else m.end()
        return first is not None and first <= ends[used]

    def _text(self, chain: tuple[str, ...], start: int,
              end: int) -> tuple[str, tuple[int, ...]]:
        """The section's whole text and, per count of its leading items (headings, then
        prose lines), the length of their join."""
        found = self._texts.get(start)
        if found is None:
            items = [*chain, *_lines(self.guide)[start:end]]
            ends = [0]
            for i, item in enumerate(items):
                ends.append(ends[-1] + len(item) + (1 if i else 0))
            found = self._texts[start] = (" ".join(items), tuple(ends))
        return found


def in_code_block(guide: str, line: int) -> bool:
    """Whether 0-based guide ``line`` is inside a fenced code block (a command or its
    comment, not prose)."""
    return _fence_of(guide, line) >= 0


def _fence_of(guide: str, line: int) -> int:
    fences = _fences(guide)
    k = bisect.bisect_right(_fence_starts(guide), line)
    if k and fences[k - 1][0] <= line <= fences[k - 1][1]:
        return fences[k - 1][0]
    return -1


@lru_cache(maxsize=GUIDES_KEPT)
def _fence_starts(guide: str) -> tuple[int, ...]:
    return tuple(f[0] for f in _fences(guide))


@lru_cache(maxsize=GUIDES_KEPT)
def _lines(guide: str) -> tuple[str, ...]:
    return tuple(guide.splitlines())


@lru_cache(maxsize=GUIDES_KEPT)
def _fences(guide: str) -> tuple[tuple[int, int, int], ...]:
    """``(first line, last line, section start)`` of every fenced block."""
    heads = _headings(guide)
    out = []
    for fence in find_fences(guide):
        k = bisect.bisect_left(heads, fence.start)  # the headings above the fence
        out.append((fence.start, fence.first + len(fence.lines), heads[k - 1] if k else -1))
    return tuple(out)


@lru_cache(maxsize=GUIDES_KEPT)
def _headings(guide: str) -> tuple[int, ...]:
    in_fence: set[int] = set()
    for fence in find_fences(guide):
        in_fence.update(range(fence.start, fence.first + len(fence.lines) + 1))
    return tuple(i for i, text in enumerate(_lines(guide))
                 if i not in in_fence and _HEADING.match(text))


@lru_cache(maxsize=GUIDES_KEPT)
def _chains(guide: str) -> tuple[tuple[str, ...], ...]:
    """Per heading (in order), the chain of :func:`section_headings` below it: that
    heading and each nearest earlier heading of a smaller depth (a stack of one pass)."""
    lines = _lines(guide)
    stack: list[tuple[int, str]] = []
    out = []
    for h in _headings(guide):
        text = lines[h].lstrip()
        depth = len(text) - len(text.lstrip("#"))
        while stack and stack[-1][0] >= depth:
            stack.pop()
        stack.append((depth, lines[h].strip()))
        out.append(tuple(t for _, t in stack))
    return tuple(out)


@lru_cache(maxsize=GUIDES_KEPT)
def _contexts(guide: str) -> dict[int, SectionContext]:
    lines = _lines(guide)
    heads = _headings(guide)
    by_section: dict[int, list[tuple[int, int]]] = {}
    for a, b, sec in _fences(guide):
        by_section.setdefault(sec, []).append((a, b))
    starts = {sec: [a for a, _ in spans] for sec, spans in by_section.items()}
    owned: dict[int, list[int]] = {}
    for i in range(len(lines)):
        k = bisect.bisect_right(heads, i)
        section = heads[k - 1] if k else -1
        spans = by_section.get(section)
        if not spans:
            continue
        # the nearest block of the section: the last one starting at or above the line
        # (the line is in it, or below its end) or the first one below it; a tie goes to
        # the upper one (the blocks are disjoint and in order)
        j = bisect.bisect_right(starts[section], i)
        near = [(0 if a <= i <= b else min(abs(i - a), abs(i - b)), a)
                for a, b in spans[max(0, j - 1):j + 1]]
        owned.setdefault(min(near)[1], []).append(i)
    out: dict[int, SectionContext] = {}
    for fence_start, where in owned.items():
        found = _scan(lines, where)
        if found is not None:
            out[fence_start] = found
    _add_intros(lines, by_section, out)
    return out


def _add_intros(lines: Sequence[str], by_section: dict[int, list[tuple[int, int]]],
                out: dict[int, SectionContext]) -> None:
    """What a section says before its first block is said of its later blocks too (a
    two-node section's head and worker commands), unless the text introducing one turns
    to a hardware ("AMD:"); a block's own statement comes first."""
    for section, spans in by_section.items():
        intro = _scan(lines, list(range(section + 1, spans[0][0])))
        if intro is None:
            continue
        for (_, before), (a, _) in itertools.pairwise(spans):
            if not any(p.search(text) for text in lines[before + 1:a]
                       for p in BRAND_WORDS.values()):
                out.setdefault(a, intro)


def _scan(lines: Sequence[str], where: list[int]) -> SectionContext | None:
    minimum: Version | None = None
    top: Version | None = None
    unreleased = False
    first: tuple[int, str] | None = None
    for i in where:
        text = lines[i]
        stated: list[tuple[Version, bool]] = [(s.version, s.kind == "pin")
                                              for s in version_statements(text)]
        for m in [*_VALIDATED.finditer(text), *_IMAGE_NAMED.finditer(text)]:
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
