"""The text of ``vllm serve`` argument list items as a recipe writes them: an item that
holds ``"--flag value"`` in one string (:func:`split_joined`), the text before a value
inside its item (:func:`value_lead`), and vLLM's human-readable integers
(:func:`parse_int`). Used by the FLAG and GUIDE rules; imports nothing of the project."""

from __future__ import annotations

import re
from collections.abc import Sequence

_JOINED = re.compile(r"^(-{1,2}[A-Za-z][\w.+-]*)\s+(\S.*)$", re.DOTALL)


def split_joined(tokens: Sequence[str]) -> tuple[tuple[str, ...], tuple[int, ...], list[int]]:
    """Split list items that hold ``"--flag value"`` in one string.

    Returns the tokens as vLLM would see them after a shell split, the original item index
    of each token, and the indexes of the joined items.
    """
    out: list[str] = []
    where: list[int] = []
    joined: list[int] = []
    for i, tok in enumerate(tokens):
        m = _JOINED.match(tok)
        if m is not None and "=" not in m.group(1):
            out += [m.group(1), m.group(2)]
            where += [i, i]
            joined.append(i)
        else:
            out.append(tok)
            where.append(i)
    return tuple(out), tuple(where), joined


def value_lead(items: Sequence[str], tokens: Sequence[str], where: Sequence[int],
               index: int) -> str:
    """The text before the value of token ``index`` (of :func:`split_joined`'s ``tokens``)
    inside its list item of ``items``: ``"--flag="`` of ``--flag=value``, ``"--flag "`` of
    a joined ``"--flag value"`` item's value; ``""`` for a token that is its own item."""
    item, token = items[where[index]], tokens[index]
    if index > 0 and where[index - 1] == where[index] and item.endswith(token):
        return item[:len(item) - len(token)]
    if token.startswith("-") and "=" in token and item == token:
        return token[:token.index("=") + 1]
    return ""


def parse_int(text: str | None) -> int | None:
    """vLLM's ``human_readable_int`` (``128k`` = 128000, ``1K`` = 1024); ``None`` for
    ``auto``/``-1`` and anything unparseable."""
    if text is None:
        return None
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgGtT]?)", text.strip())
    if not m:
        return None
    number, suffix = m.groups()
    dec = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
    binary = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
    try:
        if not suffix:
            return int(number) if "." not in number else None
        if suffix in dec:
            return int(float(number) * dec[suffix])
        return int(number) * binary[suffix] if "." not in number else None
    except (OverflowError, ValueError):  # beyond a float, or over 4,300 digits
        return None
