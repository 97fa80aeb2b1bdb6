"""Every configuration's ``render --format json`` of a record page, in one compact file.

A recipe offers up to hundreds of configurations whose JSON documents (what ``render
--format json`` prints for one of them, ~15 KB each) share almost every value: one file
per configuration made 26,483 files (381 MB) for the corpus. Instead each value is stored
once (:class:`JsonTable`): every scalar and object key as its JSON text (as Python's
encoder writes it, so number and string spellings are exact), a string of several lines
(a command) as its lines' texts, every array and object as a node listing its parts (an
object's keys once per shape, a long array or command as chunks shared between
configurations), and a configuration is the node of its document. The page script
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
import zlib
from collections.abc import Callable
from typing import Any

ARRAY, OBJECT, LINES, ARRAY_CHUNKS, LINES_CHUNKS, OBJECT_EDIT = 0, 1, 2, 3, 4, 5
"""The first item of a node: what it lays out as (see :class:`JsonTable`)."""

EDIT_BASES = 8
"""How many earlier objects of the same shape a new object is compared with, to be stored
as the edits of the closest (an ``OBJECT_EDIT``: configurations differ in a few values)."""
EDIT_DEPTH = 8
"""Longest chain of edits over edits: laying an object out reads at most this many."""

CHUNK_SPLIT = 4
"""A sequence of :data:`CHUNK_MIN` or more items is cut after each item whose digest is
divisible by this (content-defined: the same run of lines or argv words is cut the same
way in every configuration, so its chunks are stored once)."""
CHUNK_MIN = 8

CALLBACK = "recipeCheckConfigJson"
"""The function the configurations file calls with its table (defined by the page
script)."""


def _key_text(key: Any) -> str:
    """A key as Python's encoder writes it (a non-string key as its string)."""
    return json.dumps({key: 0})[1:-len(": 0}")]


def _cuts(items: list[int], texts: list[str]) -> list[list[int]]:
    """``items`` cut into chunks after each item whose digest (of its text, or of its node
    number) :data:`CHUNK_SPLIT` divides; one chunk for a short sequence."""
    if len(items) < CHUNK_MIN:
        return [items]
    chunks, current = [], []
    for item in items:
        current.append(item)
        seed = texts[-item - 1] if item < 0 else str(item)
        if zlib.crc32(seed.encode("utf-8")) % CHUNK_SPLIT == 0:
            chunks.append(current)
            current = []
    return [*chunks, current] if current else chunks


class Shared:
    """A part of a document that :meth:`JsonTable.add` walks once per ``owner`` (the same
    object, compared by identity and kept alive by the table): ``make()`` gives its JSON
    value, the same each time -- a process that the renderings of several configurations
    share (:func:`validator.render.offered.rendering_json`)."""

    __slots__ = ("make", "owner")

    def __init__(self, owner: object, make: Callable[[], Any]) -> None:
        self.owner, self.make = owner, make


class JsonTable:
    """JSON values stored once: ``texts`` (scalar and key JSON texts, and the lines of
    multi-line strings), ``shapes`` (the key text indexes of each object shape) and
    ``nodes``: ``[ARRAY, ref...]``, ``[OBJECT, shape, ref...]`` (one ref per key of the
    shape), ``[LINES, text...]`` (a string holding line breaks: the JSON text of each line,
    without quotes, joined by ``\\n``), ``[ARRAY_CHUNKS, node...]`` and ``[LINES_CHUNKS,
    node...]`` (the items of the ``ARRAY`` or ``LINES`` nodes listed, in order: long
    sequences are stored as chunks shared between configurations, :func:`_cuts`),
    ``[OBJECT_EDIT, node, position, ref, ...]`` (the object ``node``, an earlier
    ``OBJECT`` or ``OBJECT_EDIT``, with the ref at each position given replaced). A
    reference ``r >= 0`` is node ``r``, ``r < 0`` the scalar ``texts[-r - 1]``."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.shapes: list[list[int]] = []
        self.nodes: list[list[int]] = []
        self._texts: dict[str, int] = {}
        self._shapes: dict[tuple[int, ...], int] = {}
        self._nodes: dict[tuple[int, ...], int] = {}
        self._scalars: dict[tuple[type, Any], int] = {}  # (type, value) -> reference
        self._keys: dict[Any, int] = {}
        self._objects: dict[int, list[int]] = {}  # shape -> its object nodes
        self._refs: dict[int, tuple[list[int], int]] = {}  # object node -> refs, depth
        self._flat: dict[tuple[Any, ...], int] = {}  # _flat_key -> reference
        self._parts: dict[int, tuple[object, int]] = {}  # id(owner) -> owner, reference

    def _text(self, text: str) -> int:
        if text not in self._texts:
            self._texts[text] = len(self.texts)
            self.texts.append(text)
        return self._texts[text]

    def _node(self, node: list[int]) -> int:
        key = tuple(node)
        ref = self._nodes.get(key)
        if ref is None:
            ref = self._nodes[key] = len(self.nodes)
            self.nodes.append(node)
        return ref

    def _sequence(self, kind: int, items: list[int]) -> int:
        """An ``ARRAY`` or ``LINES`` node of ``items``, as chunks when it is long."""
        chunks = _cuts(items, self.texts) if kind == ARRAY else _cuts(
            [-1 - i for i in items], self.texts)
        if len(chunks) == 1:
            return self._node([kind, *items])
        if kind == LINES:
            chunks = [[-1 - i for i in chunk] for chunk in chunks]
        return self._node([ARRAY_CHUNKS if kind == ARRAY else LINES_CHUNKS,
                           *(self._node([kind, *chunk]) for chunk in chunks)])

    def _scalar(self, value: Any) -> int:
        # keyed by type too (True is not 1), a float by its repr (-0.0 is not 0.0)
        key = (float, repr(value)) if type(value) is float else (type(value), value)
        ref = self._scalars.get(key)
        if ref is None:
            if type(value) is Shared:
                return self._part(value)
            if isinstance(value, str) and "\n" in value:
                ref = self._sequence(LINES, [self._text(json.dumps(line)[1:-1])
                                             for line in value.split("\n")])
            else:
                ref = -1 - self._text(json.dumps(value))
            self._scalars[key] = ref
        return ref

    def _part(self, part: Shared) -> int:
        """The reference of a :class:`Shared` part: its value's, added once per owner."""
        found = self._parts.get(id(part.owner))
        if found is None:
            found = self._parts[id(part.owner)] = (part.owner, self.add(part.make()))
        return found[1]

    def _key(self, key: Any) -> int:
        ref = self._keys.get(key) if type(key) is str else None
        if ref is None:
            ref = self._text(_key_text(key))
            if type(key) is str:
                self._keys[key] = ref
        return ref

    def _object(self, shape: int, refs: list[int]) -> int:
        """An object node, stored as the edits of the closest of the last
        :data:`EDIT_BASES` objects of its shape when those are shorter."""
        key = (OBJECT, shape, *refs)
        if key in self._nodes:
            return self._nodes[key]
        stored, depth = [OBJECT, shape, *refs], 0
        weight = _weight(stored)
        for base in self._objects.get(shape, [])[-EDIT_BASES:]:
            base_refs, base_depth = self._refs[base]
            if base_depth >= EDIT_DEPTH:
                continue
            edit = [OBJECT_EDIT, base, *(x for n, (was, now) in enumerate(
                zip(base_refs, refs, strict=True)) if was != now for x in (n, now))]
            if _weight(edit) < weight:
                stored, depth, weight = edit, base_depth + 1, _weight(edit)
        ref = self._nodes[key] = len(self.nodes)
        self.nodes.append(stored)
        self._objects.setdefault(shape, []).append(ref)
        self._refs[ref] = (refs, depth)
        return ref

    def _shape(self, keys: tuple[int, ...]) -> int:
        if keys not in self._shapes:
            self._shapes[keys] = len(self.shapes)
            self.shapes.append(list(keys))
        return self._shapes[keys]

    def add(self, value: Any) -> int:
        """The reference of ``value`` (parsed JSON: dict, list, str, int, float, bool,
        None), its parts stored once. Adding a value equal to one added before stores
        nothing and gives its reference again, so a flat array or object (of strings,
        integers, booleans and nulls: the argv lists and tokens every configuration
        repeats) is looked up whole by :func:`_flat_key` instead of item by item."""
        if isinstance(value, dict):
            items = tuple(value.values())
            flat = _flat_key(tuple(value), items)
            ref = self._flat.get(flat) if flat is not None else None
            if ref is None:
                refs = [self.add(item) for item in items]
                ref = self._object(self._shape(tuple(self._key(key) for key in value)), refs)
                if flat is not None:
                    self._flat[flat] = ref
            return ref
        if isinstance(value, list | tuple):
            items = tuple(value)
            flat = _flat_key(None, items)
            ref = self._flat.get(flat) if flat is not None else None
            if ref is None:
                ref = self._sequence(ARRAY, [self.add(item) for item in items])
                if flat is not None:
                    self._flat[flat] = ref
            return ref
        return self._scalar(value)

    def data(self, roots: list[int]) -> dict[str, Any]:
        """The table with the document reference of each configuration (``roots``)."""
        return {"texts": self.texts, "shapes": self.shapes, "nodes": self.nodes,
                "roots": roots}


_FLAT_TYPES = frozenset({str, int, bool, type(None)})
"""Item types whose equal values (of one type) have one JSON text: not ``float``
(``-0.0 == 0.0``), not containers."""


def _flat_key(keys: tuple[Any, ...] | None, items: tuple[Any, ...]
              ) -> tuple[Any, ...] | None:
    """What names an array (``keys`` ``None``) or object of ``items`` exactly: its keys,
    its items and their types (``True == 1``, but their JSON differs); ``None`` unless
    every key is a string and every item of :data:`_FLAT_TYPES`."""
    types = tuple(map(type, items))
    if not _FLAT_TYPES.issuperset(types):
        return None
    if keys is not None and not all(type(key) is str for key in keys):
        return None
    return (keys, types, items)


def _weight(node: list[int]) -> int:
    """About the length of ``node``'s JSON text: each item's digits and a comma."""
    return len(",".join(map(str, node))) + 1 if node else 0


def _object(nodes: list[list[int]], node: list[int]) -> tuple[int, list[int]]:
    """The shape and refs of an ``OBJECT`` or ``OBJECT_EDIT`` node (edits applied)."""
    edits = []
    while node[0] == OBJECT_EDIT:
        edits.append(node)
        node = nodes[node[1]]
    refs = list(node[2:])
    for edit in reversed(edits):
        for n in range(2, len(edit), 2):
            refs[edit[n]] = edit[n + 1]
    return node[1], refs


def _items(nodes: list[list[int]], node: list[int]) -> list[int]:
    """The items of an ``ARRAY`` or ``LINES`` node, its chunks' spliced; an object's
    refs."""
    if node[0] in (ARRAY_CHUNKS, LINES_CHUNKS):
        return [item for chunk in node[1:] for item in nodes[chunk][1:]]
    if node[0] in (OBJECT, OBJECT_EDIT):
        return _object(nodes, node)[1]
    return node[1:]


def layout(data: dict[str, Any], ref: int, indent: str = "") -> str:
    """The text of reference ``ref`` of ``data`` (:meth:`JsonTable.data`) as
    ``json.dumps(value, indent=2)`` writes it: the page script's walk, in Python."""
    texts, nodes = data["texts"], data["nodes"]
    if ref < 0:
        return str(texts[-ref - 1])
    node = nodes[ref]
    items = _items(nodes, node)
    if node[0] in (LINES, LINES_CHUNKS):
        return '"' + "\\n".join(texts[i] for i in items) + '"'
    is_object = node[0] in (OBJECT, OBJECT_EDIT)
    if not items:
        return "{}" if is_object else "[]"
    inner = indent + "  "
    if is_object:
        keys = data["shapes"][_object(nodes, node)[0]]
        lines = [f"{inner}{texts[k]}: {layout(data, r, inner)}"
                 for k, r in zip(keys, items, strict=True)]
    else:
        lines = [inner + layout(data, r, inner) for r in items]
    opening, closing = ("{", "}") if is_object else ("[", "]")
    return f"{opening}\n" + ",\n".join(lines) + f"\n{indent}{closing}"


def document(data: dict[str, Any], k: int) -> str:
    """Configuration ``k``'s JSON document, as ``render --format json`` prints it."""
    return layout(data, int(data["roots"][k])) + "\n"


def script_bytes(data: dict[str, Any]) -> bytes:
    """The configurations file: a call of :data:`CALLBACK` with the table (plain ASCII:
    every text is JSON with non-ASCII characters escaped)."""
    return f"{CALLBACK}({json.dumps(data, separators=(',', ':'))});\n".encode("ascii")
