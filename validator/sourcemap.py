"""Where each node of a loaded YAML document stands in its file.

Keys are RFC 6901 JSON Pointers (``/features/reasoning/args/1``); positions are 1-based
``(line, column)``. For literal block scalars (``guide: |``) the map also knows where each
line of the value starts, so a check can point at "line 7 of the guide".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


def escape_token(token: str | int) -> str:
    """Escape one reference token per RFC 6901 section 3 (``~`` -> ``~0``, ``/`` -> ``~1``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    """Inverse of :func:`escape_token` (RFC 6901 section 4: ``~1`` first, then ``~0``)."""
    return token.replace("~1", "/").replace("~0", "~")


def join_pointer(parent: str, token: str | int) -> str:
    """``join_pointer("/a", "b/c") == "/a/b~1c"``."""
    return f"{parent}/{escape_token(token)}"


def split_pointer(pointer: str) -> list[str]:
    """``split_pointer("/a/b~1c") == ["a", "b/c"]``; ``""`` is the root and gives ``[]``.

    Raises:
        ValueError: a non-empty pointer that does not start with ``/``.
    """
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"JSON Pointer must start with '/': {pointer!r}")
    return [unescape_token(t) for t in pointer[1:].split("/")]


def pointer_value(data: Any, pointer: str, missing: Any = None) -> Any:
    """The value at JSON ``pointer`` of loaded YAML/JSON ``data`` (mappings and lists);
    ``missing`` where nothing is there (a key not in a mapping, an index past a list's
    end or not digits, a step into a scalar).

    Raises:
        ValueError: a malformed pointer (see :func:`split_pointer`).
    """
    node = data
    for token in split_pointer(pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return missing
    return node


@dataclass(frozen=True)
class Span:
    """A 1-based region of the file: start ``(line, column)`` to end ``(end_line, end_column)``.

    The end is exclusive, as libyaml reports it.
    """

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class BlockLines:
    """Line layout of a literal block scalar value.

    ``first_line`` is the 1-based file line of the value's first line and ``indent`` the
    number of indentation columns stripped from every line; value line ``i`` (0-based)
    is file line ``first_line + i``, its text starting at column ``indent + 1``.
    """

    first_line: int
    indent: int
    count: int


@dataclass
class SourceMap:
    """JSON Pointer -> position, for every mapping key, value and sequence item.

    ``values[p]`` is the span of the value node at ``p``; ``keys[p]`` the span of the key
    that introduces it (absent for sequence items and the root).
    """

    values: dict[str, Span] = field(default_factory=dict)
    keys: dict[str, Span] = field(default_factory=dict)
    blocks: dict[str, BlockLines] = field(default_factory=dict)

    def position(self, pointer: str) -> tuple[int, int]:
        """Best 1-based ``(line, column)`` for ``pointer``.

        Falls back to the nearest ancestor that is mapped (a missing key is reported at
        its parent), and to ``(1, 1)`` for an unmapped document.
        """
        span = self.span(pointer)
        return (span.line, span.column) if span else (1, 1)

    def span(self, pointer: str) -> Span | None:
        """The value span at ``pointer``; for an unmapped pointer, the key span of its
        nearest mapped ancestor (or that ancestor's value span); else ``None``."""
        if pointer in self.values:
            return self.values[pointer]
        p = pointer
        while True:
            p = p.rsplit("/", 1)[0] if p else p
            # a missing node is reported at the key that introduces its nearest ancestor
            if p in self.keys:
                return self.keys[p]
            if p in self.values:
                return self.values[p]
            if p == "":
                return None

    def key_position(self, pointer: str) -> tuple[int, int]:
        """Position of the key naming ``pointer`` (its value's position for list items)."""
        span = self.keys.get(pointer)
        if span is not None:
            return (span.line, span.column)
        return self.position(pointer)

    def block_line(self, pointer: str, index: int) -> tuple[int, int]:
        """File ``(line, column)`` of 0-based line ``index`` inside the scalar at ``pointer``.

        For literal block scalars this is exact; for other scalars the scalar's own start
        is returned (folded and quoted scalars do not keep a line-for-line layout).
        """
        block = self.blocks.get(pointer)
        if block is None:
            return self.position(pointer)
        index = max(0, min(index, max(block.count - 1, 0)))
        return (block.first_line + index, block.indent + 1)


def shared_nodes(smap: SourceMap, pointers: Iterable[str]) -> dict[Span, list[str]]:
    """The nodes that several of ``pointers`` reach (through a YAML alias ``*name`` or a
    merge key ``<<``), by their span: span -> those pointers, in order. (The builder
    builds each path to an aliased node anew, so every path is in the map, with the
    node's one span.)"""
    by_node: dict[Span, list[str]] = {}
    for pointer in dict.fromkeys(pointers):
        span = smap.values.get(pointer)
        if span is not None:
            by_node.setdefault(span, []).append(pointer)
    return {span: group for span, group in by_node.items() if len(group) > 1}


def reaching_paths(smap: SourceMap, shared: dict[str, list[str]], pointer: str,
                   data: Any) -> list[str]:
    """Every pointer of the document (of loaded ``data``) that reaches the node
    ``pointer`` names (or, for a pointer past the mapped nodes, the node its nearest
    mapped ancestor names, with the rest of ``pointer`` appended), ``pointer`` itself
    first; ``[pointer]`` for a node one path reaches. ``shared``: pointer -> the pointers
    of its node, for the nodes several reach (:func:`shared_nodes`, by pointer). A
    pointer the data does not hold (the builder maps a merged key's nodes also where the
    mapping overrides the key) is left out."""
    node, rest = pointer, ""
    while node not in smap.values:
        if "/" not in node:
            return [pointer]
        node, token = node.rsplit("/", 1)
        rest = f"/{token}{rest}"
    others = [p + rest for p in shared.get(node, ())
              if p != node and pointer_value(data, p, _MISSING) is not _MISSING]
    return [pointer, *others]


_MISSING = object()


def alias_anchors(smap: SourceMap, pointers: Iterable[str]) -> dict[str, str]:
    """For each of ``pointers`` that reaches one YAML node through an alias (``*name``)
    along with another of them, the pointer of that node where its anchor (``&name``)
    writes it: the one whose nearest key comes last before the node's own text (so that
    ``base_args: &ba [...]`` wins over ``args: *ba``). Pointers of nodes no other pointer
    shares are left out."""
    out: dict[str, str] = {}
    for span, group in shared_nodes(smap, pointers).items():
        anchor = max(group, key=lambda p: _key_before(smap, p, span))
        out.update(dict.fromkeys(group, anchor))
    return out


def _key_before(smap: SourceMap, pointer: str, span: Span) -> tuple[int, int]:
    """The position of the nearest key introducing ``pointer`` or an ancestor of it, when
    it stands before ``span`` (``(0, 0)``: none does)."""
    ancestors = [""]
    for token in split_pointer(pointer):
        ancestors.append(join_pointer(ancestors[-1], token))
    for ancestor in reversed(ancestors):
        key = smap.keys.get(ancestor)
        if key is not None:
            where = (key.line, key.column)
            return where if where <= (span.line, span.column) else (0, 0)
    return (0, 0)
