"""The recipes that name a recipe a change removes in their ``related_recipes``.

A recipe links the recipes its ``meta.related_recipes`` lists (``org/name``, the recipe
``models/org/name.yaml``); deleting or renaming one of those leaves a dead link in recipes
the change does not touch (``REF013`` there). As for a removed hardware profile or
platform, ``pr`` checks those recipes too, so the ``REF013`` the change causes is new.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from validator.analysis.recipe_data import elements, get
from validator.context import MODELS
from validator.load import LoadedDocument, load_yaml
from validator.source.tree import RecipeTree, SourceError

PREFIX = MODELS + "/"


def recipe_id(path: str) -> str | None:
    """``org/name`` of the recipe ``models/org/name.yaml`` (or ``.yml``), else ``None``."""
    if not path.startswith(PREFIX) or not path.endswith((".yaml", ".yml")):
        return None
    return path[len(PREFIX):].rsplit(".", 1)[0]


def removed_recipe_ids(gone: Iterable[str], head: RecipeTree) -> set[str]:
    """The ``org/name`` of each recipe of ``gone`` (the paths a change deletes or renames
    away) that the head has under neither ``.yaml`` nor ``.yml``."""
    ids = {rid for p in gone if (rid := recipe_id(p)) is not None}
    return {rid for rid in ids
            if not any(head.exists(f"{PREFIX}{rid}{ext}") for ext in (".yaml", ".yml"))}


def loaded_recipes(head: RecipeTree, paths: Iterable[str]
                   ) -> Iterator[tuple[str, LoadedDocument]]:
    """``(path, document)`` of each of ``paths`` at ``head`` that reads and loads (one that
    does not is skipped: a changed one is reported by the check itself)."""
    for path in paths:
        try:
            doc = load_yaml(head.read(path), path)
        except (SourceError, FileNotFoundError):
            continue
        if doc.ok:
            yield path, doc


def naming_recipes(removed: set[str], head: RecipeTree,
                   paths: Sequence[str]) -> dict[str, list[str]]:
    """Recipe path at ``head`` (of ``paths``) -> why it is checked: each entry of its
    ``meta.related_recipes`` that names one of ``removed``."""
    out: dict[str, list[str]] = {}
    if not removed:
        return out
    for path, doc in loaded_recipes(head, paths):
        for _, ref, pointer in elements(get(doc.data, "meta", "related_recipes"),
                                        "/meta/related_recipes"):
            if isinstance(ref, str) and ref in removed:
                out.setdefault(path, []).append(
                    f"names the removed recipe {ref!r} at {pointer}")
    return out
