"""Site renderings of one recipe carried from one context (revision) to the next.

Inside one :func:`~validator.render.renderer.render_all`, a configuration's site rendering is
reused for another hardware when every read it made of its hardware
(:class:`~validator.render.hardware_reads.HardwareReads`) gives the same value there. The
history audit renders the same recipe blob against many revisions' taxonomies, and most
taxonomy edits only add or change a few hardware profiles. So the table of those
renderings (configuration → ``(reads, trace, rendering)``) is carried to the next
``render_all`` of the same recipe -- of any text of it where what its site renderings
read is the same (:mod:`validator.render.recipe_reads`) -- when everything else a site
rendering reads is the same (:func:`inputs_digest`): the taxonomy apart from
``hardware_profiles``, and the strategy and kv-store documents by name and path. The
hardware profiles then count exactly as far as the rendering read them: each carried
rendering is replayed against the new revision's profile of its hardware, and rendered
again when one read differs.

What a site rendering reads of the taxonomy besides its hardware profile (the
``kv_offload`` options) is in the digest; the configuration planning, the picker and the
configuration problems, which read every profile, are not carried: they are made again
in each context.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from validator.load import LoadedDocument
from validator.render.configuration import document_data
from validator.render.hardware_reads import HardwareReads, Trace
from validator.render.recipe_reads import text_digest

HARDWARE_PROFILES = "hardware_profiles"

Table = dict[Any, list[tuple[HardwareReads, Trace, Any]]]
"""Configuration (without its hardware) and what it read of ``variants`` and
``strategy_overrides`` (:func:`~validator.render.recipe_reads.read_fingerprint`) → the
site renderings made of it, each with the reads of its hardware and its trace (which of
those reads it made)."""


def inputs_digest(taxonomy: LoadedDocument | None,
                  strategies: Mapping[str, LoadedDocument]) -> str:
    """Digest of what a site rendering reads besides the recipe and its hardware profile:
    the taxonomy's data without ``hardware_profiles`` (its path too), and each strategy
    and kv-store document's name, path and data. ``repr`` keeps types and key order
    apart (``1``, ``1.0`` and ``True`` render differently; the site iterates in order)."""
    tax = document_data(taxonomy)
    rest = ({k: v for k, v in tax.items() if k != HARDWARE_PROFILES}
            if type(tax) is dict else tax)
    parts = [repr(taxonomy.path if taxonomy else None), repr(rest)]
    parts += [repr((name, doc.path, doc.ok, document_data(doc)))
              for name, doc in strategies.items()]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def carry_key(recipe: LoadedDocument, inputs: str) -> tuple[str, str, str] | None:
    """Key of the carried table of ``recipe`` under ``inputs`` (:func:`inputs_digest`): its
    path and what its site renderings may read of it
    (:func:`~validator.render.recipe_reads.text_digest`: texts that differ only where no
    rendering reads share the table); ``None`` for a document built by hand (no digest)."""
    if not recipe.sha256:
        return None
    return recipe.path, text_digest(recipe.data), inputs


def carried_table(table: Table) -> Table:
    """``table``, ready for another ``render_all``: the replay results its readers
    remember are of the previous call's hardware readers (by ``id``, which the next call's
    readers may reuse), so they are forgotten."""
    for made in table.values():
        for reads, _trace, _found in made:
            reads.forget_replays()
    return table
