"""``recipe-check snapshot verify|list``: inspect the verified snapshot store.

``verify`` first deletes, under the store lock, the partial ``.tmp`` files killed fetches
left (each is printed), then re-hashes every stored file against its lock entry (SHA-256
and git blob id, PROV003) and checks that the entry belongs to its commit (PROV007); it
exits 1 on any problem, 0 when all match, 2 when the store or its lock file cannot be
read. ``list`` prints the lock entries, ``path`` the store folder
(:func:`validator.paths.default_store_dir` unless ``--store-dir``).
"""

from __future__ import annotations

import argparse
import sys

from validator.paths import default_store_dir
from validator.source.options import add_store_dir
from validator.source.snapshots import SnapshotStore


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Actions of ``snapshot``, each a sub-command with its own ``--help``."""
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, help_ in (("verify", "re-hash every stored file against the lock file "
                                   "(exit 1 on a mismatch or a missing file)"),
                        ("list", "print the lock file's entries"),
                        ("path", "print the store folder (where fetch writes)")):
        p = sub.add_parser(name, help=help_, description=help_)
        add_store_dir(p, "")


def run(args: argparse.Namespace) -> int:
    """Run the action; see the module docstring for exit codes."""
    folder = args.store_dir or default_store_dir()
    if args.action == "path":
        print(folder)
        return 0
    store = SnapshotStore(folder)
    if not store.lock_path.is_file():
        # an empty result here would let a mistyped --store-dir pass a CI step
        print(f"recipe-check: {store.lock_path}: no snapshot store here (no lock file); "
              "create one with 'recipe-check fetch'", file=sys.stderr)
        return 2
    if args.action == "list":
        for e in store.load().files:
            print(f"{e.repository}@{e.commit}:{e.path}  sha256:{e.sha256}  "
                  f"gitBlob:{e.git_blob}  last:{e.last_commit} {e.last_commit_date}")
        return 0
    removed = store.clean()
    checked, problems = store.verify()
    for partial in removed:
        print(f"{partial}: partial file left by an interrupted fetch; removed")
    for p in problems:
        print(f"{p.entry.repository}@{p.entry.commit}:{p.entry.path}: error "
              f"{p.rule} {p.message}")
    print(f"{checked} stored file(s) verified in {store.root}: {len(problems)} mismatch(es)")
    return 1 if problems else 0
