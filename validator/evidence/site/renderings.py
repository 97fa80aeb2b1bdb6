"""The recipes behind the records a catalogue shows, read back from the snapshot store
publish verified them in: each record's recipe is loaded with the context of its own
commit and every configuration the site's page offers is rendered
(:func:`validator.render.offered.offered_renderings`) for the page's picker and guide."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from validator.context import Context, Settings, build_context
from validator.errors import RecipeCheckError
from validator.load import LoadedDocument, load_yaml
from validator.render.api_inputs import site_refusal
from validator.render.configuration import Rendered, document_data
from validator.render.docker import compute_docker_meta, cuda_choice
from validator.render.hardware_reads import hardware_profile, raw_id
from validator.render.jsval import JsTypeError, get, or_
from validator.render.offered import Offered, offered_renderings
from validator.render.renderer import Configuration, render_each, site_strategies
from validator.source.snapshots import SnapshotStore, SnapshotTree
from validator.source.tree import RecipeTree, SourceError


@dataclass(frozen=True)
class Recipe:
    """A record's recipe: the loaded document, the configurations its page offers, the
    one it opens with (``None`` when the site's defaults cannot be derived) and, by index
    in ``offered``, the cu129 rendering of each configuration whose NVIDIA image's build
    the site's page lets the reader pick (a plain tag or a CUDA map of both builds:
    ``render --cuda``; ``offered`` holds the cu130 ones)."""

    doc: LoadedDocument
    offered: list[Offered]
    landing: Configuration | None
    cu129: dict[int, Rendered] = field(default_factory=dict)


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
        if site_refusal(doc) is not None or ctx.taxonomy is None or not ctx.taxonomy.ok:
            return None  # js-yaml refuses the file: the site renders nothing of it
        try:
            strategies = site_strategies(ctx)
            landing = Configuration.defaults(doc, ctx.taxonomy, strategies) if strategies \
                else None
            offered = offered_renderings(doc, ctx)
            return Recipe(doc, offered, landing, cu129_renderings(doc, ctx, strategies, offered))
        except (JsTypeError, RecipeCheckError):  # what the site's build would stop on
            return None


def cu129_renderings(doc: LoadedDocument, ctx: Context, strategies: dict[str, LoadedDocument],
                     offered: list[Offered]) -> dict[int, Rendered]:
    """The cu129 rendering of each of ``offered`` (by index) whose NVIDIA image the site's
    page lets the reader pick the CUDA build of (:func:`~validator.render.docker.cuda_choice`:
    a plain tag, or a CUDA map of both builds), rendered sharing one memo
    (:func:`~validator.render.renderer.render_each`: a site rendering is reused across
    hardware where its hardware reads hold, as for the cu130 ones)."""
    taxonomy = document_data(ctx.taxonomy)
    variants = get(doc.data, "variants")
    picked: list[int] = []
    for i, o in enumerate(offered):
        config = o.rendered.config
        variant = or_(get(variants, config.variant), get(variants, "default"), {})
        meta = compute_docker_meta(doc.data, variant, hardware_profile(taxonomy, config.hardware),
                                   raw_id(config.hardware))
        if o.rendered.ok and cuda_choice(doc.data, meta):
            picked.append(i)
    made = render_each(doc, ctx.taxonomy, strategies,
                       [offered[i].rendered.config for i in picked], cuda="cu129")
    return dict(zip(picked, made, strict=True))

def store_tree(store: SnapshotStore) -> Callable[[dict[str, Any]], RecipeTree]:
    """The commit of a record's ``source`` as stored in ``store`` (every read
    re-verified)."""
    return lambda source: SnapshotTree(store, str(source["repository"]),
                                       str(source["revision"]), source.get("resolved_from"))
