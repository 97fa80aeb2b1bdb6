"""Paths of ``pr`` mode's command line that may lie inside the repository's work tree.

In the GitHub Action the work tree is the pull request's checkout: whatever it holds (a
configuration file, a symbolic link) is the pull request's, not the maintainer's. So a
``--config`` path inside the repository names the file *at the merge base*
(:func:`repository_path` gives its path in the tree), and a report path inside it must
not pass through a symbolic link there (:func:`report_path_problem`): a committed link
would make the run write, and create folders, wherever the runner's user can write.
Paths outside the repository are the maintainer's own and are used as given.
"""

from __future__ import annotations

import os
from pathlib import Path


def _under(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` when it lies below it (both absolute, normalised);
    ``"."`` for the root itself; ``None`` outside."""
    rel = os.path.relpath(path, root)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return None
    return rel


def _roots(root: Path) -> list[str]:
    """The work tree's folder as given (made absolute) and with every link resolved."""
    return list(dict.fromkeys((os.path.abspath(root), os.path.realpath(root))))


def repository_path(path: Path, root: Path) -> str | None:
    """The ``/``-separated path in the repository of ``path`` (a file named on the command
    line, relative to the working folder) when it lies inside the work tree ``root`` --
    by its spelling (``..`` taken lexically, so a link the work tree holds changes
    nothing), else once every link is resolved -- and ``None`` when it lies outside."""
    lexical = os.path.abspath(path)
    found = [_under(lexical, r) for r in _roots(root)]
    found.append(_under(os.path.realpath(path), os.path.realpath(root)))
    rel = next((r for r in found if r is not None), None)
    if rel is None or rel == os.curdir:
        return None
    return Path(rel).as_posix()


def report_path_problem(path: Path, root: Path) -> str | None:
    """Why ``pr`` refuses to write a report at ``path`` (``None``: it may): inside the work
    tree ``root``, the file or a folder on its way is a symbolic link there, or the path
    resolves outside the repository. A path outside the work tree is not judged."""
    real_root = os.path.realpath(root)
    lexical = os.path.abspath(path)
    real = os.path.realpath(path)
    if all(_under(lexical, r) is None for r in _roots(root)) \
            and _under(real, real_root) is None:
        return None
    full = Path(os.getcwd(), path)  # as given: `..` after a link is the link's parent's
    prefix = Path(full.parts[0])
    for part in full.parts[1:]:
        prefix = prefix / part
        if not os.path.islink(prefix):
            continue
        where = os.path.join(os.path.realpath(prefix.parent), part)
        if _under(where, real_root) in (None, os.curdir):
            continue  # a link above the work tree (the way to it): not the repository's
        what = "is" if prefix == full else f"passes through {prefix}, which is"
        return (f"{what} a symbolic link inside the repository {os.path.abspath(root)} (to "
                f"{os.readlink(prefix)}): in the Action the work tree is the pull "
                "request's checkout, so the link may be the pull request's; not followed "
                "(name a path that is no link, or one outside the repository)")
    if _under(real, real_root) is None:
        return (f"resolves to {real}, outside the repository {os.path.abspath(root)}; not "
                "written (name a path inside the repository that is no link, or one outside "
                "it)")
    return None
