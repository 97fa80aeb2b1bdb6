"""REF039: ``meta.tasks`` entries are task ids of the taxonomy of the same revision (the
real corpus at ``main``; ``pr``: tests/pr/test_task_vocabulary.py)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import check_tree, line_of, replace_once

RECIPE = "models/jinaai/jina-embeddings-v5-text-small.yaml"
EMBEDDING = "  - id: embedding\n"
AUDIO_TASK = ('  - id: audio\n    display_name: "Audio"\n'
              '    description: "Speech recognition and audio understanding"\n')


def task_findings(root: Path, path: str) -> list[tuple[str, str, int, str | None]]:
    return [(f.rule, f.pointer, f.line, f.hint) for f in check_tree(root, path)
            if f.rule == "REF039" or f.pointer.startswith("/meta/tasks")]


def rename_first_task(root: Path, task: str) -> str:
    """The recipe's first ``meta.tasks`` item (``embedding``) renamed ``task``; its text."""
    text = (root / RECIPE).read_text("utf-8")
    start = text.index("  tasks:\n") + len("  tasks:\n")
    item = text[start:text.index("\n", start) + 1]
    return replace_once(root / RECIPE, item, item.replace("embedding", task))


def test_a_task_the_taxonomy_does_not_define_is_an_error_at_its_item(
        corpus_copy: Path) -> None:
    text = rename_first_task(corpus_copy, "embeding")
    found = [f for f in check_tree(corpus_copy, RECIPE) if f.rule == "REF039"]
    assert [(f.pointer, f.line, f.severity.value, f.hint) for f in found] == [
        ("/meta/tasks/0", line_of(text, "embeding"), "error", "did you mean: embedding?")]


def test_a_task_the_same_revision_adds_to_the_taxonomy_is_accepted(corpus_copy: Path) -> None:
    """The vocabulary is the revision's taxonomy, not one frozen in the schema."""
    replace_once(corpus_copy / "taxonomy.yaml", EMBEDDING, AUDIO_TASK + EMBEDDING)
    rename_first_task(corpus_copy, "audio")
    assert task_findings(corpus_copy, RECIPE) == []


def test_a_taxonomy_without_a_task_list_judges_no_task(corpus_copy: Path) -> None:
    taxonomy = corpus_copy / "taxonomy.yaml"
    text = taxonomy.read_text("utf-8")
    start = text.index("\ntasks:\n") + 1
    end = text.index("\n\n", start) + 2
    taxonomy.write_text(text[:start] + text[end:], "utf-8")
    rename_first_task(corpus_copy, "anything")
    assert task_findings(corpus_copy, RECIPE) == []

