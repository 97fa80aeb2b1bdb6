"""``REF004``: ``meta.hardware`` names hardware ids of ``taxonomy.yaml``."""

from __future__ import annotations

from collections.abc import Iterator

from validator.analysis.recipe_data import get, items
from validator.context import Context
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, Reads, rule
from validator.rules.ref.facts import (
    nearest_hint,
)


@rule("REF004", Severity.ERROR, "meta.hardware names a hardware id missing from the taxonomy",
      reads=frozenset({Reads.TAXONOMY}), needs_root=True)
def meta_hardware_in_taxonomy(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Keys of ``meta.hardware`` are exact taxonomy ``hardware_profiles`` ids (upstream's
    ``validateHardwareKeys``: lookups are exact string matches, so an unknown id silently
    never renders its badge).

    Failing::

        meta:
          hardware:
            H100: verified

    Passing::

        meta:
          hardware:
            h100: verified

    How to fix: use the exact profile id from ``taxonomy.yaml`` (lower case, as the hint
    suggests)."""
    if ctx.taxonomy is None:
        return
    profiles = ctx.hardware_profiles
    for hw_id, _, pointer in items(get(doc.data, "meta", "hardware"), "/meta/hardware"):
        if hw_id not in profiles:
            yield Hit(pointer, f"hardware id {hw_id!r} is not a profile in taxonomy.yaml",
                      nearest_hint(hw_id, profiles), on_key=True)
