"""What the in-process checks of one test process share: the vendored CLI registries and
the loaded context files of equal trees.

A run of the checker builds one :class:`~validator.vllm_cli.data_source.CliRegistries`
and gives it to each context it checks against (:class:`validator.session.Session`): the
loaded releases and what the rules derive from them (release plans, parsed argument
lists, first and last releases of names) are then computed once per run, not once per
recipe. Tests that check a small tree in process (:func:`tests.conftest.check_tree`) are,
taken together, one such run over many trees: they share the registries of the project's
vendored data the same way (one per pytest process, so per xdist worker), rather than
each building them anew, which cost about a sixth of checking a large recipe. Settings
that name another vendored folder (a test's own copy, which it may edit) get their own
registries, as before.

Most of those trees are copies of the same corpus with one recipe changed: their context
files (taxonomy, strategies, kv-store options) and recipe list are equal, and loading
them again cost about a tenth of checking a large recipe. :func:`shared_context` loads
them once per distinct content and gives each tree its own context over them (its own
tree, memo and derived views), as one run's contexts share nothing but what they read.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import OrderedDict
from functools import cache
from pathlib import Path

from validator.context import (
    KV_STORE,
    MODELS,
    STRATEGIES,
    TAXONOMY,
    Context,
    Settings,
    build_context,
)
from validator.source.tree import LocalTree, SourceError
from validator.vllm_cli.data_source import CliRegistries

_KEPT = 8
"""How many distinct context contents a process keeps loaded (least recently used first
out): the corpus's, and the few a test changes."""

_LOADED: OrderedDict[tuple[str, str], Context] = OrderedDict()
"""(content digest, settings) -> a context built over that content, never checked with
(its memo stays empty): only its loaded files are handed on."""


@cache
def _project_registries() -> CliRegistries:
    return CliRegistries()


def shared_registries(settings: Settings) -> CliRegistries | None:
    """The process's registries of the project's vendored data when ``settings`` read
    those (seen through the settings' release window by the context); ``None`` when they
    name a vendored folder of their own (the context then builds its registries)."""
    return _project_registries() if settings.vendored_dir is None else None


def context_inputs(tree: LocalTree) -> str:
    """Digest of everything :func:`~validator.context.build_context` reads of ``tree``,
    read through the same tree (its refusals raise :class:`SourceError`): the bytes
    of the taxonomy and of every file under the strategies and kv-store folders, and the
    names of the files under the recipes folder. Raises what reading them raises."""
    h = hashlib.sha256()
    if tree.exists(TAXONOMY):
        h.update(b"T" + hashlib.sha256(tree.read(TAXONOMY)).digest())
    for folder in (STRATEGIES, KV_STORE):
        for path in tree.list(folder):
            h.update(f"F{path}\0".encode() + hashlib.sha256(tree.read(path)).digest())
    for path in tree.list(MODELS):
        h.update(f"M{path}\0".encode())
    return h.hexdigest()


def shared_context(root: Path, settings: Settings) -> Context:
    """The context of the recipes tree at ``root`` (what ``build_context`` builds), its
    context files loaded once per distinct content and settings in this process; the
    context is the tree's own (its tree, an empty memo)."""
    tree = LocalTree(root)
    cli = shared_registries(settings)
    if cli is None:  # a vendored folder of the test's own: nothing shared
        return build_context(tree, settings)
    try:
        key = (context_inputs(tree), repr(settings))
    except (OSError, SourceError):  # a file it may never read: leave it to build_context
        return build_context(tree, settings, cli)
    loaded = _LOADED.get(key)
    if loaded is None:
        loaded = _LOADED[key] = build_context(tree, settings, cli)
        if len(_LOADED) > _KEPT:
            _LOADED.popitem(last=False)
    else:
        _LOADED.move_to_end(key)
    return dataclasses.replace(loaded, tree=tree, settings=settings, _memo={})
