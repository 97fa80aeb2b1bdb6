"""Open the tree a source spec names, with the backend the fetch options choose.

Above the backends (:mod:`validator.source.git`, :mod:`validator.source.http`,
:mod:`validator.source.snapshots`), which import :mod:`validator.source.spec` for the
spec's syntax; the commands import this module. The backends are imported when a spec is
opened, so that checking local files imports neither GitPython nor requests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.source.options import FetchOptions
from validator.source.spec import Spec
from validator.source.tree import RecipeTree, SourceError

if TYPE_CHECKING:
    from validator.source.snapshots import SnapshotStore

TreeKey = tuple[str, str, str, str]


def open_spec(spec: Spec, options: FetchOptions,
              trees: dict[TreeKey, RecipeTree] | None = None) -> tuple[RecipeTree, str]:
    """Open the tree ``spec`` names with the backend ``options`` choose.

    ``--offline`` reads the snapshot store only; otherwise ``options.backend`` is ``git``
    (:class:`~validator.source.git.GitTree`) or ``http``
    (:class:`~validator.source.http.HttpTree`). ``trees`` caches one tree per
    (backend, repository, revision), so that several specs of one revision share one tree
    and one context. Expected digests (``--expect-sha256``, and the snapshot lock file's
    entry for the same repository, commit and path) are registered on the tree, which
    then raises a PROV002 :class:`~validator.source.verify.VerificationError` from
    ``provenance`` when the bytes differ.

    Returns:
        ``(tree, path)``; ``path`` is ``spec.path``.

    Raises:
        SourceError: the repository, revision or store cannot be opened.
    """
    from validator.source.snapshots import SnapshotStore, SnapshotTree

    backend = "offline" if options.offline else options.backend
    key = (backend, spec.repository, spec.rev, str(options.store_dir))
    tree = trees.get(key) if trees is not None else None
    store = SnapshotStore(options.store_dir)
    if tree is None:
        if options.offline:
            tree = SnapshotTree.open(store, spec.repository, spec.rev)
        elif options.backend == "http":
            from validator.source.http import HttpTree

            tree = HttpTree.open(spec.repository, spec.rev, options)
        elif options.backend == "git":
            from validator.source.git import GitTree

            tree = GitTree.open(spec.repository, spec.rev, options)
        else:
            raise SourceError(f"unknown backend {options.backend!r} (git or http)")
        if trees is not None:
            trees[key] = tree
    _register_expectations(tree, spec.repository, spec.path, options, store)
    return tree, spec.path


def _register_expectations(tree: RecipeTree, repository: str, path: str,
                           options: FetchOptions, store: SnapshotStore) -> None:
    expect = getattr(tree, "expect", None)
    if callable(expect) and tree.revision is not None:
        locked = store.entry(repository, tree.revision, path)
        if locked is not None:
            expect(path, locked.sha256, f"lock file {store.lock_path}")
        if options.expect_sha256:
            expect(path, options.expect_sha256, "--expect-sha256")


RECIPE_SUFFIXES = (".yaml", ".yml")


def _unreadable_entries(tree: RecipeTree, folder: str) -> list[str]:
    """Entries below ``folder`` that are no regular file and may hold a recipe: those with
    a recipe's name, and every submodule entry (for trees that can tell; see
    :func:`open_targets`)."""
    not_files = getattr(tree, "not_files", None)
    gitlinks = getattr(tree, "gitlinks", None)
    named = [p for p in not_files(folder) if p.endswith(RECIPE_SUFFIXES)] \
        if callable(not_files) else []
    return [*named, *(gitlinks(folder) if callable(gitlinks) else [])]


def open_targets(spec: Spec, options: FetchOptions,
                 trees: dict[TreeKey, RecipeTree] | None = None
                 ) -> tuple[RecipeTree, list[str]]:
    """:func:`open_spec`, with a folder ``PATH`` expanded to the ``.yaml`` files below it
    at that revision (as local folders are); expected digests are registered per file.

    The expansion fails closed, as ``pr`` does: an entry that is no regular file but has a
    recipe's name (a symbolic link, a submodule entry) and every submodule entry (a
    gitlink names a commit of another repository, whose recipes this revision does not
    hold) are listed too, so that reading each gives a PROV005 error naming it instead of
    the folder passing without it.

    Returns:
        ``(tree, paths)``; ``[spec.path]`` when it is a file or does not exist (reading it
        then reports the missing path).
    """
    from validator.source.snapshots import SnapshotStore

    tree, path = open_spec(spec, options, trees)
    if tree.exists(path):
        return tree, [path]
    listed = [p for p in tree.list(path) if p.endswith(RECIPE_SUFFIXES)]
    listed = sorted({*listed, *_unreadable_entries(tree, path)})
    store = SnapshotStore(options.store_dir)
    for p in listed:
        _register_expectations(tree, spec.repository, p, options, store)
    return tree, listed or [path]
