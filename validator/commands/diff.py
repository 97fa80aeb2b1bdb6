"""``recipe-check diff OLD NEW``: what a change to a recipe changes for its users.

OLD and NEW are two recipe files (each inside a recipes checkout, the root found as
``check`` finds it) or two pinned specs ``OWNER/REPO@REV:PATH``. A loose file -- one in no
recipes root, as a copy in ``/tmp`` -- renders with the taxonomy and strategies of
``--root DIR``, else of the other side's tree (neither: a usage error saying so). With a
third argument,
``recipe-check diff OLD_REV NEW_REV PATH`` compares two revisions of one recipe of the git
repository ``--repo`` (default: the current folder). Each side is rendered with the
taxonomy and strategies of its own revision (:mod:`validator.recipe_diff`).

Exit codes: 0 nothing changes for users, 1 something does, 2 usage or input failure (also
when neither side can be loaded: nothing was compared).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from validator.commands.check import collect_targets
from validator.commands.options import add_output_arguments, chosen_format, write_outputs
from validator.commands.output_guard import (
    local_roots,
    refuse_overwriting,
    target_inputs,
    work_tree_inputs,
)
from validator.context import build_context
from validator.errors import UsageError
from validator.findings import printable
from validator.load import load_yaml
from validator.paths import option_path
from validator.recipe_diff import RecipeDiff, Side, absent_side, diff_recipes
from validator.render.renderer import site_strategies
from validator.report.markdown import recipe_diff_lines
from validator.source.local import Target
from validator.source.options import add_fetch_arguments
from validator.source.roots import find_root
from validator.source.tree import LocalTree, RecipeTree

FILE_FORMATS = ("json", "markdown")
"""What ``diff`` also writes to files: its JSON and its Markdown (the job summary's
"What changes for users" section). A diff reports no findings, so there is no SARIF."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``diff``."""
    parser.add_argument("old", metavar="OLD", help="recipe file or OWNER/REPO@REV:PATH "
                        "(with PATH: a revision of --repo)")
    parser.add_argument("new", metavar="NEW", help="recipe file or OWNER/REPO@REV:PATH "
                        "(with PATH: a revision of --repo)")
    parser.add_argument("path", nargs="?", metavar="PATH",
                        help="compare this recipe at revisions OLD and NEW of --repo")
    parser.add_argument("--repo", type=option_path, default=Path("."), metavar="DIR",
                        help="git repository of the recipes (for the revision form; default: "
                             "current folder)")
    parser.add_argument("--root", type=option_path, metavar="DIR",
                        help="recipes root (default: walk up from PATH; a file outside "
                             "every root renders with this root's context)")
    parser.add_argument("--no-feature-sets", action="store_true",
                        help="compare the site's default feature set only (faster)")
    add_fetch_arguments(parser)
    add_output_arguments(parser, ("text", "json", "markdown"), file_formats=FILE_FORMATS,
                         summary=False)


def side_of(tree: RecipeTree, path: str, label: str, *, absent_ok: bool = False) -> Side:
    """The recipe ``path`` of ``tree`` with the context of that tree (``absent_ok``: an
    empty recipe when the tree has no file there, :func:`absent_side`).

    Raises:
        UsageError: the file is not in the tree (and not ``absent_ok``).
        SourceError: the file or the context cannot be read.
    """
    try:
        ctx = build_context(tree)
    except FileNotFoundError as exc:
        raise UsageError(f"{path}: not found in {tree.label}") from exc
    try:
        doc = load_yaml(tree.read(path), path)
    except FileNotFoundError as exc:
        if absent_ok:
            return absent_side(label, path, ctx.taxonomy, site_strategies(ctx))
        raise UsageError(f"{path}: not found in {tree.label}") from exc
    return Side(label, doc, ctx.taxonomy, site_strategies(ctx))


def _loose_file(arg: str, root: Path | None) -> Path | None:
    """``arg`` when it is a local file in no recipes root: outside ``--root`` when given,
    else with no root above it (``None`` for a spec, a folder, a file in a root). A FIFO
    or device counts, to be refused when read."""
    path = Path(arg)
    if not path.exists() or path.is_dir():
        return None
    if root is not None:
        return None if path.resolve().is_relative_to(root.resolve()) else path
    return path if find_root(path) is None else None


def loose_side(path: Path, context: RecipeTree, label: str) -> Side:
    """The recipe file ``path`` (through a link the user named; read as ``check`` reads a
    file: a regular file only, never waited on) rendered with the context of the tree
    ``context``.

    Raises:
        SourceError: the file cannot be read.
    """
    ctx = build_context(context)
    real = path.resolve()
    doc = load_yaml(LocalTree(real.parent).read(real.name), path.name)
    return Side(label, doc, ctx.taxonomy, site_strategies(ctx))


def _file_sides(args: argparse.Namespace) -> tuple[Side, Side]:
    """OLD and NEW as files or pinned specs, each with the context of its own tree; a
    loose file (:func:`_loose_file`) with that of ``--root``, else of the other side's.

    Raises:
        UsageError: a path names no single file; both files are loose and no ``--root``
            is given.
    """
    args_ = (args.old, args.new)
    loose = {arg: _loose_file(arg, args.root) for arg in args_}
    targets = {arg: _one(args, arg) for arg in args_ if loose[arg] is None}
    named = list(targets.values())  # the sides that are not loose files
    refuse_overwriting(args, target_inputs(named) + [p for p in loose.values() if p is not None],
                       trees=local_roots(named) + ([args.root] if args.root else []))
    context = LocalTree(args.root) if args.root is not None else \
        next((t.tree for t in targets.values()), None)
    if context is None:
        raise UsageError(f"{args.old} and {args.new} lie in no recipes root (a folder "
                         "holding taxonomy.yaml and strategies/), and a recipe renders with "
                         "the taxonomy and strategies of one: name it with --root DIR")
    sides = []
    for arg in args_:
        file = loose[arg]
        if file is None:
            sides.append(side_of(targets[arg].tree, targets[arg].path, arg))
        else:
            sides.append(loose_side(file, context, arg))
    return sides[0], sides[1]


def _one(args: argparse.Namespace, arg: str) -> Target:
    namespace = argparse.Namespace(**{**vars(args), "paths": [arg]})
    targets = collect_targets(namespace)
    if len(targets) != 1:
        raise UsageError(f"{arg}: names {len(targets)} files; diff compares one recipe")
    return targets[0]


def _revision_sides(args: argparse.Namespace) -> tuple[Side, Side]:
    from validator.pr.run import open_repository
    from validator.source.git import GitTree, present_commit

    repo = open_repository(args.repo)
    try:
        sides = []
        for rev in (args.old, args.new):
            commit = present_commit(repo, rev)  # an ambiguous short id: SourceError, exit 2
            if commit is None:
                raise UsageError(f"{rev!r} is not a revision of {args.repo}")
            tree = GitTree(str(args.repo), commit, None, repo, str(args.repo))
            if args.path.endswith("/") or tree.list(args.path):
                raise UsageError(f"{args.path}: a folder (at {rev}); diff compares one recipe "
                                 "file at two revisions (for a folder or a context change, "
                                 f"`recipe-check pr --base {args.old} --head {args.new}` "
                                 "lists what the change does for users)")
            sides.append(side_of(tree, args.path, f"{rev}:{args.path}", absent_ok=True))
        if all(side.absent for side in sides):
            raise UsageError(f"{args.path}: not found in {args.repo} at {args.old} nor at "
                             f"{args.new}")
        return sides[0], sides[1]
    finally:
        repo.close()


def write_text(diff: RecipeDiff, stream: TextIO) -> None:
    """``OLD → NEW`` then one indented line per change, or that nothing changes."""
    stream.write(printable(f"{diff.old} → {diff.new}") + "\n")
    lines = diff.lines()
    if not lines:
        stream.write(f"  nothing changes for users ({diff.compared} configurations "
                     "rendered the same)\n")
    for line in lines:
        stream.write("  " + printable(line) + "\n")


def run(args: argparse.Namespace) -> int:
    """Compare, print, and return 0 (no change for users) or 1."""
    fmt = chosen_format(args, "text")
    if args.path is not None:
        refuse_overwriting(args, work_tree_inputs(args.repo, [args.path]), trees=[args.repo])
        old, new = _revision_sides(args)
    else:
        old, new = _file_sides(args)
    diff = diff_recipes(old, new, feature_sets=not args.no_feature_sets)

    def write(name: str, stream: TextIO) -> None:
        if name == "json":
            json.dump(diff.to_dict(), stream, indent=2, ensure_ascii=False)
            stream.write("\n")
        elif name == "markdown":
            stream.write("\n".join(recipe_diff_lines(diff, f"{diff.old} → {diff.new}")) + "\n")
        else:
            write_text(diff, stream)

    write_outputs(args, write, fmt, file_formats=FILE_FORMATS)
    sys.stdout.flush()
    if not old.recipe.ok and not new.recipe.ok:
        # nothing was compared: an input failure, not a change for users
        print("recipe-check: diff: neither side can be loaded; nothing was compared",
              file=sys.stderr)
        return 2
    return 1 if diff.changed else 0
