"""What REF025 reads of the other recipes of a revision, as a digest: the ``model_id``
each recipe gives its variants (:data:`~validator.rules.metadata.Reads.VARIANT_CLAIMS`).

Most commits edit some recipe, and so change the revision's tree; few change what any
recipe's variants claim. Keying REF025's results on the claims rather than on the whole
tree lets the audit reuse them across the revisions between two such changes.

A recipe file's claims are read as REF025 reads them
(:func:`validator.rules.ref.api_path._variant_ids` of the file loaded with
:func:`~validator.load.load_yaml`; none when it does not load), once per ``(path, blob)``
and kept in the result cache under one entry (:class:`ClaimsIndex`), so a warm run reads
no recipe for them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping

from validator.cache import ResultCache
from validator.load import load_yaml
from validator.rules.ref.api_path import _variant_ids


def claimed_ids(data: bytes, path: str) -> list[tuple[str, str]]:
    """``(variant key, model_id)`` REF025 takes as the claims of the recipe file at
    ``path`` holding ``data``."""
    try:
        loaded = load_yaml(data, path)
    except Exception:  # that recipe's own findings say why it cannot be read
        return []
    return _variant_ids(loaded.data if loaded.ok else None, path)


class ClaimsIndex:
    """The claims of recipe blobs by ``(path, blob id)``, read once and kept in the
    result cache (one entry under the tool digest; none with the cache off).

    Args:
        cache: the audit's result cache.
        tool: the tool digest (:func:`~validator.history.keys.tool_digest`): another
            version of the rules may read claims otherwise.
        blob: reads a blob's bytes by id.
    """

    def __init__(self, cache: ResultCache, tool: str, blob: Callable[[str], bytes]) -> None:
        self.cache = cache
        self.key = hashlib.sha256(f"{tool}\0variant claims".encode()).hexdigest()
        self.blob = blob
        self.known: dict[str, str] = {}
        for label, ids in cache.get(self.key).items():
            if isinstance(ids, str):
                self.known[label] = ids
        self.new: dict[str, str] = {}

    def of(self, path: str, oid: str) -> str:
        """The claims of blob ``oid`` at ``path``, as canonical JSON."""
        label = f"{path}\0{oid}"
        found = self.known.get(label)
        if found is None:
            ids = claimed_ids(self.blob(oid), path)
            found = self.known[label] = self.new[label] = json.dumps(ids, ensure_ascii=False)
        return found

    def digest(self, recipes: Mapping[str, str]) -> str:
        """Digest of the claims of every recipe of a revision, ``{path: blob id}``."""
        h = hashlib.sha256()
        for path in sorted(recipes):
            h.update(f"{path}\0{self.of(path, recipes[path])}\n".encode())
        return h.hexdigest()

    def save(self) -> None:
        """Keep the claims read in this run in the cache.

        Raises:
            OSError: the cache folder is not writable.
        """
        if self.new:
            self.cache.put(self.key, dict(self.new))
            self.new.clear()
