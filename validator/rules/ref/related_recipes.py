"""``REF013``: ``related_recipes`` names recipes of the tree."""

from __future__ import annotations

from collections.abc import Iterator

from validator.analysis.recipe_data import elements, get
from validator.context import Context
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, Reads, rule
from validator.rules.ref.facts import (
    RecipeIndex,
    recipe_ids,
)


@rule("REF013", Severity.WARNING, "related_recipes names a recipe missing from the tree",
      reads=frozenset({Reads.RECIPE_LIST}), needs_root=True)
def related_recipe_exists(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Each ``meta.related_recipes`` entry (``org/name``) should be the id of a recipe of
    the same revision, as the site files it (``models/org/name.yaml``, or a file
    ``name.yaml`` in a folder below ``models/org/``); a missing one renders a dead link.

    Failing::

        meta:
          related_recipes: ["example-org/Example-Chat-70B"]

    Passing::

        meta:
          related_recipes: []

    How to fix: correct the ``org/name`` (the hint names close recipes), or drop the entry
    until that recipe is merged."""
    for _, ref, pointer in elements(get(doc.data, "meta", "related_recipes"),
                                    "/meta/related_recipes"):
        if not isinstance(ref, str):
            continue
        if ref not in ctx.memoised("REF013.ids", lambda: recipe_ids(ctx.recipe_paths)):
            index = ctx.memoised("REF013.index", lambda: RecipeIndex(ctx.recipe_paths))
            yield Hit(pointer, f"related recipe {ref!r} does not exist (models/{ref}.yaml)",
                      index.hint(ref))
