"""Everything a check may consult besides the recipe itself, from the *same* revision.

Upstream's site build reads a recipe together with ``taxonomy.yaml`` (hardware profiles,
the controlled vocabulary) and ``strategies/*.yaml``; a recipe is only meaningful against
the taxonomy and strategies of its own revision, so a :class:`Context` is always built
from one :class:`~validator.source.tree.RecipeTree`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, NoReturn, TypeVar, cast

from validator.load import LoadedDocument, load_yaml
from validator.load.jsstring import js_str
from validator.paths import name_bytes, undecodable_name
from validator.rules.metadata import TREE_PARTS, Reads
from validator.settings import Settings as Settings  # re-exported
from validator.source.local import STRATEGIES, TAXONOMY, find_root
from validator.source.roots import PLATFORMS
from validator.source.tree import LocalTree, RecipeTree
from validator.vllm_cli.data_source import CliRegistries, Window

T = TypeVar("T")

__all__ = ["KV_STORE", "MODELS", "PLATFORMS", "STRATEGIES", "TAXONOMY", "Context", "Loader",
           "PartialTree", "Settings", "UndeclaredRead", "build_context", "find_root",
           "local_context"]

KV_STORE = "kv_store"
MODELS = "models"


class UndeclaredRead(Exception):
    """A rule used a part of the context it did not declare in ``reads`` (a bug in the
    rule's declaration: its cached results would not be keyed on what it read)."""


class Unreadable:
    """Stands in for a context part a rule did not declare: any use of it (an attribute,
    truth value, iteration, membership, indexing, length, set operators, comparison)
    raises :class:`UndeclaredRead` naming the part."""

    def __init__(self, part: Reads) -> None:
        self._part = part

    def _refuse(self, *_args: object) -> NoReturn:
        raise UndeclaredRead(f"read {self._part.name} ({self._part.value}) without declaring "
                             f"Reads.{self._part.name} in @rule(..., reads=...)")

    def __getattr__(self, name: str) -> NoReturn:
        self._refuse()

    __bool__ = __iter__ = __len__ = __contains__ = __getitem__ = _refuse
    __and__ = __rand__ = __or__ = __ror__ = __sub__ = __rsub__ = __xor__ = __rxor__ = _refuse
    __lt__ = __le__ = __gt__ = __ge__ = _refuse

    def __repr__(self) -> str:
        return f"Unreadable({self._part.name})"


class PartialTree:
    """Stands in for the tree of a context limited to some of its files
    (:data:`~validator.rules.metadata.TREE_PARTS` short of ``Reads.TREE``): ``platforms.yaml``
    with ``Reads.PLATFORMS``, the recipe files with ``Reads.VARIANT_CLAIMS``. Reading or
    asking for any other file, listing, or any other use raises :class:`UndeclaredRead`
    naming the part that would allow it."""

    def __init__(self, tree: RecipeTree, allowed: frozenset[Reads]) -> None:
        self._tree = tree
        self.allowed = allowed & TREE_PARTS

    @staticmethod
    def part_of(path: str) -> Reads:
        """The narrowest part that makes ``path`` readable."""
        if path == PLATFORMS:
            return Reads.PLATFORMS
        if path.startswith(MODELS + "/") and path.endswith((".yaml", ".yml")):
            return Reads.VARIANT_CLAIMS
        return Reads.TREE

    def _allow(self, path: str) -> None:
        part = self.part_of(path)
        if part not in self.allowed:
            Unreadable(part)._refuse()

    def read(self, path: str) -> bytes:
        """The bytes of an allowed ``path`` (see :meth:`RecipeTree.read`)."""
        self._allow(path)
        return self._tree.read(path)

    def exists(self, path: str) -> bool:
        """Whether the tree has the allowed ``path``."""
        self._allow(path)
        return self._tree.exists(path)

    @property
    def blob_id(self) -> Callable[[str], str | None] | None:
        """Where the tree names its files' git blob ids without reading them (``blob_id``
        of a commit's tree): that look-up, for allowed paths only; else ``None``."""
        named: Callable[[str], str | None] | None = getattr(self._tree, "blob_id", None)
        if named is None:
            return None

        def blob_id(path: str) -> str | None:
            self._allow(path)
            return named(path)

        return blob_id

    def __getattr__(self, name: str) -> NoReturn:
        Unreadable(Reads.TREE)._refuse()

    def __bool__(self) -> NoReturn:
        Unreadable(Reads.TREE)._refuse()

    def __repr__(self) -> str:
        return f"PartialTree({', '.join(sorted(p.name for p in self.allowed))})"


_PARTS: dict[Reads, str] = {Reads.TAXONOMY: "taxonomy", Reads.STRATEGIES: "strategies",
                            Reads.KV_STORES: "kv_stores", Reads.RECIPE_LIST: "recipe_paths",
                            Reads.TREE: "tree"}
"""The :class:`Context` field each context part is read through (the parts of
:data:`~validator.rules.metadata.TREE_PARTS`: ``tree``, whole or a :class:`PartialTree`)."""


@dataclass
class Context:
    """The taxonomy, strategies, kv-store options and recipe list of one revision.

    Attributes:
        tree: the revision they were read from.
        taxonomy: loaded ``taxonomy.yaml`` or ``None`` when the tree has none.
        strategies: strategy name (file stem) -> loaded document.
        kv_stores: kv-store option name (file stem) -> loaded document.
        recipe_paths: every ``models/**.yaml`` path in the tree.
        settings: run-wide options.
        cli: the vendored CLI registries the rules read, seen through the release window
            of ``settings`` (``--as-of``, ``--vllm``): given at construction (the driver,
            :class:`validator.session.Session`, builds one per run and shares it with
            every context of the run, each seeing it through its own window,
            :meth:`CliRegistries.at`); when none is given, the registries ``settings``
            name.
        renderings: where the site renderings of a recipe text are kept for the next
            text of the recipe (:func:`validator.render.cache.rendered_configurations`,
            :mod:`validator.render.recipe_reads`): given at construction like ``cli`` (the
            session builds one store per run and gives it to every context of the run:
            check's trees, ``pr``'s base and head, each text a fix tries, and their
            :meth:`limited_to` copies); a context built without one keeps its own.
    """

    tree: RecipeTree
    taxonomy: LoadedDocument | None
    strategies: dict[str, LoadedDocument]
    kv_stores: dict[str, LoadedDocument]
    recipe_paths: frozenset[str]
    settings: Settings = field(default_factory=Settings)
    # None only as the constructor's default: __post_init__ replaces it
    cli: CliRegistries = field(default=None, repr=False, compare=False)  # type: ignore[assignment]
    renderings: OrderedDict[Any, Any] = field(default_factory=OrderedDict, repr=False,
                                              compare=False)

    _memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        window = Window.of(self.settings)
        if self.cli is None:
            self.cli = CliRegistries.from_settings(self.settings)
        elif self.cli.window != window:
            self.cli = self.cli.at(window)

    @property
    def revision(self) -> str | None:
        """Commit id of the tree, ``None`` for a working tree."""
        return self.tree.revision

    def memoised(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()`` once per context under ``key``: derived views of the context
        (normalised hardware profiles, key sets) that checks ask for on every recipe."""
        if key not in self._memo:
            self._memo[key] = compute()
        value: T = self._memo[key]
        return value

    def forget_document(self, path: str, sha256: str) -> int:
        """Drop the per-document state of one document content, once its rules have run
        (:meth:`validator.checker.Checker.check_recipe`): the memo entries that
        :func:`validator.analysis.cli_plan.per_document` keys ``<name>:<path>:<sha256>:
        <window>``. A corpus run would otherwise hold the layer models, rendered facts and
        install ranges of every recipe until it ends; one asked for again is recomputed.
        Returns how many entries were dropped."""
        if not sha256:  # never memoised (a document built by hand)
            return 0
        mark = f":{path}:{sha256}:"
        gone = [k for k in self._memo if isinstance(k, str) and mark in k]
        for key in gone:
            del self._memo[key]
        return len(gone)

    @cached_property
    def hardware_profiles(self) -> dict[str, dict[str, Any]]:
        """Taxonomy ``hardware_profiles``: id -> profile mapping (empty when unknown)."""
        data = self.taxonomy.data if self.taxonomy and self.taxonomy.ok else {}
        profiles = data.get("hardware_profiles") if isinstance(data, dict) else None
        if not isinstance(profiles, dict):
            return {}
        return {k: v for k, v in profiles.items() if isinstance(v, dict)}

    @cached_property
    def hardware_groups(self) -> dict[str, set[str]]:
        """Brand and generation keys the taxonomy uses -> the profile ids they cover.

        Keys are lower-cased (``nvidia``, ``amd``, ``hopper``, ``blackwell``, ``cdna3`` ...),
        as recipes write them in ``hardware_overrides`` and similar maps.
        """
        groups: dict[str, set[str]] = {}
        for hw_id, profile in self.hardware_profiles.items():
            for attr in ("brand", "generation"):
                value = profile.get(attr)
                if isinstance(value, str) and value:
                    groups.setdefault(value.lower(), set()).add(hw_id)
        return groups

    def strategy_document(self, name: str) -> LoadedDocument | None:
        """The ``strategies/`` file the site renders for strategy ``name``: keyed by its
        ``name`` field as the site's build keys it (a later file in byte order replaces an
        earlier one), not by its file name; ``None`` when no file claims ``name``. A file
        whose ``name`` is not its file name, or is another file's, is ``REF027`` on that
        file (:mod:`validator.rules.ref.context_names`)."""
        return self.memoised("strategies:by-name", lambda: by_claimed_name(
            self.strategies.values())).get(name)

    def strategy_names(self) -> list[str]:
        """The names the site's build files the ``strategies/`` files under (their ``name``
        fields, :meth:`strategy_document`), sorted: what a recipe's ``compatible_strategies``,
        ``strategy_overrides`` and ``default_strategy`` can name. A file renamed without its
        ``name`` keeps its old name here (and is ``REF027``)."""
        return self.memoised("strategies:names", lambda: sorted(by_claimed_name(
            self.strategies.values())))

    def kv_store_names(self) -> list[str]:
        """The names the site's build files the ``kv_store/`` files under, sorted."""
        return self.memoised("kv_stores:names", lambda: sorted(by_claimed_name(
            self.kv_stores.values())))

    def strategy_data(self, name: str) -> dict[str, Any] | None:
        """Data of strategy ``name`` (:meth:`strategy_document`) or ``None`` when there is
        no such strategy."""
        doc = self.strategy_document(name)
        return doc.data if doc is not None and doc.ok else None

    def limited_to(self, reads: Iterable[Reads]) -> Context:
        """A copy of this context (same settings, its own memo) whose parts outside
        ``reads`` are :class:`Unreadable`: a rule run on it that uses one raises
        :class:`UndeclaredRead`. ``reads`` holding every part gives an unrestricted
        copy."""
        allowed = frozenset(reads)
        parts = {name: (getattr(self, name) if part in allowed else cast(Any, Unreadable(part)))
                 for part, name in _PARTS.items()}
        if Reads.TREE not in allowed:
            parts["tree"] = cast(Any, PartialTree(self.tree, allowed))
        return Context(settings=self.settings, cli=self.cli, renderings=self.renderings,
                       **parts)

    def can_read(self, reads: Iterable[Reads]) -> bool:
        """Whether every part in ``reads`` is readable here (not limited away by
        :meth:`limited_to`)."""
        wanted = frozenset(reads)
        if isinstance(self.tree, PartialTree) and wanted & TREE_PARTS - self.tree.allowed:
            return False
        return not any(isinstance(getattr(self, _PARTS[p]), Unreadable)
                       for p in wanted if p in _PARTS)

    def context_documents(self) -> list[LoadedDocument]:
        """Taxonomy, strategies and kv-store documents, for checking them in turn (on a
        :meth:`limited_to` copy, those of its readable parts)."""
        docs = [self.taxonomy] if not isinstance(self.taxonomy, Unreadable) and self.taxonomy \
            else []
        for part in (self.strategies, self.kv_stores):
            if not isinstance(part, Unreadable):
                docs += part.values()
        return docs


def claimed_name(doc: LoadedDocument) -> str:
    """The key the site's build files a strategy or kv-store document under: its ``name``
    field as JavaScript prints it (``"undefined"`` when absent; a document that does not
    load claims ``"undefined"`` too, as the site would fail on it)."""
    name = doc.data.get("name") if doc.ok and isinstance(doc.data, dict) else None
    return "undefined" if name is None else js_str(name)


def by_claimed_name(docs: Iterable[LoadedDocument]) -> dict[str, LoadedDocument]:
    """``docs`` keyed by :func:`claimed_name`, in byte order of their paths (a later
    document claiming a name replaces an earlier one, as the site's build does)."""
    return {claimed_name(d): d for d in sorted(docs, key=lambda d: name_bytes(d.path))}


def context_paths(tree: RecipeTree, folder: str) -> list[str]:
    """The documents of the context ``folder`` of ``tree`` (``strategies/``,
    ``kv_store/``): its ``.yaml``/``.yml`` files, links and all, as listed, with a name
    that is not valid UTF-8 among them (:func:`_load_dir` leaves those out)."""
    return [p for p in tree.list(folder) if p.endswith((".yaml", ".yml")) and p.count("/") == 1]


Loader = Callable[[str], LoadedDocument]
"""Loads the context file at a path of the tree a context is built from: by default
``load_yaml`` of its bytes with the settings' ``max_bytes``; a caller that builds many
contexts of trees sharing files (the history audit's revisions) passes one that loads
each file content once."""


def _load_dir(tree: RecipeTree, folder: str, load: Loader) -> dict[str, LoadedDocument]:
    """The documents of ``folder`` by file stem, each loaded by ``load``; one whose name
    is not valid UTF-8 is not read (the site's build, which lists names as text, cannot
    open it either): it is no part of any rendering or key, and ``check`` reports it
    ``PROV006`` (:meth:`validator.session_root_files.RootFileChecks._check_undecodable_context`)."""
    out: dict[str, LoadedDocument] = {}
    for path in context_paths(tree, folder):
        if undecodable_name(path) is None:
            name = path.rsplit("/", 1)[1].rsplit(".", 1)[0]
            out[name] = load(path)
    return out


def build_context(tree: RecipeTree, settings: Settings | None = None,
                  cli: CliRegistries | None = None,
                  renderings: OrderedDict[Any, Any] | None = None,
                  load: Loader | None = None) -> Context:
    """Load the context files of ``tree`` (``cli``: the run's CLI registries, shared with
    the run's other contexts; default: those ``settings`` name; ``renderings``: the run's
    store of site renderings, shared likewise; default: one of the context's own;
    ``load``: how a context file is loaded, default ``load_yaml`` of its bytes, see
    :data:`Loader`).

    Raises:
        validator.source.tree.SourceError: a context file could not be read.
    """
    settings = settings or Settings()
    max_bytes = settings.max_bytes
    load = load or (lambda path: load_yaml(tree.read(path), path, max_bytes=max_bytes))
    taxonomy = load(TAXONOMY) if tree.exists(TAXONOMY) else None
    recipes = frozenset(p for p in tree.list(MODELS) if p.endswith((".yaml", ".yml")))
    return Context(
        tree=tree,
        taxonomy=taxonomy,
        strategies=_load_dir(tree, STRATEGIES, load),
        kv_stores=_load_dir(tree, KV_STORE, load),
        recipe_paths=recipes,
        settings=settings,
        cli=cli or CliRegistries.from_settings(settings),
        renderings=OrderedDict() if renderings is None else renderings,
    )


def local_context(root: Path, settings: Settings | None = None) -> Context:
    """:func:`build_context` for a folder on disk."""
    return build_context(LocalTree(root), settings)
