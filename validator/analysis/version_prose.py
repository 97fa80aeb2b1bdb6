"""The vLLM versions a line of free text states (:func:`version_statements`), and whether
a line ties what it states to one hardware, kernel, precision or feature
(:func:`names_a_scope`).

Read by ``VER008`` (:mod:`validator.rules.ver.guide_version`), ``VER014``
(:mod:`validator.rules.ver.text_claims`) and the version a guide section states for its own
commands (:mod:`validator.analysis.guide_sections`).

A lower bound is recognised in the common English wordings (the table of
``tests/rules/ver/test_ver_prose.py``): an operator (``vLLM >= X``, ``vLLM ≥ X``), a label
(``vLLM version: X``), a suffix (``vLLM X+``, "X or newer/later/above/higher", "X and
newer/later/up", "X onwards", "X is required") or a lead-in ("requires/needs vLLM X",
"at least vLLM X", "minimum vLLM version X", "starting with/from vLLM X", "since vLLM X,",
"as of vLLM X", "available from vLLM X"). Not a lower bound: a bare mention ("vLLM X has
a regression", "fixed in vLLM X", "added in vLLM X": a fact about one release, which says
nothing of the releases after it), an upper bound ("up to/before/until/prior to vLLM X",
"vLLM X or earlier", "vLLM <= X") and a negated one ("does not require vLLM X", "vLLM X
does not ...").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from packaging.version import InvalidVersion, Version

_VERSION_TEXT = (r"v?(?P<ver>\d+\.\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?(?:\.post\d+)?"
                 r"(?:\+[a-z0-9]+(?:[._][a-z0-9]+)*)?)")
_PIN = re.compile(r"(?<![\w./-])vllm(?:\[[\w,\s-]*\])?\s*(?P<op>==|>=|~=|≥)\s*" + _VERSION_TEXT,
                  re.IGNORECASE)
#: Lead-ins that state what is needed ("requires vLLM X") and ones that say from when on
#: something holds ("since vLLM X,"): both bound a guide section's commands from below,
#: only the first kind states a requirement (``VER008``).
_NEEDS = (r"requires?|required|requiring|needs?|needed|needing|at\s+least|minimum(?:\s+of)?|"
          r"min\.?")
_FROM = (r"starting\s+(?:with|from|in|at)|starts?\s+(?:with|from|at)|beginning\s+(?:with|from|in)"
         r"|since|as\s+of|(?:available|supported|works?)\s+(?:from|since)")
_PROSE = re.compile(
    r"(?:(?<![\w-])(?:(?P<needs>" + _NEEDS + r")|(?P<from>" + _FROM + r"))"
    r"(?:\s+at\s+least)?(?:\s+(?:a|an|the))?[\s*`(:]+)?"
    r"(?<![\w./-])vllm(?![\w-])(?P<kw>\s+version(?:\s+(?:is|of))?)?(?P<sep>[\s*:`(]*)"
    r"(?P<op>(?:>=|≥|=>)[\s*`]*)?" + _VERSION_TEXT
    + r"(?P<post>\+(?![\w.+])|[\s*`),(]*(?:(?:or|and)\s+(?:(?:any|a)\s+)?"
      r"(?:newer|later|above|higher|greater|up|upwards?|onwards?|beyond)\b|onwards?\b|"
      r"(?:is|are)\s+(?:the\s+)?(?:required|needed|minimum)\b|(?:required|needed)\b))?",
    re.IGNORECASE)
_NEGATED = re.compile(r"[\s*`]*(?:does\s+not|doesn't|do\s+not|is\s+not|isn't|lacks|cannot|"
                      r"can't|has\s+an?\s+(?:known\s+)?(?:bug|regression|issue))", re.IGNORECASE)
#: "does not require vLLM X", "no longer needs vLLM X"
_NOT_BEFORE = re.compile(r"(?:\b(?:not|never|no\s+longer)|n't)\s*$", re.IGNORECASE)
#: "up to vLLM X", "before vLLM: X", "vLLM X or earlier"
_UPPER_BEFORE = re.compile(r"(?:\b(?:before|prior\s+to|up\s+to(?:\s+and\s+including)?|until|"
                           r"till|older\s+than|earlier\s+than|below|pre)|[<≤])"
                           r"[\s*`(:-]*$", re.IGNORECASE)
_UPPER_AFTER = re.compile(r"[\s*`),(]*(?:(?:or|and)\s+(?:older|earlier|lower|below|"
                          r"prior|before|under)\b|and\s+down\b)", re.IGNORECASE)
#: "since vLLM 0.10 changed the default" is a cause, not a bound: "since" counts when
#: the statement ends a clause ("Since vLLM 0.25.0, ...").
_CLAUSE_END = re.compile(r"[\s*`]*(?:[,;:.)\]]|$)")
#: A line that installs: its ``vllm>=X`` is a pip specifier.
_COMMAND = re.compile(r"(?<![\w-])(?:pip3?|uv|install|requirements[\w.]*)(?![\w-])",
                      re.IGNORECASE)
_LINE_START = re.compile(r"[\s>*#|`-]*(?:\d+\.[\s*`]*)?")
#: How far back before a statement a negation or an upper bound is looked for.
_BEFORE = 80


@dataclass(frozen=True)
class VersionStatement:
    """A vLLM version stated in free text.

    Attributes:
        version: the version stated (local part such as ``+rocm721`` dropped).
        kind: ``"pin"`` (``vllm==X``) or ``"minimum"`` (``vllm>=X``, "vLLM X or newer",
            "requires vLLM X", "since vLLM X,", "vLLM version: X").
        text: the matched text.
        leading: the statement opens its line (a prerequisites-list item, "Requires vLLM
            X" included).
        requirement: a pip specifier, or prose that states what is needed; ``False`` for
            a minimum that only says from when on something holds ("since vLLM X,",
            "starting with vLLM X"), a remark rather than the recipe's requirement.
        prose: the statement is prose, not a pip specifier (``vllm==X``, ``vllm>=X``).
        span: where the statement is in its line.
    """

    version: Version
    kind: str
    text: str
    leading: bool
    requirement: bool = True
    prose: bool = False
    span: tuple[int, int] = (0, 0)


def version_statements(line: str) -> list[VersionStatement]:
    """The vLLM version statements of one line of text: pip specifiers ``vllm==X``,
    ``vllm>=X``, ``vllm~=X`` (``vllm-omni``, ``vllm_ascend`` are other packages and are
    skipped; ``vllm>=X`` on a line that does not install is prose) and the prose lower
    bounds of the module docstring. A bare mention ("vLLM
    0.12.0 has a regression"), an upper bound and a negated statement are none.

    Read once per distinct text (:data:`STATEMENTS_KEPT` kept): the rules of one recipe
    read the same guide lines again (a corpus run: 38,748 reads of 7,828 texts)."""
    return list(_statements(line))


STATEMENTS_KEPT = 8192
"""How many texts' statements :func:`version_statements` keeps, least recently used
dropped first."""


@lru_cache(maxsize=STATEMENTS_KEPT)
def _statements(line: str) -> tuple[VersionStatement, ...]:
    out: list[VersionStatement] = []
    spans: list[tuple[int, int]] = []
    command = _COMMAND.search(line) is not None
    for m in _PIN.finditer(line):
        if m.group("op") in (">=", "≥") and not command:
            continue  # prose ("EAGLE3 requires vLLM >= 0.9.0"): read below
        spans.append(m.span())
        kind = "pin" if m.group("op") == "==" else "minimum"
        _add(out, m.group("ver"), kind, m, line, True, False)
    for m in _PROSE.finditer(line):
        if any(a < m.end() and m.start() < b for a, b in spans):
            continue
        after, before = line[m.end():m.end() + _BEFORE], line[max(0, m.start() - _BEFORE):m.start()]
        lead = m.group("needs") or m.group("from")
        if m.group("from") and m.group("from").lower() == "since" and not (
                m.group("post") or _CLAUSE_END.match(after)):
            lead = None
        qualified = (lead or m.group("op") or m.group("post")
                     or ":" in (m.group("sep") or ""))
        if (not qualified or _NEGATED.match(after) or (lead and _NOT_BEFORE.search(before))
                or (not m.group("post") and _UPPER_AFTER.match(after))
                or (not lead and _UPPER_BEFORE.search(before))):
            continue
        requirement = not (m.group("from") and lead and not (m.group("op") or m.group("post")))
        _add(out, m.group("ver"), "minimum", m, line, requirement, True)
    return tuple(out)


def _add(out: list[VersionStatement], text: str, kind: str, m: re.Match[str], line: str,
         requirement: bool, prose: bool) -> None:
    try:
        version = Version(Version(text).public)
    except InvalidVersion:
        return
    out.append(VersionStatement(version, kind, m.group(0).strip(),
                                bool(_LINE_START.fullmatch(line, 0, m.start())), requirement, prose,
                                m.span()))


# ---------------------------------------------------------------------------------------
# what a statement is about

_SCOPE = re.compile(
    r"(?<![\w-])(?:"
    # hardware and platforms
    r"rocm|amd|mi\d{3}[a-z]?|instinct|nvidia|cuda|blackwell|hopper|ampere|"
    r"[abhl]\d{2,3}s?|gb\d{3}|rtx|dgx|jetson|tpus?|xpus?|intel|gaudi|hpus?|ascend|npus?|"
    r"cpus?|arm64|aarch64|"
    # kernels, backends, connectors
    r"aiter|flashinfer|deep_?gemm|deep_?ep|mori|triton|marlin|cutlass|flash[-_ ]?attn|"
    r"flash[-_ ]?attention|fa[234]|flashmla|nixl|lmcache|mooncake|kernels?|backends?|"
    # precisions and quantization
    r"fp8|fp4|nvfp4|mxfp4|int[48]|w\d+a\d+|awq|gptq|gguf|bitsandbytes|quantiz\w*|"
    # features
    r"speculative|mtp|drafter|dflash|eagle\d*|lora|multimodal|vision|audio|video|"
    r"tool[- ]call\w*|reasoning|expert[- ]parallel\w*|dcp|disaggregated|"
    r"prefix[- ]caching|structured[- ]outputs?|pipeline[- ]parallel\w*|"
    r"data[- ]parallel\w*|context[- ]parallel\w*|pr|pull/\d+"
    r")(?![\w-])", re.IGNORECASE)


_SENTENCE_END = re.compile(r"(?<=[.;!?])\s+")
_ASIDE = re.compile(r"\([^()]*\)")
_A_VERSION = re.compile(r"\d+\.\d+")
#: The words of a statement's sentence read for its scope reach this far either side.
_NEAR = 240


def names_a_scope(text: str) -> str | None:
    """The first hardware, kernel or backend, precision or feature ``text`` names
    ("ROCm", "AITER", "FP8", "MTP", "tool calling"), or ``None``: a version stated next
    to one is that path's requirement, not the whole recipe's."""
    m = _SCOPE.search(text)
    return m.group(0) if m else None


def statement_scope(line: str, st: VersionStatement) -> str | None:
    """:func:`names_a_scope` of the words of ``line`` that go with statement ``st``: its
    sentence (up to :data:`_NEAR` characters either side), less the asides in parentheses
    that state a version of their own ("vLLM >= 0.15.0 (speculative decoding requires >=
    0.18.0)" ties 0.15.0 to nothing)."""
    a, b = st.span
    low, high = max(0, a - _NEAR), min(len(line), b + _NEAR)
    start = max((m.end() for m in _SENTENCE_END.finditer(line, low, a)), default=low)
    end = next((m.start() for m in _SENTENCE_END.finditer(line, b, high)), high)
    a, b = a - start, b - start
    kept = _ASIDE.sub(lambda m: m.group(0) if (m.start() < b and a < m.end())
                      or not _A_VERSION.search(m.group(0)) else " ", line[start:end])
    return names_a_scope(kept)
