"""Every configuration's ``render --format json`` of a record page, in one compact file.

A recipe offers up to hundreds of configurations whose JSON documents (what ``render
--format json`` prints for one of them, ~15 KB each) share almost every value: one file
per configuration made 26,483 files (381 MB) for the corpus. Instead each value is stored
once (:class:`JsonTable`): every scalar and object key as its JSON text (as Python's
encoder writes it, so number and string spellings are exact), every array and object as a
node listing its parts, and a configuration is the node of its document. The page script
lays a node out the way ``json.dumps(value, indent=2)`` does (:func:`layout` is the same
walk in Python), so the JSON the page offers for a configuration is byte for byte what
``render --format json`` prints for it.

The file is a script (``<page>.configs.js``, loaded by the page when a reader asks for a
configuration's JSON): a page opened from ``file://`` may load a script of its own folder,
but may not read a JSON file (no ``fetch`` from ``file://``, and the page's policy allows
no connection).
"""

from __future__ import annotations

import json
from typing import Any

ARRAY, OBJECT = 0, 1
"""The first item of a node: what it lays out as."""

CALLBACK = "recipeCheckConfigJson"
"""The function the configurations file calls with its table (defined by the page
script)."""


def _key_text(key: Any) -> str:
    """A key as Python's encoder writes it (a non-string key as its string)."""
    return json.dumps({key: 0})[1:-len(": 0}")]


class JsonTable:
    """JSON values stored once: ``texts`` (scalar and key JSON texts) and ``nodes``
    (``[ARRAY, ref...]`` or ``[OBJECT, key text index, ref, ...]``); a reference ``r >=
    0`` is node ``r``, ``r < 0`` the scalar ``texts[-r - 1]``."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.nodes: list[list[int]] = []
        self._texts: dict[str, int] = {}
        self._nodes: dict[tuple[int, ...], int] = {}
        self._scalars: dict[tuple[type, Any], int] = {}  # (type, value) -> reference
        self._keys: dict[Any, int] = {}

    def _text(self, text: str) -> int:
        if text not in self._texts:
            self._texts[text] = len(self.texts)
            self.texts.append(text)
        return self._texts[text]

    def _scalar(self, value: Any) -> int:
        # keyed by type too (True is not 1), a float by its repr (-0.0 is not 0.0)
        key = (float, repr(value)) if type(value) is float else (type(value), value)
        ref = self._scalars.get(key)
        if ref is None:
            ref = self._scalars[key] = -1 - self._text(json.dumps(value))
        return ref

    def _key(self, key: Any) -> int:
        ref = self._keys.get(key) if type(key) is str else None
        if ref is None:
            ref = self._text(_key_text(key))
            if type(key) is str:
                self._keys[key] = ref
        return ref

    def add(self, value: Any) -> int:
        """The reference of ``value`` (parsed JSON: dict, list, str, int, float, bool,
        None), its parts stored once."""
        if isinstance(value, dict):
            node = [OBJECT]
            for key, item in value.items():
                node.append(self._key(key))
                node.append(self.add(item))
        elif isinstance(value, list | tuple):
            node = [ARRAY, *(self.add(item) for item in value)]
        else:
            return self._scalar(value)
        key = tuple(node)
        ref = self._nodes.get(key)
        if ref is None:
            ref = self._nodes[key] = len(self.nodes)
            self.nodes.append(node)
        return ref

    def data(self, roots: list[int]) -> dict[str, Any]:
        """The table with the document reference of each configuration (``roots``)."""
        return {"texts": self.texts, "nodes": self.nodes, "roots": roots}


def layout(data: dict[str, Any], ref: int, indent: str = "") -> str:
    """The text of reference ``ref`` of ``data`` (:meth:`JsonTable.data`) as
    ``json.dumps(value, indent=2)`` writes it: the page script's walk, in Python."""
    texts, nodes = data["texts"], data["nodes"]
    if ref < 0:
        return str(texts[-ref - 1])
    node = nodes[ref]
    is_object = node[0] == OBJECT
    if len(node) == 1:
        return "{}" if is_object else "[]"
    inner = indent + "  "
    if is_object:
        items = [f"{inner}{texts[node[i]]}: {layout(data, node[i + 1], inner)}"
                 for i in range(1, len(node), 2)]
    else:
        items = [inner + layout(data, r, inner) for r in node[1:]]
    opening, closing = ("{", "}") if is_object else ("[", "]")
    return f"{opening}\n" + ",\n".join(items) + f"\n{indent}{closing}"


def document(data: dict[str, Any], k: int) -> str:
    """Configuration ``k``'s JSON document, as ``render --format json`` prints it."""
    return layout(data, int(data["roots"][k])) + "\n"


def script_bytes(data: dict[str, Any]) -> bytes:
    """The configurations file: a call of :data:`CALLBACK` with the table (plain ASCII:
    every text is JSON with non-ASCII characters escaped)."""
    return f"{CALLBACK}({json.dumps(data, separators=(',', ':'))});\n".encode("ascii")
