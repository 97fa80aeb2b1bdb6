"""``recipe-check cache {clean,info}``: the cache folder (``--cache-dir``, default
``$XDG_CACHE_HOME/recipe-check``): the check results (``results/``), whole check runs
(``runs/``), REF025's index of the recipes' variant ids (``claims/``), the history
audit's results (``history/``) and the git clones of pinned sources (``git/``); and
``vllm-cli/``, where earlier versions kept the vLLM CLI registries they derived (now
shipped in the package, :mod:`validator.vllm_cli.compact`): no run reads or writes it.

``clean`` removes the entries of all (and the git clones with ``--git``), only
in a folder recipe-check tagged as its cache when it made it (``CACHEDIR.TAG``,
:func:`~validator.owned_folder.tag_cache_folder`): any other folder is refused, exit 2,
nothing removed. ``info`` prints how many entries each holds and their size. Neither
follows a symbolic link.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from validator.cache import CLAIMS, HISTORY_PART, RUNS
from validator.errors import UsageError
from validator.findings import printable
from validator.owned_folder import CACHE_TAG, is_tagged_cache
from validator.paths import option_path
from validator.source.options import CACHE_DIR_HELP, default_cache_dir
from validator.unit_cache import RESULTS

LEFT_BY_EARLIER = "vllm-cli"
"""The part where versions before the CLI data was shipped in the package kept what they
derived: nothing reads it; ``info`` lists it and ``clean`` removes it while it is there."""

PARTS = {RESULTS: "check results", RUNS: "whole check runs",
         CLAIMS: "recipes' variant ids (REF025)", HISTORY_PART: "history audit results",
         LEFT_BY_EARLIER: "vLLM CLI registries derived by an earlier version (unused)",
         "git": "git clones"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``cache``."""
    parser.add_argument("action", choices=["clean", "info"])
    parser.add_argument("--cache-dir", type=option_path, metavar="DIR",
                        help=CACHE_DIR_HELP)
    parser.add_argument("--git", action="store_true",
                        help="clean: also remove the git clones of pinned sources")


def _size(folder: Path) -> tuple[int, int]:
    files = [f for f in folder.rglob("*") if f.is_file() and not f.is_symlink()]
    return len(files), sum(f.stat().st_size for f in files)


def _refuse_foreign(root: Path) -> None:
    """Raise when ``root`` has a part to clean but no recipe-check cache tag: a folder of
    the user's (or another tool's) is never emptied."""
    present = [n for n in PARTS if (root / n).is_dir() and not (root / n).is_symlink()]
    if present and not is_tagged_cache(root):
        raise UsageError(
            f"{root}: not a recipe-check cache (no {CACHE_TAG} written by recipe-check), "
            f"so its {', '.join(n + '/' for n in present)} were left alone; a cache "
            "recipe-check made holds that tag (an older cache without it: delete it by hand)")


def run(args: argparse.Namespace) -> int:
    """Clean or describe the cache folder; exit 0 (2 when it is not a folder)."""
    root: Path = args.cache_dir or default_cache_dir()
    if root.is_symlink() or (root.exists() and not root.is_dir()):
        raise UsageError(f"{root}: not a cache folder")
    if args.action == "clean":
        _refuse_foreign(root)
    for name, what in PARTS.items():
        part = root / name
        if not part.is_dir() or part.is_symlink():
            continue
        if args.action == "info":
            count, size = _size(part)
            print(f"{printable(str(part))}: {what}, {count} file(s), {size / 2**20:.1f} MiB")
        elif name != "git" or args.git:
            shutil.rmtree(part)
            print(f"removed {printable(str(part))} ({what})")
    return 0
