"""``pr`` and ``REF033`` (a strategy meant for another model architecture): new exactly
when the change made the pair (selected the strategy, added the recipe, changed either
architecture), also when the strategy file is unchanged; existing otherwise. Real git
repositories holding our example recipes tree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import commit_all, git, pr_json

CHAT = "models/example-org/Example-Chat-8B.yaml"
"""A dense recipe listing ``single_node_tp`` only."""
OTHER = "strategies/multi_node_tp.yaml"


def edit(repo: Path, path: str, old: str, new: str) -> None:
    file = repo / path
    text = file.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    file.write_text(text.replace(old, new), encoding="utf-8")


def moe_only(repo: Path) -> None:
    """The other strategy says it is meant for MoE models."""
    edit(repo, OTHER, "  multi_node: true\n", "  multi_node: true\n  architecture: moe\n")


def select_other(repo: Path) -> None:
    edit(repo, CHAT, "  - single_node_tp\n", "  - single_node_tp\n  - multi_node_tp\n")


def states(data: dict[str, Any]) -> list[tuple[str, int, str]]:
    return [(doc["path"], f["line"], f["baseline"]) for doc in data["documents"]
            for f in doc["findings"] if f["rule"] == "REF033"]


def test_selecting_a_moe_only_strategy_on_a_dense_recipe_is_new(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The strategy file is the base's: the finding is new all the same, on the line the
    change adds (without the pair exception it would be the unchanged file's defect)."""
    moe_only(example_repo)
    commit_all(example_repo, "the other strategy is MoE only")
    git(example_repo, "branch", "base")
    select_other(example_repo)
    commit_all(example_repo, "the dense recipe offers it")
    _code, data = pr_json(example_repo, "base", "HEAD", capsys)
    assert states(data) == [(CHAT, 47, "new")]


def test_a_recipe_edit_beside_an_existing_pair_keeps_it_existing(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    moe_only(example_repo)
    select_other(example_repo)
    commit_all(example_repo, "the dense recipe offers a MoE-only strategy")
    git(example_repo, "branch", "base")
    edit(example_repo, CHAT, "  - single_node_tp\n", "  - single_node_tp\n  # both\n")
    commit_all(example_repo, "a comment")
    _code, data = pr_json(example_repo, "base", "HEAD", capsys)
    assert states(data) == [(CHAT, 48, "unchanged")]


def test_a_strategy_turned_moe_only_is_new_on_the_strategy(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The change edits the strategy: the finding is reported on it, at its
    ``architecture`` line, naming the recipe."""
    select_other(example_repo)
    commit_all(example_repo, "the dense recipe offers the other strategy")
    git(example_repo, "branch", "base")
    moe_only(example_repo)
    commit_all(example_repo, "the other strategy is MoE only")
    _code, data = pr_json(example_repo, "base", "HEAD", capsys)
    assert states(data) == [(OTHER, 11, "new")]
