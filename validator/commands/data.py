"""``recipe-check data ACTION``: maintain the vendored, digest-pinned data in ``snapshots/``.

Actions (argparse subparsers; add one by writing ``_add_<name>(sub)`` and listing it in
``ACTIONS``):

* ``refresh`` — fetch vLLM's release list from PyPI's JSON API and rewrite
  ``snapshots/vllm-releases.json`` and its pinned digest ``snapshots/vllm-releases.sha256``
  (:func:`validator.releases.refresh_snapshot`).
* ``show`` — print which release list a check run would use (vendored, verified digest).

Exit codes: 0 done, 2 the data could not be fetched or verified.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from validator.commands.options import RenamedOption
from validator.errors import UsageError
from validator.paths import option_path
from validator.releases import (
    PYPI_JSON_URL,
    ReleaseListError,
    clear_cache,
    load_vendored,
    read_pinned_digest,
    refresh_snapshot,
)


def _add_vendored_dir(p: argparse.ArgumentParser, help_: str) -> None:
    """``--vendored-dir DIR`` (the vendored data folder), and its old spelling
    ``--snapshot-dir``, accepted but not shown in --help."""
    p.add_argument("--vendored-dir", type=option_path, default=None, metavar="DIR",
                   help=f"vendored data folder ({help_})")
    # --snapshot-dir names the snapshot store in every other command: refused here
    p.add_argument("--snapshot-dir", action=RenamedOption, use="--vendored-dir DIR")


def _add_refresh(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("refresh", help="re-fetch the vLLM release list and re-pin its digest",
                       description="Fetch vLLM's releases (versions and first upload dates) "
                       "from PyPI's JSON API and rewrite the vendored copy and its digest.")
    _add_vendored_dir(p, "written; default: the project's snapshots/")
    p.add_argument("--url", default=PYPI_JSON_URL, help=f"JSON API URL (default {PYPI_JSON_URL})")
    p.add_argument("--timeout", type=float, default=15.0, metavar="SECONDS",
                   help="seconds per request")
    p.set_defaults(action=_refresh)


def _refresh(args: argparse.Namespace) -> int:
    folder: Path | None = args.vendored_dir
    old: str | None
    try:
        old = read_pinned_digest((folder or _default_dir()) / "vllm-releases.sha256")
    except ReleaseListError:
        old = None
    fresh, digest = refresh_snapshot(folder, args.url, timeout=args.timeout)
    clear_cache()
    latest = fresh.latest
    state = "unchanged" if old == digest else f"was {old}" if old else "new"
    print(f"vllm releases: {len(fresh.releases)} from {fresh.origin}, latest "
          f"{latest.version if latest else '-'} ({latest.date if latest else '-'})")
    print(f"sha256 {digest} ({state})")
    return 0


def _add_show(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("show", help="verify and describe the vendored release list")
    _add_vendored_dir(p, "read; default: the project's snapshots/")
    p.set_defaults(action=_show)


def _show(args: argparse.Namespace) -> int:
    rl = load_vendored(args.vendored_dir)
    latest = rl.latest
    print(f"vllm releases: {len(rl.releases)} ({rl.source}, {rl.origin}), fetched "
          f"{rl.fetched or '-'}, latest {latest.version if latest else '-'} "
          f"({latest.date if latest else '-'})")
    print(f"sha256 {rl.sha256} (verified against the pinned digest)")
    return 0


def _default_dir() -> Path:
    from validator.releases import SNAPSHOT_DIR

    return SNAPSHOT_DIR


def _add_vllm_cli(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("vllm-cli", help="extract and vendor the `vllm serve` CLI registry of "
                       "released vLLM versions (docs/vllm-cli-registry.md)")
    p.add_argument("versions", nargs="+", metavar="VERSION",
                   help="release versions, 'all' (every release from 0.4.2) or 'missing'")
    p.add_argument("--out-dir", type=option_path, default=None, metavar="DIR",
                   help="output folder (the registry; default: snapshots/vllm-cli; not with "
                        "--plugin)")
    from validator.vllm_cli.plugins import PLUGINS

    p.add_argument("--plugin", choices=sorted(PLUGINS), default=None,
                   help="extract that platform plugin's releases instead (built on the "
                   "vendored vLLM release each one pairs with; snapshots/vllm-cli/<plugin>)")
    p.add_argument("--types-only", action="store_true",
                   help="extract only each release's option value kinds into <registry "
                   "folder>/types ('missing': every release without them, newest first)")
    p.set_defaults(action=_vllm_cli)


def _vllm_cli(args: argparse.Namespace) -> int:
    from validator.vllm_cli.extract import main_vllm_cli
    from validator.vllm_cli.registry import DEFAULT_REGISTRY_DIR

    if args.plugin is not None:
        if args.out_dir is not None:
            raise UsageError("--out-dir cannot be combined with --plugin")
        from validator.vllm_cli.extract_plugin import main_plugin_cli

        return main_plugin_cli(args.plugin, list(args.versions))
    if args.types_only:
        from validator.vllm_cli.extract_types import main_types

        return main_types(list(args.versions), args.out_dir or DEFAULT_REGISTRY_DIR)
    from validator.vllm_cli.extract_types import extract_release

    return main_vllm_cli(list(args.versions), args.out_dir or DEFAULT_REGISTRY_DIR,
                         extract_release)


ACTIONS: list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]] = [
    _add_refresh,
    _add_show,
    _add_vllm_cli,
]
"""Sub-action registrars, in help order."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Sub-actions of ``data`` (one argparse subparser each)."""
    sub = parser.add_subparsers(dest="data_action", metavar="ACTION", required=True)
    for add in ACTIONS:
        add(sub)


def run(args: argparse.Namespace) -> int:
    """Run the selected sub-action; 0 on success (failures raise :class:`UsageError`)."""
    action: Callable[[argparse.Namespace], int] = args.action
    return action(args)
