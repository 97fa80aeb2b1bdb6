"""A recipe in a folder below ``models/<org>/`` is published by the site under
``<org>/<file name>`` (its build walks ``models/`` recursively): REF001 compares
``model_id`` with that id, and REF013 finds related recipes by it (real corpus at
``main``: ``jina-embeddings-v5-text-small`` lists ``jinaai/jina-reranker-m0``)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import check_tree
from validator.paths import site_hf_id

RERANKER = "models/jinaai/jina-reranker-m0.yaml"
EMBEDDINGS = "models/jinaai/jina-embeddings-v5-text-small.yaml"


def move(root: Path, new: str) -> None:
    text = (root / RERANKER).read_text("utf-8")
    (root / RERANKER).unlink()
    (root / new).parent.mkdir(parents=True)
    (root / new).write_text(text, "utf-8")


def findings(root: Path, path: str, rule: str) -> list[tuple[str, str]]:
    return [(f.pointer, f.message) for f in check_tree(root, path) if f.rule == rule]


def test_a_recipe_moved_deeper_under_another_file_name_gets_ref001_and_dangling_links(
        corpus_copy: Path) -> None:
    nested = "models/jinaai/jina-reranker-m0.yaml/x.yaml"
    move(corpus_copy, nested)
    assert site_hf_id(nested) == ("jinaai", "x")
    assert findings(corpus_copy, nested, "REF001") == [
        ("/model/model_id", f"model_id 'jinaai/jina-reranker-m0' does not match the file "
                            f"path {nested!r}")]
    assert [p for p, _ in findings(corpus_copy, EMBEDDINGS, "REF013")] == [
        "/meta/related_recipes/0"]


def test_a_recipe_moved_deeper_under_its_own_name_keeps_its_id(corpus_copy: Path) -> None:
    nested = "models/jinaai/rerankers/jina-reranker-m0.yaml"
    move(corpus_copy, nested)
    assert findings(corpus_copy, nested, "REF001") == []
    assert findings(corpus_copy, EMBEDDINGS, "REF013") == []
