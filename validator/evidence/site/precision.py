"""Precisions as a reader filters by them. A variant's ``precision`` is free text, and a
mixed-precision checkpoint is declared in shorthand (``int2/4/8``: int2, int4 and int8
layers); shown as one value it sits beside ``int4`` as if it were another precision. A
label is split into the precisions it names, a bare width taking the letters of the one
before it."""

from __future__ import annotations

import re

_PART = re.compile(r"(?P<letters>[a-z]+)(?P<width>\d+)(?P<rest>[a-z0-9]*)")
_SEPARATORS = re.compile(r"\s*(?:/|\+|,|&|\band\b)\s*")


def precisions(label: str) -> tuple[str, ...]:
    """The precisions ``label`` names, in order, each once (``int2/4/8`` -> ``int2``,
    ``int4``, ``int8``; ``fp8`` -> ``fp8``); lower case."""
    out: list[str] = []
    letters = ""
    for part in _SEPARATORS.split(label.strip().lower()):
        if not part:
            continue
        if part.isdigit() and letters:
            out.append(letters + part)
            continue
        m = _PART.fullmatch(part)
        letters = m["letters"] if m else ""
        out.append(part)
    return tuple(dict.fromkeys(out))


def precision_label(label: str) -> str:
    """``label`` as shown: a mixed label with the precisions it names (``int2/4/8
    (mixed: int2, int4, int8)``), any other as it is."""
    named = precisions(label)
    return f"{label} (mixed: {', '.join(named)})" if len(named) > 1 else label
