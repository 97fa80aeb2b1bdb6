"""``recipe-check snapshot verify|list``: inspect the verified snapshot store.

``verify`` first deletes, under the store lock, the partial ``.tmp`` files killed fetches
left (each is printed), then re-hashes every stored file against its lock entry (SHA-256
and git blob id, PROV003) and checks that the entry belongs to its commit (PROV007); it
exits 1 on any problem, 0 when all match, 2 when the store or its lock file cannot be
read. ``list`` prints the lock entries.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from validator.source.options import DEFAULT_SNAPSHOT_DIR
from validator.source.snapshots import SnapshotStore
from validator.source.tree import SourceError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``snapshot``."""
    parser.add_argument("action", choices=["verify", "list"])
    parser.add_argument("--snapshot-dir", type=Path, default=DEFAULT_SNAPSHOT_DIR, metavar="DIR",
                        help="snapshot store (default snapshots/recipes/ of the project)")


def run(args: argparse.Namespace) -> int:
    """Run the action; see the module docstring for exit codes."""
    store = SnapshotStore(args.snapshot_dir)
    if not store.lock_path.is_file():
        # an empty result here would let a mistyped --snapshot-dir pass a CI step
        print(f"recipe-check: {store.lock_path}: no snapshot store here (no lock file); "
              "create one with 'recipe-check fetch'", file=sys.stderr)
        return 2
    try:
        if args.action == "list":
            for e in store.load().files:
                print(f"{e.repository}@{e.commit}:{e.path}  sha256:{e.sha256}  "
                      f"gitBlob:{e.git_blob}  last:{e.last_commit} {e.last_commit_date}")
            return 0
        removed = store.clean()
        checked, problems = store.verify()
    except SourceError as exc:
        print(f"recipe-check: {exc}", file=sys.stderr)
        return 2
    for partial in removed:
        print(f"{partial}: partial file left by an interrupted fetch; removed")
    for p in problems:
        print(f"{p.entry.repository}@{p.entry.commit}:{p.entry.path}: error "
              f"{p.rule} {p.message}")
    print(f"{checked} stored file(s) verified in {store.root}: {len(problems)} mismatch(es)")
    return 1 if problems else 0
