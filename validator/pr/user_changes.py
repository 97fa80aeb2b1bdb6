"""For the PR job summary: what the change does to each checked recipe's users
(:mod:`validator.recipe_diff` between the merge base and the head, each with its own
taxonomy and strategies).

Rendering every configuration of a large recipe takes about a second per side, so at most
:data:`DIFF_LIMIT` recipes are compared (changed files first, then recipes selected
because a taxonomy or strategy entry they use changed); the summary says how many more
were not. Every feature set of each configuration is compared, as ``recipe-check diff``
does: the summary and ``diff`` give one answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from validator.context import build_context
from validator.load import load_yaml
from validator.recipe_diff import RecipeDiff, Side, absent_side, diff_recipes
from validator.render.renderer import site_strategies
from validator.source.git import GitTree
from validator.source.tree import RecipeTree, SourceError

DIFF_LIMIT = 20
"""Recipes compared for one summary."""


@dataclass
class UserChanges:
    """The diffs of one run: ``(head path, diff or None for an added recipe)`` and how
    many recipes were not compared (over :data:`DIFF_LIMIT`)."""

    diffs: list[tuple[str, RecipeDiff | None]]
    not_compared: int = 0

    def markdown(self) -> list[str]:
        """The summary section (empty when nothing changes for users)."""
        from validator.report.markdown import escape_md, recipe_diff_lines

        blocks: list[str] = []
        for path, diff in self.diffs:
            if diff is None:
                blocks += [f"#### {escape_md(path)}", "", "A new recipe.", ""]
            elif diff.added:
                blocks += [*recipe_diff_lines(diff, f"{path} (a new recipe)")]
            elif diff.changed:
                blocks += recipe_diff_lines(diff, path)
        if not blocks and not self.not_compared:
            return []
        out = ["### What changes for users", ""] + (blocks or [
            "The rendered commands and facts of the compared recipes do not change.", ""])
        if self.not_compared:
            out += [f"_{self.not_compared} more recipe(s) not compared (at most "
                    f"{DIFF_LIMIT} per summary); run `recipe-check diff` for them._", ""]
        return out


def _side(tree: RecipeTree, path: str, label: str, cache: dict[int, Side]) -> Side:
    key = id(tree)
    if key not in cache:
        ctx = build_context(tree)
        cache[key] = Side("", load_yaml(b"{}", "-"), ctx.taxonomy, site_strategies(ctx))
    ctx_side = cache[key]
    return Side(label, load_yaml(tree.read(path), path), ctx_side.taxonomy,
                ctx_side.strategies)


def user_changes(base_tree: GitTree, head_tree: GitTree,
                 recipes: Sequence[tuple[str, str | None]]) -> UserChanges:
    """Diffs of ``recipes`` (``(head path, base path or None when added)``, in the order
    to compare them) from ``base_tree`` (the merge base) to ``head_tree``."""
    cache: dict[int, Side] = {}
    out = UserChanges([])
    for head_path, base_path in recipes[:DIFF_LIMIT]:
        try:
            new = _side(head_tree, head_path, f"{head_tree.commit[:12]}:{head_path}", cache)
            old = _side(base_tree, base_path, f"{base_tree.commit[:12]}:{base_path}", cache) \
                if base_path is not None else absent_side(
                    f"{base_tree.commit[:12]}:{head_path}", head_path, new.taxonomy,
                    new.strategies)
        except (SourceError, FileNotFoundError):
            if base_path is None:
                out.diffs.append((head_path, None))
            continue  # unreadable: reported by the check itself
        out.diffs.append((head_path, diff_recipes(old, new)))
    out.not_compared = max(0, len(recipes) - DIFF_LIMIT)
    return out

