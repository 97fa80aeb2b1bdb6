"""``LocalTree.list`` resolves only symbolic links: the same files as a full ``rglob`` with
every path resolved (links leaving the root, dangling links, folder links, FIFOs and
unreadable folders included)."""

from __future__ import annotations

import os
from pathlib import Path

from validator.source.tree import LocalTree


def _by_rglob(tree: LocalTree, prefix: str) -> list[str]:
    return sorted(rel for rel in (p.relative_to(tree.root).as_posix()
                                  for p in (tree.root / prefix).rglob("*")) if tree.exists(rel))


def test_list_equals_resolving_every_path(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text("a: 1\n")
    root = tmp_path / "root"
    models = root / "models" / "org"
    models.mkdir(parents=True)
    (models / "a.yaml").write_text("a: 1\n")
    (models / ".hidden.yaml").write_text("a: 1\n")
    (models / "inside-link.yaml").symlink_to(models / "a.yaml")
    (models / "outside-link.yaml").symlink_to(outside / "secret.yaml")
    (models / "dangling.yaml").symlink_to(models / "missing.yaml")
    (models / "folder-link").symlink_to(outside)
    os.mkfifo(models / "pipe.yaml")
    (root / "models" / "deep" / "er").mkdir(parents=True)
    (root / "models" / "deep" / "er" / "b.yaml").write_text("b: 1\n")
    (root / "linked").symlink_to(root / "models")
    tree = LocalTree(root)
    assert tree.list("models") == _by_rglob(tree, "models") == [
        "models/deep/er/b.yaml", "models/org/.hidden.yaml", "models/org/a.yaml",
        "models/org/inside-link.yaml"]
    assert tree.list("linked") == _by_rglob(tree, "linked")  # a link on the way: slow path
    assert tree.list("") == _by_rglob(tree, "")
    assert tree.list("nothing") == []
