"""``FLAG036``: a generative runner (``--runner generate``, ``--task generate``) in an
argument list of a recipe whose ``meta.tasks`` is only ``embedding``. On the small tree
of ``test_flag_overrides``, with its task made ``embedding``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import line_of
from tests.rules.flag.test_flag_overrides import RECIPE, edit, found, tree
from validator.rules.flag.runner_task import runner_choices

EMBEDDING = edit(RECIPE, "  tasks:\n    - text\n", "  tasks:\n    - embedding\n")
BASE_END = '    - "8192"\n'


def with_args(recipe: str, *items: str) -> str:
    """``recipe`` with ``items`` appended to ``model.base_args``."""
    return edit(recipe, BASE_END, BASE_END + "".join(f'    - "{i}"\n' for i in items))


@pytest.mark.parametrize(("items", "pointer"), [
    (("--runner", "generate"), "/model/base_args/3"),
    (("--runner=generate",), "/model/base_args/2"),
    (("--runner draft",), "/model/base_args/2"),
])
def test_a_generative_runner_on_an_embedding_recipe_is_an_error(
        tmp_path: Path, items: tuple[str, ...], pointer: str) -> None:
    text = with_args(EMBEDDING, *items)
    (hit,) = found(tree(tmp_path, text), "FLAG036", False)
    assert hit.severity.value == "error" and hit.pointer == pointer
    assert hit.line == line_of(text, items[-1])
    assert "meta.tasks lists only `embedding`" in hit.message
    assert hit.hint is not None and "--runner pooling" in hit.hint


@pytest.mark.parametrize(("recipe", "items"), [
    (EMBEDDING, ("--runner", "pooling", "--convert", "embed")),
    (RECIPE, ("--runner", "generate")),  # a text recipe
    (edit(EMBEDDING, "    - embedding\n", "    - embedding\n    - text\n"),
     ("--runner", "generate")),  # a model served for both
])
def test_a_runner_that_fits_the_tasks_is_no_finding(tmp_path: Path, recipe: str,
                                                    items: tuple[str, ...]) -> None:
    assert found(tree(tmp_path, with_args(recipe, *items)), "FLAG036", False) == []


def test_runner_choices_reads_every_spelling_of_the_option() -> None:
    tokens = ("--task", "generate", "--max-model-len", "8192", "--task=embed",
              "--runner pooling", "--runner")
    assert list(runner_choices(tokens)) == [(1, "--task", "generate"), (4, "--task", "embed"),
                                            (5, "--runner", "pooling")]
