"""``recipe-check [check] PATH...``: check recipes and report findings.

PATH is a recipe file, a folder (every ``.yaml`` below it), or a pinned source spec
``OWNER/REPO@REV:PATH`` (see :mod:`validator.source.spec`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from validator.checker import RunResult
from validator.commands.options import (
    add_output_arguments,
    add_rule_arguments,
    add_run_arguments,
    chosen_format,
    local_rule_config,
    rule_config,
    settings_from,
    summary_target,
    write_outputs,
)
from validator.commands.options import (
    positive_int as positive_int,  # re-exported: `render --nodes` uses it from here
)
from validator.commands.output_guard import (
    CONTEXT_FOLDERS,
    local_roots,
    refuse_overwriting,
    target_inputs,
)
from validator.config import Config
from validator.context import PLATFORMS, Settings
from validator.errors import UsageError
from validator.paths import option_path
from validator.policy import Policy
from validator.progress import NO_PROGRESS, Display, display_of
from validator.report import REPORTERS, get_reporter
from validator.rule_index import check_rules
from validator.rules.metadata import Rule
from validator.rules.ref.quickstart import is_quickstart_path
from validator.session import Session
from validator.session_units import KnownUnits
from validator.source.local import TAXONOMY, Target, local_targets
from validator.source.options import add_fetch_arguments, default_cache_dir, fetch_options_from
from validator.source.spec import looks_like_spec, parse_spec
from validator.source.targets import open_targets
from validator.source.tree import LocalTree, RecipeTree
from validator.unit_cache import FileDigests, UnitCache
from validator.unit_pool import default_jobs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``check``."""
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="recipe file, folder, or OWNER/REPO@REV:PATH")
    parser.add_argument("--root", type=option_path, metavar="DIR",
                        help="recipes root (default: walk up from PATH)")
    add_run_arguments(parser)
    parser.add_argument("--fix", action="store_true",
                        help="apply the safe fixes, write the files, then check again")
    parser.add_argument("--unsafe-fixes", action="store_true",
                        help="with --fix or --diff: apply the unsafe fixes too")
    parser.add_argument("--diff", action="store_true",
                        help="print the fixes as a unified diff; write nothing; exit 1 when "
                             "there is a fix to show, 0 when there is none")
    add_fetch_arguments(parser, offline=False)
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the cache (in --cache-dir)")
    parser.add_argument("--jobs", "-j", type=positive_int, default=None, metavar="N",
                        help="check on N processes (default: every core; the output is "
                             "the same for every N)")
    add_rule_arguments(parser)
    add_output_arguments(parser, sorted(REPORTERS))


def collect_targets(args: argparse.Namespace, *, notes: bool = True) -> list[Target]:
    """Resolve every PATH argument to targets; raises :class:`UsageError` on bad ones.
    ``notes``: say on stderr what a folder's walk left out (:func:`recipes_and_context`,
    :func:`note_folder_links`)."""
    targets: list[Target] = []
    trees: dict[Path, object] = {}
    pinned: dict[tuple[str, str, str, str], RecipeTree] = {}
    options = fetch_options_from(args)
    if options.expect_sha256 and len(args.paths) != 1:
        raise UsageError("--expect-sha256 needs exactly one document (a file or "
                         "OWNER/REPO@REV:PATH)")
    for arg in args.paths:  # a SourceError (bad spec, unreadable path) is a usage error
        if not arg.strip():  # Path("") is the current folder: a lost shell variable
            raise UsageError(f"PATH {arg!r} is empty: name a recipe file or folder (a shell "
                             "variable that expanded to nothing?)")
        if looks_like_spec(arg) and not Path(arg).exists():
            tree, paths = open_targets(parse_spec(arg), options, pinned)
            targets += [Target(tree, path) for path in paths]
        else:
            targets += local_targets(arg, args.root, trees)  # type: ignore[arg-type]
    if not targets:
        raise UsageError("no YAML files found in " + ", ".join(args.paths))
    # a file named twice (``X X``, ``models/ models/a.yaml``, a relative and an absolute
    # spelling) is one document: checked, counted and fixed once
    targets = list(dict.fromkeys(targets))
    targets = recipes_and_context(targets, ", ".join(args.paths), notes)
    if options.expect_sha256:
        _expect_local(targets, options.expect_sha256)
    if notes:
        note_folder_links(targets)
    return targets


def _expect_local(targets: list[Target], sha256: str) -> None:
    """Register ``--expect-sha256`` for a local file (a pinned one has it already).

    Raises:
        UsageError: the path names more than one document (a folder).
    """
    if len(targets) != 1:
        raise UsageError(f"--expect-sha256 needs exactly one document; the path names "
                         f"{len(targets)}")
    tree = targets[0].tree
    if isinstance(tree, LocalTree):
        tree.expect(targets[0].path, sha256, "--expect-sha256")


def is_recipe_or_context(path: str) -> bool:
    """Whether the site reads ``path`` of a recipes root: a recipe (any ``.yaml``/``.yml``
    below ``models/``, as its build walks that folder), the taxonomy, or a strategy or
    kv-store document (``strategies/<name>.yaml``, ``kv_store/<name>.yaml``), or a
    quickstart file (``quickstart/<name>.yaml``, which its build writes into its API)."""
    parts = path.split("/")
    return path.startswith("models/") or path in (TAXONOMY, PLATFORMS) or \
        (len(parts) == 2 and parts[0] in CONTEXT_FOLDERS) or is_quickstart_path(path)


def recipes_and_context(targets: list[Target], where: str, notes: bool = True
                        ) -> list[Target]:
    """``targets`` without the YAML files of a recipes root (a tree with a taxonomy) that
    the site does not read as a recipe or context (``quickstart/``, workflow files):
    checked against the recipe schema, each would be all false errors. With ``notes``,
    says on stderr which were left out.

    Raises:
        UsageError: none is left.
    """
    roots = {id(t.tree) for t in targets if t.tree.exists(TAXONOMY)}
    kept = [t for t in targets if id(t.tree) not in roots or is_recipe_or_context(t.path)
            or not t.path.endswith((".yaml", ".yml"))]
    if not kept:
        raise UsageError(f"no recipes in {where}: recipes are the .yaml files below models/ "
                         "of a recipes root (the site reads no other file as one)")
    left = [t.path for t in targets if t not in kept]
    if left and notes:
        print(f"recipe-check: note: not checked, not recipes: {', '.join(left)} (the "
              "recipes site reads recipes from models/ only, and the taxonomy, strategies/, "
              "kv_store/ and platforms.yaml as their context, and quickstart/*.yaml into its "
              "API)", file=sys.stderr)
    return kept


def note_folder_links(targets: list[Target]) -> None:
    """Say, on stderr, which links to folders inside the recipes root the walk of a
    checked folder passed: the site's build does not enter them either, so what is in
    one is checked (and published) only at the folder it points to. (A link leaving the
    root is a target of its own, refused when read: PROV005.)"""
    for tree in dict.fromkeys(t.tree for t in targets if isinstance(t.tree, LocalTree)):
        for link, folder in sorted(tree.folder_links.items()):
            print(f"recipe-check: warning: {link}: symbolic link to the folder {folder}, not "
                  "walked (the recipes site's build does not enter folder links either): "
                  f"its files are checked only as {folder}/..., where a checked path "
                  "holds them", file=sys.stderr)


def selected_rules(args: argparse.Namespace) -> list[Rule]:
    """The check rules that ``--select``/``--ignore``/``--config`` leave selected (used by
    ``--fix``, which must honour the same selection as the check)."""
    policy = Policy(rule_config(args))
    return [r for r in check_rules() if policy.selected(r.id)]


def check_targets(targets: list[Target], settings: Settings,
                  config: Callable[[RecipeTree], Config] | None = None,
                  cache_dir: Path | None = None, jobs: int = 1,
                  progress: Display = NO_PROGRESS,
                  known: KnownUnits | None = None,
                  digests: FileDigests | None = None,
                  cache: UnitCache | None = None) -> RunResult:
    """Check every target against the context of its own tree, with the configuration
    ``config`` gives for that tree (default: none), through the one driver
    (:class:`validator.session.Session`); with ``cache_dir``, units checked before with
    the same inputs come from its result cache (:mod:`validator.unit_cache`). ``progress``
    shows the targets done (none by default); ``known``: units the run checked already
    (:data:`~validator.session.KnownUnits`); ``digests``: the run's digests of the tool's
    files, which the cache's keys hash (:mod:`validator.file_digests`); ``cache``: the
    result cache of ``cache_dir`` opened already (by ``--fix``, whose loop checked units
    into it), closed here."""
    rules = check_rules()
    if cache is None and cache_dir is not None:
        cache = UnitCache(cache_dir, settings, rules, digests)
    session = Session(settings, rules, config=config or None, cache=cache, known=known)
    bar = progress("checking", len(targets))
    try:
        result = session.check_targets(((t.tree, t.path) for t in targets), jobs, bar)
    finally:
        bar.close()
    if cache is not None:
        cache.close()
        for note in cache.notes:
            print(f"recipe-check: note: {note}", file=sys.stderr)
    return result


def result_cache_dir(args: argparse.Namespace, settings: Settings) -> Path | None:
    """The cache folder of the run's results: ``--cache-dir`` (default
    ``$XDG_CACHE_HOME/recipe-check``); ``None`` under ``--no-cache`` and
    ``--online-releases`` (the release list of the day is not part of a key)."""
    if getattr(args, "no_cache", False) or settings.online_releases:
        return None
    return getattr(args, "cache_dir", None) or default_cache_dir()


def release_list_context(settings: Settings) -> dict[str, object]:
    """Which vLLM release list the VER rules use (source, digest), for the report; loads
    it now so that a bad list fails the run (exit 2) before any check runs.

    Raises:
        ReleaseListError: the list cannot be read or fails its digest.
    """
    from validator.releases import load_release_list

    full = load_release_list(online=settings.online_releases, snapshot_dir=settings.vendored_dir)
    if settings.as_of is None:
        return full.describe()
    return {**full.published_by(settings.as_of).describe(), "as_of": settings.as_of.isoformat()}


def run(args: argparse.Namespace) -> int:
    """Check, report, and return 0 (no errors), 1 (errors) or 2 (a check crashed)."""
    settings = settings_from(args)
    fmt = chosen_format(args, "text")
    rule_config(args)  # a bad --config or --select is a usage error before anything runs
    releases = release_list_context(settings)  # fail fast (exit 2) before any check runs
    targets = collect_targets(args, notes=False)
    refuse_overwriting(args, target_inputs(targets), fmt, trees=local_roots(targets))
    configs: dict[int, Config] = {}
    known: KnownUnits = {}  # what --fix found in the bytes it left: not checked again

    def config_of(tree: RecipeTree) -> Config:
        # the file at a local recipes root; a pinned tree is configured by --config only
        if id(tree) not in configs:
            if isinstance(tree, LocalTree):
                configs[id(tree)] = local_rule_config(args, tree)
            else:
                configs[id(tree)] = rule_config(args)
        return configs[id(tree)]

    cache_dir, digests = result_cache_dir(args, settings), getattr(args, "digests", None)
    cache = None  # --fix checks its texts as units of the check's cache (not --diff)
    if args.fix or args.diff or args.unsafe_fixes:
        from validator.fix.command import remaining_note, run_fix

        if args.fix and not args.diff and cache_dir is not None:
            cache = UnitCache(cache_dir, settings, check_rules(), digests)
        diff_code = run_fix(args, targets, settings, selected_rules(args), config_of, known,
                            cache)
        if diff_code is not None:
            return diff_code
    targets = collect_targets(args)  # again: --fix may have changed what is there
    result = check_targets(targets, settings, config_of, cache_dir,
                           args.jobs or default_jobs(), display_of(args), known, digests,
                           cache)
    if args.fix and (note := remaining_note(result, args.unsafe_fixes)):
        print(f"recipe-check: {note}", file=sys.stderr)
    result.context["release_list"] = releases
    summary = summary_target(args, fmt) is not None
    write_outputs(args, lambda name, stream: get_reporter(name, summary=summary).write(
        result, stream), fmt, summary=lambda path: _step_summary(result, path))
    return result.exit_code


def _step_summary(result: RunResult, path: Path) -> int:
    """Append the run's Markdown summary to the job summary at ``path``; the bytes
    written (imported here: a run without a job summary does not load the Markdown
    reporter)."""
    from validator.report.markdown import append_step_summary

    return append_step_summary(result, path)
