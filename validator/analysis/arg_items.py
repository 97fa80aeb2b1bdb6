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
        parts = _split_item(tok)
        out += parts
        where += [i] * len(parts)
        if len(parts) > 1:
            joined.append(i)
    return tuple(out), tuple(where), joined


def _split_item(item: str) -> list[str]:
    """``item`` as the tokens :func:`split_joined` reads of it: a flag and the rest,
    again while the rest starts with another flag and holds a blank (``"--a --b 64"`` is
    ``--a``, ``--b``, ``64``, as the shell splits it; a value with blanks after the last
    flag, a JSON object, stays one token)."""
    parts: list[str] = []
    rest = item
    while (m := _JOINED.match(rest)) is not None and "=" not in m.group(1):
        parts.append(m.group(1))
        rest = m.group(2)
    return [*parts, rest]


def joined_item_text(item: str, parts: Sequence[str]) -> tuple[str, str]:
    """``FLAG020``'s message and hint for ``item``, which :func:`split_joined` read as the
    tokens ``parts``: a flag and its value, or (more tokens) each token named."""
    what, fix = ("a flag and its value", "write the flag and its value as two list items") \
        if len(parts) == 2 else (f"{len(parts)} tokens ({', '.join(f'`{t}`' for t in parts)})",
                                 "write each flag and each value as a list item of its own")
    return (f"list item `{item}` holds {what} (the site's shell command splits it; its API "
            "argv keeps one token, which vLLM refuses)", fix)


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
