"""The recipes behind the records a catalogue shows, read back from the snapshot store
publish verified them in: each record's recipe is loaded with the context of its own
commit and every configuration the site's page offers is rendered
(:func:`validator.render.offered.offered_renderings`) for the page's picker and guide."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from validator.context import Context, Settings, build_context
from validator.errors import RecipeCheckError
from validator.load import LoadedDocument, load_yaml
from validator.render.jsval import JsTypeError
from validator.render.offered import Offered, offered_renderings
from validator.render.renderer import Configuration, site_strategies
from validator.source.snapshots import SnapshotStore, SnapshotTree
from validator.source.tree import RecipeTree, SourceError


@dataclass(frozen=True)
class Recipe:
    """A record's recipe: the loaded document, the configurations its page offers and the
    one it opens with (``None`` when the site's defaults cannot be derived)."""

    doc: LoadedDocument
    offered: list[Offered]
    landing: Configuration | None


class RecipeReader:
    """Reads the recipe of a record (parsed JSON) from the tree ``open_tree`` gives for
    the record's ``source`` (the snapshot store's commit: :func:`store_tree`), one
    context per commit."""

    def __init__(self, open_tree: Callable[[dict[str, Any]], RecipeTree]) -> None:
        self.open_tree = open_tree
        self._contexts: dict[tuple[str, str], tuple[RecipeTree, Context]] = {}

    def _context(self, source: dict[str, Any]) -> tuple[RecipeTree, Context]:
        key = (str(source["repository"]), str(source["revision"]))
        if key not in self._contexts:
            tree = self.open_tree(source)
            self._contexts[key] = (tree, build_context(tree, Settings(offline=True)))
        return self._contexts[key]

    def __call__(self, record: dict[str, Any]) -> Recipe | None:
        """The recipe of ``record``; ``None`` when it cannot be read back (not in the
        store, no taxonomy at its commit, not loadable) or the site's build could not
        plan it."""
        source = record["source"]
        try:
            tree, ctx = self._context(source)
            doc = load_yaml(tree.read(str(source["document_path"])),
                            str(source["document_path"]))
        except (SourceError, OSError, KeyError):
            return None
        if not doc.ok or ctx.taxonomy is None or not ctx.taxonomy.ok:
            return None
        try:
            strategies = site_strategies(ctx)
            landing = Configuration.defaults(doc, ctx.taxonomy, strategies) if strategies \
                else None
            return Recipe(doc, offered_renderings(doc, ctx), landing)
        except (JsTypeError, RecipeCheckError):  # what the site's build would stop on
            return None


def store_tree(store: SnapshotStore) -> Callable[[dict[str, Any]], RecipeTree]:
    """The commit of a record's ``source`` as stored in ``store`` (every read
    re-verified)."""
    return lambda source: SnapshotTree(store, str(source["repository"]),
                                       str(source["revision"]), source.get("resolved_from"))
