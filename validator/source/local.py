"""Local paths on the command line -> (recipes root tree, repository-relative paths)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from validator.source.roots import STRATEGIES, TAXONOMY, find_root
from validator.source.tree import LocalTree, RecipeTree, SourceError

__all__ = ["STRATEGIES", "TAXONOMY", "Target", "find_root", "local_targets"]


@dataclass(frozen=True)
class Target:
    """One document to check: ``path`` inside ``tree``."""

    tree: RecipeTree
    path: str


def _is_yaml(p: Path) -> bool:
    return p.suffix in (".yaml", ".yml")


def _is_yaml_name(rel: str) -> bool:
    return _is_yaml(Path(rel))


def unreadable_folders(folder: Path, root: Path, tree: LocalTree) -> list[str]:
    """Folders below ``folder`` that cannot be listed (``os.walk`` errors), as paths
    relative to ``root``, recorded in ``tree.unreadable``: each becomes a target whose
    read fails (PROV005), so no folder is skipped in silence."""
    found: list[str] = []

    def note(exc: OSError) -> None:
        where = Path(exc.filename or folder)
        try:
            rel = where.resolve().relative_to(root).as_posix()
        except (ValueError, OSError, RuntimeError):
            return
        tree.unreadable[rel] = exc.strerror or str(exc)
        found.append(rel)

    for _ in os.walk(folder, onerror=note):
        pass
    return sorted(set(found))


def _inside(p: Path, root: Path) -> bool:
    """Whether ``p`` resolves inside ``root`` (``False`` for a link loop)."""
    try:
        return p.resolve().is_relative_to(root)
    except (RuntimeError, OSError):
        return False


def local_targets(arg: str, root: Path | None, trees: dict[Path, LocalTree]) -> list[Target]:
    """Targets for a file or folder given on the command line.

    The recipes root is ``root`` when given, else found by walking up from ``arg``
    (:func:`find_root`). A folder expands to the ``.yaml`` files below
    it. ``trees`` caches one :class:`LocalTree` per root.

    Raises:
        SourceError: the path or ``root`` does not exist, the path is outside the root,
            or no root is found.
    """
    if root is not None and not root.is_dir():
        raise SourceError(f"--root {root}: no such folder" if not root.exists() else
                          f"--root {root}: not a folder")
    p = Path(arg)
    if not p.exists() and not p.is_symlink():
        raise SourceError(f"{arg}: no such file or folder")
    # a symbolic link's root is found from where the link is, not from its target
    found = root.resolve() if root else find_root(p.parent if p.is_symlink() else p)
    if found is None:
        raise SourceError(f"{arg}: no recipes root above it (a folder holding taxonomy.yaml "
                          "and strategies/); pass --root")
    tree = trees.setdefault(found, LocalTree(found))
    if p.is_symlink() and not (p.is_dir() and _inside(p, found)):
        # the link itself is the target, as in a folder walk: one that leaves the root,
        # dangles or loops is refused when read (a PROV005 finding), one inside is read;
        # a link to a folder inside the root is walked as that folder
        where = p.parent.resolve() / p.name
        if not where.is_relative_to(found):
            raise SourceError(f"{arg}: is outside the recipes root {found}")
        return [Target(tree, where.relative_to(found).as_posix())]
    real = p.resolve()
    if not real.is_relative_to(found):
        raise SourceError(f"{arg}: is outside the recipes root {found}")
    if p.is_dir():
        rel_dir = real.relative_to(found).as_posix()
        listed = set(tree.list("" if rel_dir == "." else rel_dir))
        # links and special files are targets too: reading them fails with a reason that
        # becomes a PROV005 finding, instead of the walk passing them over in silence
        entries = list(real.rglob("*"))  # rglob does not enter links to folders
        listed |= {q.relative_to(found).as_posix() for q in entries
                   if q.is_symlink() or not (q.is_dir() or q.is_file())}
        # nor does the site's build: a link to a folder that leaves the root is a target
        # refused when read (PROV005), as a file link is; one inside the root is noted in
        # tree.folder_links for the command to say that it was not walked
        refused: list[str] = []
        for link in (q for q in entries if q.is_symlink() and q.is_dir()):
            rel = link.relative_to(found).as_posix()
            if _inside(link, found):
                tree.folder_links[rel] = link.resolve().relative_to(found).as_posix() or "."
            else:
                refused.append(rel)
        targets = [Target(tree, rel) for rel in sorted({*filter(_is_yaml_name, listed),
                                                        *refused})]
        return targets + [Target(tree, rel) for rel in unreadable_folders(real, found, tree)]
    rel = (p.parent.resolve() / p.name).relative_to(found).as_posix()
    return [Target(tree, rel)]
