"""The context :func:`tests.conftest.check_tree` checks against, shared between equal
trees (:mod:`tests.shared_context`), is the context ``build_context`` builds: what it
loaded follows every context file and the recipe list, and nothing derived leaks from
one tree's context to another's."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.conftest import EXAMPLES
from tests.shared_context import shared_context
from validator.context import Context, Settings, local_context
from validator.load import LoadedDocument


def _loaded(ctx: Context) -> tuple[object, ...]:
    """What a context loaded of its tree: file digests and data, the recipe list."""
    def docs(part: dict[str, LoadedDocument]) -> dict[str, tuple[str, str, Any]]:
        return {name: (d.path, d.sha256, d.data) for name, d in part.items()}
    taxonomy = ctx.taxonomy
    return ((taxonomy.path, taxonomy.sha256, taxonomy.data) if taxonomy else None,
            docs(ctx.strategies), docs(ctx.kv_stores), ctx.recipe_paths)


def _copy(tmp_path: Path, name: str) -> Path:
    return Path(shutil.copytree(EXAMPLES, tmp_path / name))


def test_a_shared_context_is_the_one_build_context_builds(tmp_path: Path) -> None:
    root = _copy(tmp_path, "a")
    settings = Settings(strict=True)
    ctx = shared_context(root, settings)
    assert _loaded(ctx) == _loaded(local_context(root, settings))
    assert ctx.tree.label == str(root) and ctx.settings is settings


def _append(file: Path) -> None:
    file.write_text(file.read_text("utf-8") + "\n# changed\n", "utf-8")


def _change(root: Path, what: str) -> None:
    if what == "taxonomy":
        _append(root / "taxonomy.yaml")
    elif what == "strategy":
        _append(root / "strategies" / "single_node_tp.yaml")
    elif what == "kv store":
        (root / "kv_store").mkdir()
        (root / "kv_store" / "x.yaml").write_text("name: x\n", "utf-8")
    else:
        (root / "models" / "example-org" / "new.yaml").write_text("{}\n", "utf-8")


def test_each_context_file_and_the_recipe_list_are_read_again_when_they_change(
        tmp_path: Path) -> None:
    first = shared_context(_copy(tmp_path, "first"), Settings())
    for what in ("taxonomy", "strategy", "kv store", "recipe list"):
        root = _copy(tmp_path, what.replace(" ", "-"))
        _change(root, what)
        ctx = shared_context(root, Settings())
        assert _loaded(ctx) == _loaded(local_context(root, Settings())), what
        assert _loaded(ctx) != _loaded(first), what


def test_contexts_of_equal_trees_share_loaded_files_but_nothing_derived(
        tmp_path: Path) -> None:
    one = shared_context(_copy(tmp_path, "one"), Settings())
    two = shared_context(_copy(tmp_path, "two"), Settings())
    assert one.taxonomy is two.taxonomy  # loaded once
    one.memoised("probe", lambda: "one's")
    assert two.memoised("probe", lambda: "two's") == "two's"
    assert one.tree.label != two.tree.label
    assert one.cli is two.cli  # the process's registries, as one run's contexts share
