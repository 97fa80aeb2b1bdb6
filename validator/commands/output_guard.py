"""The guard of every command that writes reports: no report file may be a file the run
reads, or another report's file (:func:`refuse_overwriting`), and the files a run reads
(:func:`root_inputs`, :func:`work_tree_inputs`, :func:`target_inputs`).

Kept apart from :mod:`validator.commands.check` so that a command that only needs the
guard (``history``, answered from its cache) does not import the checker.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from validator.commands.options import FILE_FORMATS, goes_to_stdout, is_stdout, summary_target
from validator.config import CONFIG_FILES
from validator.errors import UsageError
from validator.owned_folder import CACHE_TAG, is_tagged_cache
from validator.paths import LOCK_NAME, default_cache_dir, default_store_dir
from validator.source.roots import PLATFORMS, STRATEGIES, TAXONOMY
from validator.source.tree import LocalTree
from validator.work_tree import report_path_problem

if TYPE_CHECKING:
    from validator.source.local import Target


CONTEXT_FOLDERS = (STRATEGIES, "kv_store")
"""Folders of context documents at a recipes root (strategies, kv-store deployments)."""
INPUT_FOLDERS = ("models", *CONTEXT_FOLDERS, "quickstart")
"""The folders of a recipes root the site's build reads (its own output, ``public/``,
lies beside them)."""


def root_inputs(root: Path) -> list[Path]:
    """The files at a recipes root that a run reads besides the recipes: the taxonomy,
    ``platforms.yaml``, the configuration files and every strategy and kv-store document."""
    files = [root / TAXONOMY, root / PLATFORMS, *(root / name for name in CONFIG_FILES)]
    return files + [f for folder in CONTEXT_FOLDERS if (root / folder).is_dir()
                    for f in (root / folder).iterdir()]


def work_tree_inputs(folder: Path, paths: Iterable[str] = ()) -> list[Path]:
    """The work-tree files of a git repository of recipes whose revisions a run reads
    (``pr``, ``history``, ``diff REV REV PATH``): :func:`root_inputs`, every recipe below
    ``models/`` (folder links not entered, as the site's build does not) and ``paths``."""
    files = root_inputs(folder) + [folder / path for path in paths]
    for top, dirs, names in os.walk(folder / "models"):  # followlinks=False
        dirs.sort()
        files += [Path(top, n) for n in sorted(names) if n.endswith((".yaml", ".yml"))]
    return files


def target_inputs(targets: list[Target]) -> list[Path]:
    """The files on disk a check of ``targets`` reads: each local target and the
    taxonomy, strategy, kv-store and configuration files at its recipes root."""
    files: list[Path] = []
    for root in local_roots(targets):
        files += root_inputs(root)
    files += [t.tree.root / t.path for t in targets if isinstance(t.tree, LocalTree)]
    return files


def _one_output(a: Path, b: Path) -> bool:
    """Whether writing ``a`` and ``b`` writes one file: the same path once every link is
    followed (also a link to a file not there yet, or a path through a linked folder), or
    one existing file (a hard link)."""
    return os.path.realpath(a) == os.path.realpath(b) or _same_file(a, b)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and a.samefile(b)  # links and hard links too
    except OSError:
        return False


def local_roots(targets: list[Target]) -> list[Path]:
    """The recipes roots on disk of ``targets`` (each once)."""
    return list(dict.fromkeys(t.tree.root for t in targets if isinstance(t.tree, LocalTree)))


def _recipe_path_problem(path: Path, trees: Iterable[Path]) -> str | None:
    """Why ``path`` may not be a report: a ``.yaml``/``.yml`` file below ``models/`` of a
    recipes tree is a recipe there (one this run did not read is replaced by the report)
    or becomes one (the next run of that tree reads the report as a recipe)."""
    if not path.name.endswith((".yaml", ".yml")):
        return None
    real = Path(os.path.realpath(path))
    for tree in trees:
        models = Path(os.path.realpath(tree / "models"))
        if real.is_relative_to(models):
            what = "is a recipe of" if real.exists() else "would be read as a recipe of"
            return (f"{what} the recipes tree {tree} ({real.relative_to(models.parent)}): "
                    "a report there would replace a recipe or be checked as one "
                    "(choose a file outside models/ or not named .yaml)")
    return None


def _is_git_dir(folder: Path) -> bool:
    """Whether ``folder`` is the git directory of a repository: a ``.git`` folder, or a
    folder holding ``HEAD``, ``objects/`` and ``refs/`` (a bare repository, such as a
    clone of the cache, or a work tree's folder inside ``.git/worktrees/``)."""
    return folder.name == ".git" or ((folder / "HEAD").is_file()
                                     and (folder / "objects").is_dir()
                                     and (folder / "refs").is_dir())


def repository_or_store_problem(path: Path, stores: Iterable[Path], *,
                                what: str = "the report", folder: bool = False
                                ) -> str | None:
    """Why ``path`` may not be written (``what``: a report file; with ``folder``, a
    folder a command writes into, which may not be one of those either): it is, or is
    inside, the git directory of a repository (the ``.git`` of a work tree, whose
    revisions ``pr``, ``history`` and ``diff`` read; a bare clone of the cache, which
    pinned sources are read from), or inside a snapshot store (one of ``stores``, or any
    folder holding a :data:`~validator.paths.LOCK_NAME`): it would replace the
    repository's data, the store's lock file or the stored bytes of a recipe."""
    real = Path(os.path.realpath(path))
    if real.name == ".git":
        return (f"is the .git of the repository {real.parent}: writing {what} there "
                "would break the repository (choose a place outside it)")
    known = [Path(os.path.realpath(store)) for store in stores]
    for above in ([real] if folder else []) + list(real.parents):
        where = "is" if above == real else "is inside"
        if _is_git_dir(above):
            return (f"{where} {above}, the git directory of a repository: writing {what} "
                    "there would damage the repository (choose a place outside it)")
        if above in known or (above / LOCK_NAME).is_file():
            return (f"{where} {above}, a snapshot store: writing {what} there would "
                    f"replace its {LOCK_NAME} or the stored bytes of a recipe (choose a "
                    "place outside it)")
    return None


def cache_problem(path: Path, caches: Iterable[Path], *, what: str = "the report",
                  folder: bool = False) -> str | None:
    """Why ``path`` may not be written (``folder``: a folder written into, which may not
    be one either): it is inside a recipe-check cache folder (one of ``caches``, the
    run's ``--cache-dir`` or the default, or any folder holding recipe-check's
    :data:`~validator.owned_folder.CACHE_TAG`), through links too: it would replace the
    tag (``cache clean`` would then refuse the folder for good) or cached results."""
    real = Path(os.path.realpath(path))
    known = [Path(os.path.realpath(cache)) for cache in caches]
    for above in ([real] if folder else []) + list(real.parents):
        if above in known or is_tagged_cache(above):
            where = "is" if above == real else "is inside"
            return (f"{where} {above}, a recipe-check cache folder: writing {what} there "
                    f"would replace its {CACHE_TAG} or cached results (choose a place "
                    "outside it)")
    return None


def run_caches(args: argparse.Namespace) -> list[Path]:
    """The run's cache folder (``--cache-dir`` or the default; with ``--no-cache`` too:
    later runs use it)."""
    return [getattr(args, "cache_dir", None) or default_cache_dir()]


def _input_folder_problem(folder: Path, trees: Iterable[Path]) -> str | None:
    """Why ``folder`` may not be an API folder: it is, or is inside, a folder of a
    recipes tree that the site's build reads (:data:`INPUT_FOLDERS`); another folder of
    the tree (the build's own ``public/``) is allowed."""
    real = Path(os.path.realpath(folder))
    for tree in trees:
        for name in INPUT_FOLDERS:
            inside = Path(os.path.realpath(tree / name))
            if real.is_relative_to(inside):
                where = "is" if real == inside else "is inside"
                return (f"{where} {name}/ of the recipes tree {tree}, which the site's "
                        "build reads: the API would be mixed into the recipes tree's "
                        "inputs (choose a folder outside them, such as public/)")
    return None


def refuse_api_folder(args: argparse.Namespace, folder: Path, trees: Iterable[Path]) -> None:
    """The guard of ``render --api-out DIR``, as of the report paths and ``publish``'s
    folders: ``DIR`` is, or is inside, a folder of the recipes ``trees`` read that the
    site's build reads (:func:`_input_folder_problem`), the git directory of a repository
    or a snapshot store (:func:`repository_or_store_problem`), or a cache folder
    (:func:`cache_problem`).

    Raises:
        UsageError: naming ``DIR`` (exit 2), before anything is written.
    """
    stores = [getattr(args, "store_dir", None) or default_store_dir()]
    problems: list[Callable[[], str | None]] = [
        lambda: _input_folder_problem(folder, trees),
        lambda: repository_or_store_problem(folder, stores, what="the API", folder=True),
        lambda: cache_problem(folder, run_caches(args), what="the API", folder=True)]
    for problem in problems:
        why = problem()
        if why is not None:
            raise UsageError(f"--api-out {folder}: {why}; nothing written")


def refuse_overwriting(args: argparse.Namespace, inputs: Iterable[Path],
                       fmt: str | None = None, work_tree: Path | None = None,
                       trees: Iterable[Path] = ()) -> None:
    """The one guard of every command writing reports: a report file (``--output``,
    ``--json/--sarif/--markdown FILE``, the job summary: ``--summary``, or
    ``$GITHUB_STEP_SUMMARY`` with ``fmt`` ``github``) that is one of ``inputs`` (or
    ``--config``), through a link or a hard link too, would replace what the run reads
    by a report; two reports naming one file would keep only the last; two going to
    standard output (``-``, ``/dev/stdout``, the file it is redirected to) run into
    each other. With ``work_tree`` (``pr``: the repository, in the Action the pull
    request's checkout), a report path inside it that is, or passes through, a symbolic
    link there, or resolves outside it, would write where a committed link points
    (:func:`validator.work_tree.report_path_problem`). A report path of a recipe below
    ``models/`` of one of the recipes ``trees`` (read by this run or not, there or not
    yet) is refused too (:func:`_recipe_path_problem`), and so is a report path inside
    the git directory of a repository or inside a snapshot store (the run's:
    ``--store-dir`` or the default; or any folder holding a lock file), through links
    too (:func:`repository_or_store_problem`), or inside a cache folder (the run's, or any
    holding recipe-check's cache tag: :func:`cache_problem`).

    Raises:
        UsageError: naming the option and the file (exit 2), before anything is written.
    """
    outputs = [(option, path) for option, path in (
        ("--output", getattr(args, "output", None)),
        *((f"--{name}", getattr(args, f"{name}_file", None)) for name in FILE_FORMATS),
        summary_target(args, fmt) or ("--summary", None)) if path is not None]
    if any(option == "--summary" and is_stdout(path) for option, path in outputs):
        raise UsageError("--summary -: the job summary is appended to a file; name one "
                         "(or leave --summary out)")
    dashes = {option: "-" if is_stdout(path) else str(path) for option, path in outputs
              if goes_to_stdout(path)}
    others = [f"{option} {shown}" for option, shown in dashes.items() if option != "--output"]
    if others and goes_to_stdout(getattr(args, "output", None)):  # the --format report's too
        first = f"--output {dashes['--output']}" if "--output" in dashes \
            else "the --format report"
        raise UsageError(f"{first} and {others[0]} both go to standard output: one report "
                         "would run into the other (name a file for one of them)")
    if len(others) > 1:
        raise UsageError(f"{others[0]} and {others[1]} both go to standard output: one "
                         "report would run into the other (name a file for one of them)")
    outputs = [(option, path) for option, path in outputs if option not in dashes]
    problem = next(((o, p, why) for o, p in outputs if work_tree is not None
                    and (why := report_path_problem(p, work_tree)) is not None), None)
    if problem is not None:
        raise UsageError("{} {}: {}".format(*problem))
    for i, (option, path) in enumerate(outputs):
        other = next(((o, p) for o, p in outputs[:i] if _one_output(p, path)), None)
        if other is not None:
            raise UsageError(f"{other[0]} {other[1]} and {option} {path} are the same file: "
                             "one report would overwrite the other (choose two files)")
    config = getattr(args, "config", None)
    files = [*inputs, *([config] if config is not None else [])]
    for option, path in outputs:
        clash = next((f for f in files if _same_file(path, f)), None)
        if clash is not None:
            raise UsageError(f"{option} {path}: is {clash}, a file this run reads; writing "
                             "the report there would overwrite it (choose another file)")
    _refuse_places(outputs, list(trees),
                   [getattr(args, "store_dir", None) or default_store_dir()], run_caches(args))


def _refuse_places(outputs: list[tuple[str, Path]], trees: list[Path],
                   stores: list[Path], caches: list[Path]) -> None:
    """Raise when a report path is a recipe's place in one of ``trees``
    (:func:`_recipe_path_problem`), or lies in a repository's git directory or a snapshot
    store (:func:`repository_or_store_problem`) or a cache folder (:func:`cache_problem`)."""
    checks: list[Callable[[Path], str | None]] = [
        lambda p: _recipe_path_problem(p, trees),
        lambda p: repository_or_store_problem(p, stores),
        lambda p: cache_problem(p, caches)]
    for problem in checks:
        found = next(((o, p, why) for o, p in outputs
                      if (why := problem(Path(p))) is not None), None)
        if found is not None:
            raise UsageError("{} {}: {}".format(*found))
