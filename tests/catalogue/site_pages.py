"""The catalogue page of one recipe in a one-commit mini repository (the mini taxonomy
and strategy beside it), published and built as ``publish --site`` builds it -- with the
recipe read back for the configuration picker, or from the record alone."""

from __future__ import annotations

from pathlib import Path

from tests.evidence.conftest import MINI_STRATEGY, MINI_TAXONOMY, make_repo
from validator.evidence.attest import statement_bytes
from validator.evidence.publish import Publisher
from validator.evidence.record import build_record, record_bytes
from validator.evidence.site import build_site
from validator.evidence.site.renderings import RecipeReader
from validator.source.git import GitTree


def catalogue_page(tmp_path: Path, recipe: str, path: str, *, picker: bool) -> Path:
    """The record page of ``recipe`` at ``path``; ``picker``: built with its recipe."""
    tree = make_repo(tmp_path / "repo", {path: recipe, "taxonomy.yaml": MINI_TAXONOMY,
                                         "strategies/single_node_tp.yaml": MINI_STRATEGY})
    return record_page(tmp_path, tree, path, picker=picker)


def record_page(tmp_path: Path, tree: GitTree, path: str, *, picker: bool) -> Path:
    """The record page of the recipe at ``path`` of ``tree``, published and built in
    ``tmp_path``; ``picker``: built with its recipe."""
    record = build_record(tree, path, checked_on="2026-12-01")
    out = tmp_path / "out"
    with Publisher(out) as pub:
        pub.copy_schemas()
        pub.put(tree.repository, tree.commit, path, record_bytes(record),
                statement_bytes(record))
        pub.rebuild_index()
    site = tmp_path / "site"
    build_site(out, site, recipes=RecipeReader(lambda source: tree) if picker else None)
    (page,) = site.rglob(Path(path).name + ".html")
    return page
