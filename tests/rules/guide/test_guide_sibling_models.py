"""``GUIDE009`` leaves a family guide's sections alone: a command serving the model of
another recipe of the tree (``models/<org>/<name>.yaml``) or of ``meta.related_recipes``
is a sibling shown on purpose; any other model is still reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once

CHAT = "models/example-org/Example-Chat-8B.yaml"
GUIDE = "guide: |\n"


def _serving(root: Path, model: str, related: str = "") -> str:
    if related:
        replace_once(root / CHAT, "meta:\n", f"meta:\n  related_recipes: [{related!r}]\n")
    return replace_once(root / CHAT, GUIDE, GUIDE + f"  ## Sibling\n\n  ```bash\n"
                        f"  vllm serve {model} --tensor-parallel-size 8\n  ```\n\n")


def _found(root: Path) -> list[tuple[str, int]]:
    return [(f.rule, f.line) for f in check_tree(root, CHAT) if f.rule == "GUIDE009"]


@pytest.mark.parametrize(("model", "related"), [
    ("example-org/Example-MoE-120B", ""),
    ("EXAMPLE-ORG/example-moe-120b", ""),
    ("other-org/Listed-Sibling-70B", "other-org/Listed-Sibling-70B"),
], ids=["recipe-of-the-tree", "hub-ids-ignore-case", "related-recipe"])
def test_a_sibling_model_of_the_family_is_no_finding(examples_tree: Path, model: str,
                                                      related: str) -> None:
    _serving(examples_tree, model, related)
    assert _found(examples_tree) == []


def test_a_model_of_no_recipe_is_still_reported(examples_tree: Path) -> None:
    text = _serving(examples_tree, "other-org/Unrelated-Model-8B")
    assert _found(examples_tree) == [("GUIDE009", line_of(text, "vllm serve other-org"))]
