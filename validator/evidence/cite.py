"""Line-anchored citations: ``https://github.com/<repo>/blob/<commit>/<path>#L<a>[-L<b>]``.

GitHub's blob view highlights ``#L10`` (one line) or ``#L10-L14`` (a range); lines are
1-based. The line of a fact is the line of the YAML node that states it, taken from the
document's :class:`~validator.sourcemap.SourceMap`: a scalar's own line(s), a mapping's or
sequence's first to last line of its entries (libyaml's end mark of a block collection
is the start of the *next* token, so it is not used), a literal block scalar's lines.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from validator.load import LoadedDocument
from validator.sourcemap import Span

GITHUB = "https://github.com"


def blob_url(repository: str, commit: str, path: str, first: int | None = None,
             last: int | None = None) -> str:
    """GitHub blob URL of ``path`` at ``commit``, anchored at line ``first`` (to ``last``).

    ``blob_url("o/r", "abc", "m/x.yaml", 3, 5) == "https://github.com/o/r/blob/abc/m/x.yaml#L3-L5"``.
    Path segments are percent-encoded as GitHub does (``/`` kept).
    """
    url = f"{GITHUB}/{repository}/blob/{commit}/{quote(path, safe='/')}"
    if first is None:
        return url
    if last is None or last <= first:
        return f"{url}#L{first}"
    return f"{url}#L{first}-L{last}"


def parse_anchor(url: str) -> tuple[str, str, str, int, int]:
    """Inverse of :func:`blob_url`: ``(repository, commit, path, first, last)``.

    Raises:
        ValueError: not a GitHub blob URL with a ``#L`` anchor.
    """
    from urllib.parse import unquote

    if not url.startswith(GITHUB + "/") or "#L" not in url:
        raise ValueError(f"not an anchored GitHub blob URL: {url}")
    base, anchor = url.split("#", 1)
    parts = base[len(GITHUB) + 1:].split("/")
    if len(parts) < 5 or parts[2] != "blob":
        raise ValueError(f"not an anchored GitHub blob URL: {url}")
    repository, commit, path = f"{parts[0]}/{parts[1]}", parts[3], unquote("/".join(parts[4:]))
    bounds = anchor.split("-")
    first = int(bounds[0].lstrip("L"))
    last = int(bounds[1].lstrip("L")) if len(bounds) > 1 else first
    return repository, commit, path, first, last


def _end_line(span: Span) -> int:
    """Last line a node really occupies (an end mark at column 1 belongs to the next line)."""
    if span.end_line > span.line and span.end_column == 1:
        return span.end_line - 1
    return span.end_line


@dataclass
class LineIndex:
    """Line ranges of the nodes of one loaded document, by JSON Pointer."""

    doc: LoadedDocument
    _pointers: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        smap = self.doc.source_map
        self._pointers = sorted(set(smap.values) | set(smap.keys))

    def _descendants(self, pointer: str) -> list[str]:
        prefix = pointer + "/"
        start = bisect.bisect_left(self._pointers, prefix)
        out = []
        for p in self._pointers[start:]:
            if not p.startswith(prefix):
                break
            out.append(p)
        return out

    def lines(self, pointer: str) -> tuple[int, int] | None:
        """``(first, last)`` 1-based lines of the node at ``pointer``; ``None`` if unmapped.

        For a mapping or sequence the range runs from its first entry to its last; for a
        literal block scalar it is the block's own lines.
        """
        smap = self.doc.source_map
        block = smap.blocks.get(pointer)
        if block is not None:
            return block.first_line, block.first_line + max(block.count, 1) - 1
        span = smap.values.get(pointer)
        if span is None:
            return None
        data = self.value(pointer)
        if isinstance(data, dict | list) and data:
            firsts, lasts = [], []
            for p in self._descendants(pointer):
                for table in (smap.values, smap.keys):
                    s = table.get(p)
                    if s is not None:
                        firsts.append(s.line)
                        lasts.append(_end_line(s))
                b = smap.blocks.get(p)
                if b is not None:
                    lasts.append(b.first_line + max(b.count, 1) - 1)
            if firsts:
                return min(firsts), max(lasts)
        return span.line, max(span.line, _end_line(span))

    def key_line(self, pointer: str) -> int | None:
        """Line of the mapping key that introduces ``pointer`` (``None`` for list items)."""
        span = self.doc.source_map.keys.get(pointer)
        return span.line if span else None

    def value(self, pointer: str) -> Any:
        """The data at ``pointer`` (``None`` when absent)."""
        from validator.sourcemap import pointer_value

        return pointer_value(self.doc.data, pointer)


@dataclass
class Citer:
    """Builds citations into one document of one pinned revision.

    Attributes:
        repository: ``owner/name``.
        commit: full commit id the document was read at.
        doc: the loaded document (its ``path`` is repository-relative).
        sha256: hex SHA-256 of the document's bytes.
    """

    repository: str
    commit: str
    doc: LoadedDocument
    sha256: str
    index: LineIndex = field(init=False)

    def __post_init__(self) -> None:
        self.index = LineIndex(self.doc)

    @property
    def path(self) -> str:
        """Repository-relative path of the document."""
        return self.doc.path

    def url(self, first: int, last: int | None = None) -> str:
        """Blob URL anchored at ``first`` (to ``last``)."""
        return blob_url(self.repository, self.commit, self.path, first, last)

    def at(self, pointer: str) -> str | None:
        """URL citing the node at ``pointer``; ``None`` when the node is not in the file."""
        rng = self.index.lines(pointer)
        return self.url(*rng) if rng else None

    def key_and_value(self, pointer: str) -> str | None:
        """URL citing the key naming ``pointer`` through the end of its value."""
        rng = self.index.lines(pointer)
        key = self.index.key_line(pointer)
        if rng is None:
            return None
        return self.url(min(rng[0], key or rng[0]), rng[1])

    def pinned_url(self) -> str:
        """Blob URL of the whole document at the commit (no anchor)."""
        return blob_url(self.repository, self.commit, self.path)
