"""What REF025 reads of the other recipes of a revision, as a digest: the ``model_id``
each recipe gives its variants (:data:`~validator.rules.metadata.Reads.VARIANT_CLAIMS`).

Most commits edit some recipe, and so change the revision's tree; few change what any
recipe's variants claim. Keying REF025's results on the claims rather than on the whole
tree lets the audit reuse them across the revisions between two such changes.

A recipe file's claims are read by REF025's own reader (:func:`claimed_ids`), once per
``(path, blob id)``, and kept in REF025's index, the one ``check`` keeps
(:class:`~validator.api_claims.ClaimsStore`), so a warm run reads no recipe for them, and
a check after an audit of the same recipes (or an audit after such a check) neither.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping

from validator.claims_store import ClaimsStore, VariantIds
from validator.paths import name_bytes


def claimed_ids(data: bytes, path: str, oid: str | None = None) -> list[tuple[str, str]]:
    """``(variant key, model_id)`` REF025 takes as the claims of the recipe file at
    ``path`` holding ``data`` (``oid``: its git blob id, when known): read through
    REF025's own memo (:func:`validator.api_claims.recipe_variant_ids`, by path and blob
    id), so the audit's workers (this process, or forked from it) do not load the file
    again for REF025; imported here, as the first claims are read: a warm audit reads
    none)."""
    from validator.api_claims import recipe_variant_ids

    return recipe_variant_ids(path, data, oid)


class ClaimsIndex:
    """The claims of recipe blobs by ``(path, blob id)``, read once and kept in REF025's
    index (none with the cache off).

    Args:
        store: the index (``None``: the cache is off).
        blobs: reads blobs' bytes by their ids.
    """

    def __init__(self, store: ClaimsStore | None,
                 blobs: Callable[[list[str]], list[bytes]]) -> None:
        self.store = store
        self.blobs = blobs
        self.held: dict[str, VariantIds] = {} if store is None else store.read()
        self.lines: dict[tuple[str, str], str] = {}
        """The digest's line of each ``(path, blob id)`` whose claims are known."""
        for label, ids in self.held.items():
            path, _, oid = label.rpartition("\0")
            self.lines[(path, oid)] = f"{path}\0{json.dumps(ids)}\n"
        self.new: dict[str, VariantIds] = {}
        self.seen: set[tuple[str, str]] = set()

    def digest(self, recipes: Mapping[str, str]) -> str:
        """Digest of the claims of every recipe of a revision, ``{path: blob id}``; the
        blobs whose claims are not known yet are read in one batch."""
        named = sorted(recipes.items())
        unknown = [pair for pair in named if pair not in self.lines]
        for (path, oid), data in zip(unknown, self.blobs([o for _p, o in unknown]),
                                     strict=True):
            ids = claimed_ids(data, path, oid)
            self.held[ClaimsStore.label(path, oid)] = self.new[ClaimsStore.label(path, oid)] \
                = ids
            self.lines[(path, oid)] = f"{path}\0{json.dumps(ids)}\n"
        self.seen.update(named)
        text = "".join(self.lines[pair] for pair in named)
        return hashlib.sha256(name_bytes(text)).hexdigest()

    def save(self) -> None:
        """Keep the claims read in this run in the index (past its bound, those of this
        run only; a folder that cannot be written keeps nothing)."""
        if self.store is not None and self.new:
            seen = {ClaimsStore.label(p, o): self.held[ClaimsStore.label(p, o)]
                    for p, o in self.seen}
            self.store.write(self.new, seen, len(self.held) - len(self.new))
            self.new = {}
