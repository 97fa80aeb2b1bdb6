"""``VER008``: the vLLM versions the guide and the install texts state
(:func:`version_statements`, also read by :mod:`validator.checks.guide_sections` and
:mod:`validator.checks.ver_claims`) agree with ``min_vllm_version``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from validator.checks._data import get
from validator.checks.registry import RECIPE_ONLY, Hit, rule
from validator.checks.ver_model import line_of, min_version_pointers, text_sources
from validator.checks.versions import NIGHTLY, format_version, parse_min_version
from validator.context import Context
from validator.findings import Related, Severity
from validator.load import LoadedDocument

# ---------------------------------------------------------------------------------------
# VER008 the guide's stated version

_VERSION_TEXT = r"v?(?P<ver>\d+\.\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\+[\w.]+)?)"
_PIN = re.compile(r"(?<![\w./-])vllm(?:\[[\w,\s-]*\])?\s*(?P<op>==|>=|~=|≥)\s*" + _VERSION_TEXT,
                  re.IGNORECASE)
_PROSE = re.compile(
    r"(?<![\w./-])vllm(?![\w-])(?P<kw>\s+version)?(?P<sep>[\s*:`]*?)(?P<op>>=|≥)?[\s*`]*"
    + _VERSION_TEXT
    + r"(?P<post>\+|[\s*`]*,?\s*or\s+(?:newer|later|above|higher))?",
    re.IGNORECASE)
_NEGATED = re.compile(r"[\s*`]*(?:does\s+not|doesn't|do\s+not|is\s+not|isn't|lacks|cannot|"
                      r"can't|has\s+an?\s+(?:known\s+)?(?:bug|regression|issue))", re.IGNORECASE)
_LINE_START = re.compile(r"^[\s>*#|`-]*(?:\d+\.\s*)?[\s*`]*$")


@dataclass(frozen=True)
class VersionStatement:
    """A vLLM version stated in free text.

    Attributes:
        version: the version stated (local part such as ``+rocm721`` dropped).
        kind: ``"pin"`` (``vllm==X``) or ``"minimum"`` (``vllm>=X``, "vLLM X or newer",
            "vLLM version: X").
        text: the matched text.
        leading: the statement opens its line (a prerequisites-list item).
    """

    version: Version
    kind: str
    text: str
    leading: bool


def version_statements(line: str) -> list[VersionStatement]:
    """The vLLM version statements of one line of text.

    Recognised: pip specifiers ``vllm==X``, ``vllm>=X``, ``vllm~=X`` (``vllm-omni``,
    ``vllm_ascend`` are other packages and are skipped) and prose ``vLLM >= X``,
    ``vLLM ≥ X``, ``vLLM X or newer/later``, ``vLLM X+``, ``vLLM version: X``. A bare
    mention ("vLLM 0.12.0 has a regression") is not a statement of the requirement.
    """
    out: list[VersionStatement] = []
    spans: list[tuple[int, int]] = []
    for m in _PIN.finditer(line):
        spans.append(m.span())
        kind = "pin" if m.group("op") == "==" else "minimum"
        _add_statement(out, m.group("ver"), kind, m.group(0), line[:m.start()])
    for m in _PROSE.finditer(line):
        if any(a < m.end() and m.start() < b for a, b in spans):
            continue
        qualified = m.group("op") or m.group("post") or ":" in (m.group("sep") or "")
        if qualified and not _NEGATED.match(line[m.end():]):
            _add_statement(out, m.group("ver"), "minimum", m.group(0), line[:m.start()])
    return out


def _add_statement(out: list[VersionStatement], text: str, kind: str, matched: str,
                   before: str) -> None:
    try:
        version = Version(Version(text).public)
    except InvalidVersion:
        return
    out.append(VersionStatement(version, kind, matched.strip(), bool(_LINE_START.match(before))))


@rule("VER008", Severity.WARNING, "The guide states another vLLM version than min_vllm_version",
      reads=RECIPE_ONLY)
def guide_version_agrees(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The guide (and the install commands and notes) should not contradict
    ``min_vllm_version``. Reported: a pin (``vllm==X``) or a stated minimum (``vllm>=X``,
    "vLLM X or newer", "vLLM version: X") *below* the declared minimum — the reader
    installs a vLLM the recipe says cannot serve it (e.g. a GLM-5.3 page declaring 0.29.0
    whose guide installs 0.28.0); and a prerequisites-style minimum (a line that opens
    with it) *above* every declared minimum — then the declared floor is too low. Pins
    above the minimum and feature-scoped remarks ("EAGLE3 requires vLLM >= 0.9.0") are
    not contradictions. Both lines are reported.

    Failing::

        model:
          min_vllm_version: "0.12.0"
        guide: |
          ## Installation

          ```bash
          pip install vllm==0.11.0
          ```

    Passing::

        model:
          min_vllm_version: "0.12.0"
        guide: |
          ## Installation

          ```bash
          pip install vllm==0.12.0
          ```

    How to fix: state the declared minimum in the text, or change ``min_vllm_version`` if
    the text is right."""
    model_raw = get(doc.data, "model", "min_vllm_version")
    declared = parse_min_version(model_raw)
    if declared is None:
        return
    variant_mins = {v for _, raw, var in min_version_pointers(doc)
                    if var is not None and isinstance(v := parse_min_version(raw), Version)}
    related = (Related(line_of(doc, "/model/min_vllm_version"),
                       f"min_vllm_version {format_version(declared)} declared here"),)
    for pointer, index, text in text_sources(doc):
        seen: set[Version] = set()
        for st in version_statements(text):
            if st.version in seen:
                continue
            seen.add(st.version)
            below = declared == NIGHTLY or (isinstance(declared, Version)
                                            and st.version < declared)
            above = (isinstance(declared, Version) and st.kind == "minimum" and st.leading
                     and st.version > declared and st.version not in variant_mins)
            if not (below or above):
                continue
            verb = "installs" if st.kind == "pin" else "states"
            where = "the guide" if pointer == "/guide" else pointer
            hint = (f"state vLLM {format_version(declared)} (the declared minimum) here, or "
                    f"lower min_vllm_version if {st.version} really serves the model"
                    if below else f"raise min_vllm_version to {st.version}, or correct "
                    "the text")
            yield Hit(pointer, f"{where} {verb} vLLM {st.version} (`{st.text}`) but "
                      f"min_vllm_version is {format_version(declared)}", hint,
                      block_index=index, related=related)
