"""REF025's persistent index of the recipes' variant ids: one entry of the result cache
(see :mod:`validator.api_claims`, which reads and fills it).

Kept apart from :mod:`validator.api_claims` (the renderer's paths, the loader) so that a
history audit answered from its cache reads the index without importing them.
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path

from validator.cache import CLAIMS, FileDigests, ResultCache, code_digest

VariantIds = list[tuple[str, str]]
"""``(variant key, model_id)`` of each variant a recipe promotes to files of its own."""

FOLDER = CLAIMS
"""Sub-folder of the cache folder (``--cache-dir``) that holds the index."""
FORMAT = 2
"""Version of the index's key and values (2: labels by path and git blob id)."""
MAX_LABELS = 16384
"""Recipe contents the index keeps (the corpus has 173 recipes; its history of every
ref, about 2,000 recipe blobs)."""


class ClaimsStore:
    """The persistent index of variant ids (see the module docstring).

    Args:
        store: the cache entries' store (its folder is ``<cache folder>/claims``).
        digests: the run's digests of the tool's files, for the code digest.
    """

    def __init__(self, store: ResultCache, digests: FileDigests | None = None) -> None:
        self.store = store
        self.key = hashlib.sha256(f"{FORMAT}\0{code_digest(digests)}\0claims".encode()
                                  ).hexdigest()
        self.hits = 0
        self.misses = 0

    @classmethod
    def under(cls, root: Path, digests: FileDigests | None = None) -> ClaimsStore:
        """The index of the cache folder ``root`` (``--cache-dir``)."""
        return cls(ResultCache(root / FOLDER, owner=root), digests)

    @staticmethod
    def label(path: str, oid: str) -> str:
        """The label of one recipe content: its path and git blob id."""
        return f"{path}\0{oid}"

    def read(self) -> dict[str, VariantIds]:
        """Every valid label of the index (none when absent, damaged or unreadable)."""
        try:
            found = self.store.get(self.key)
        except OSError:
            return {}
        return {label: [(k, m) for k, m in value] for label, value in found.items()
                if isinstance(value, list) and all(
                    isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
                    and isinstance(pair[1], str) for pair in value)}

    def write(self, new: dict[str, VariantIds], seen: dict[str, VariantIds],
              kept: int) -> None:
        """Add the ``new`` labels (``kept``: how many the index holds); past
        :data:`MAX_LABELS`, keep those ``seen`` in this run only."""
        replace = kept + len(new) > MAX_LABELS
        labels = seen if replace else new
        # a read-only or full disk: the ids are computed again next time
        with contextlib.suppress(OSError):
            self.store.put(self.key, {k: [list(p) for p in v] for k, v in labels.items()},
                           replace=replace)
