"""What REF025 reads of the other recipes of a revision, as a digest: the ``model_id``
each recipe gives its variants (:data:`~validator.rules.metadata.Reads.VARIANT_CLAIMS`).

Most commits edit some recipe, and so change the revision's tree; few change what any
recipe's variants claim. Keying REF025's results on the claims rather than on the whole
tree lets the audit reuse them across the revisions between two such changes.

A recipe file's claims are read by REF025's own reader (:func:`claimed_ids`), once per
``(path, blob)``, and kept in the result cache under one entry (:class:`ClaimsIndex`), so
a warm run reads no recipe for them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping

from validator.api_claims import recipe_variant_ids
from validator.cache import ResultCache


def claimed_ids(data: bytes, path: str) -> list[tuple[str, str]]:
    """``(variant key, model_id)`` REF025 takes as the claims of the recipe file at
    ``path`` holding ``data``: read through REF025's own memo
    (:func:`validator.api_claims.recipe_variant_ids`, by path and bytes), so the audit's
    workers (this process, or forked from it) do not load the file again for REF025."""
    return recipe_variant_ids(path, data)


class ClaimsIndex:
    """The claims of recipe blobs by ``(path, blob id)``, read once and kept in the
    result cache (one entry under the tool digest; none with the cache off).

    Args:
        cache: the audit's result cache.
        tool: the tool digest (:func:`~validator.history.keys.tool_digest`): another
            version of the rules may read claims otherwise.
        blobs: reads blobs' bytes by their ids.
    """

    def __init__(self, cache: ResultCache, tool: str,
                 blobs: Callable[[list[str]], list[bytes]]) -> None:
        self.cache = cache
        self.key = hashlib.sha256(f"{tool}\0variant claims".encode()).hexdigest()
        self.blobs = blobs
        self.known: dict[str, str] = {}
        for label, ids in cache.get(self.key).items():
            if isinstance(ids, str):
                self.known[label] = ids
        self.new: dict[str, str] = {}

    def digest(self, recipes: Mapping[str, str]) -> str:
        """Digest of the claims of every recipe of a revision, ``{path: blob id}``; the
        blobs whose claims are not known yet are read in one batch."""
        labels = {path: f"{path}\0{oid}" for path, oid in recipes.items()}
        unknown = sorted(path for path, label in labels.items() if label not in self.known)
        for path, data in zip(unknown, self.blobs([recipes[p] for p in unknown]),
                              strict=True):
            ids = claimed_ids(data, path)
            self.known[labels[path]] = self.new[labels[path]] = json.dumps(ids)
        text = "".join(f"{path}\0{self.known[labels[path]]}\n" for path in sorted(recipes))
        return hashlib.sha256(text.encode()).hexdigest()

    def save(self) -> None:
        """Keep the claims read in this run in the cache.

        Raises:
            OSError: the cache folder is not writable.
        """
        if self.new:
            self.cache.put(self.key, dict(self.new))
            self.new.clear()
