"""js-yaml's reading of U+0085, U+2028 and U+2029 for libyaml.

js-yaml (the recipes site's reader, YAML 1.2) reads U+0085 NEXT LINE, U+2028 LINE
SEPARATOR and U+2029 PARAGRAPH SEPARATOR as ordinary characters wherever they stand: in
a plain, quoted or block scalar, a key or a comment. libyaml (YAML 1.1) breaks lines at
them, so a plain scalar holding one is cut in two (``could not find expected ':'``) and
every later line number shifts. :class:`StandIns` gives libyaml a text where each of
them is replaced by a private-use character the text does not hold (printable for
libyaml, one column wide like the original) and puts the originals back into what was
built: the data, the source map's pointers and the findings. The characters themselves
are ``YAML010``'s to report (:mod:`validator.load.hidden`).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from validator.load.lines import LIBYAML_ONLY_BREAKS

if TYPE_CHECKING:
    from validator.load.document import LoadedDocument

_PRIVATE_USE = range(0xF0000, 0xFFFFE)
"""Supplementary Private Use Area-A: characters libyaml reads as printable text."""


class StandIns:
    """The stand-in of each libyaml-only line break ``text`` holds (none: the identity)."""

    def __init__(self, text: str) -> None:
        present = [ch for ch in LIBYAML_ONLY_BREAKS if ch in text]
        free = (chr(c) for c in _PRIVATE_USE if chr(c) not in text) if present else iter(())
        self._hide = {ord(ch): next(free) for ch in present}
        self._show = {ord(v): chr(k) for k, v in self._hide.items()}

    def hide(self, text: str) -> str:
        """``text`` with each libyaml-only line break replaced by its stand-in."""
        return text.translate(self._hide) if self._hide else text

    def show(self, value: Any) -> Any:
        """``value`` (built data: mappings, lists, scalars) with the originals back."""
        if isinstance(value, str):
            return value.translate(self._show)
        if isinstance(value, dict):
            return {self.show(k): self.show(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.show(v) for v in value]
        return value

    def restore(self, doc: LoadedDocument) -> None:
        """Put the originals back into ``doc``'s data, source map and findings."""
        if not self._hide:
            return
        doc.data = self.show(doc.data)
        smap = doc.source_map
        for table in (smap.values, smap.keys, smap.blocks):
            restored = {self.show(k): v for k, v in table.items()}
            table.clear()
            table.update(restored)
        doc.findings = [dataclasses.replace(
            f, pointer=self.show(f.pointer), message=self.show(f.message),
            hint=self.show(f.hint)) for f in doc.findings]
