"""``REF026``: ``meta.platforms[]`` names platforms of ``platforms.yaml``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from validator.analysis.recipe_data import elements, get
from validator.context import PLATFORMS, Context, UndeclaredRead
from validator.findings import Severity, printable
from validator.load import LoadedDocument, load_yaml
from validator.rules.api import Hit, Reads, rule
from validator.rules.ref.facts import nearest_hint


def platform_ids(ctx: Context) -> frozenset[str] | None:
    """The ids of ``platforms.yaml``'s ``platforms`` (empty when the tree has no such file;
    ``None`` when it cannot be read or parsed: its own findings say why)."""
    def compute() -> frozenset[str] | None:
        try:
            if not ctx.tree.exists(PLATFORMS):
                return frozenset()
            loaded = load_yaml(ctx.tree.read(PLATFORMS), PLATFORMS)
        except UndeclaredRead:
            raise
        except Exception:  # the file's own check reports it
            return None
        if not loaded.ok:
            return None
        return frozenset(str(get(p, "id")) for _, p, _ in elements(
            get(loaded.data, "platforms"), "/platforms") if isinstance(get(p, "id"), str))
    return ctx.memoised("REF026.ids", compute)


def named_platforms(data: Any) -> Iterator[tuple[str, str]]:
    """``(pointer, id)`` of each platform a recipe's ``meta.platforms`` names (an id, or
    an entry's ``id``)."""
    for _, entry, pointer in elements(get(data, "meta", "platforms"), "/meta/platforms"):
        if isinstance(entry, str):
            yield pointer, entry
        elif isinstance(get(entry, "id"), str):
            yield f"{pointer}/id", entry["id"]


def duplicate_platform_hits(data: Any) -> Iterator[Hit]:
    """``REF026`` hits of ``platforms.yaml`` (its loaded ``data``): an entry whose ``id``
    an earlier entry already has, at the later entry's ``id`` line. The deploy dialog
    looks a recipe's platform up by id, so one of the two is never shown for it."""
    first: dict[str, str] = {}
    for index, entry, pointer in elements(get(data, "platforms"), "/platforms"):
        ident = get(entry, "id")
        if not isinstance(ident, str):
            continue
        if ident in first:
            yield Hit(f"{pointer}/id", f"platform id {printable(ident)!r} of entry {index} "
                      f"is also the id of entry {first[ident]}: a recipe naming it gets only "
                      "one of them in the deploy dialog",
                      "give each platform its own id, or merge the two entries")
        else:
            first[ident] = str(index)


@rule("REF026", Severity.ERROR, "meta.platforms names a platform missing from platforms.yaml",
      reads=frozenset({Reads.PLATFORMS}), needs_root=True)
def platform_id_in_platforms_file(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Each ``meta.platforms`` entry names a platform by the ``id`` of an entry of
    ``platforms.yaml``, which the site's build copies unchanged to ``platforms.json``;
    the deploy dialog looks the id up there for the platform's name and guide link. An id
    the file does not have (a typo, a platform renamed or removed there) has neither. An
    id two entries of ``platforms.yaml`` have is reported on that file, at the later
    entry's ``id`` line.

    Failing::

        meta:
          platforms:
            - id: no-such-platform

    Passing::

        meta:
          platforms: []

    How to fix: use an ``id`` of ``platforms.yaml`` (the hint names close ones), or add
    the platform there."""
    named = list(named_platforms(doc.data))
    known = platform_ids(ctx) if named else None
    if known is None:
        return
    for pointer, platform in named:
        if platform not in known:
            where = "platforms.yaml" if known else "platforms.yaml (the tree has none)"
            yield Hit(pointer, f"platform {printable(platform)!r} is not an id of {where}: "
                      "the deploy dialog finds no name or guide link for it",
                      nearest_hint(platform, set(known)) if known else
                      "add platforms.yaml with this platform, or drop the entry")
