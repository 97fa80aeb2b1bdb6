"""``recipe-check fetch SPEC...``: fetch pinned recipes with their context, verify them and
add them to the snapshot store.

For each ``OWNER/REPO@REV:PATH`` the document, ``taxonomy.yaml``, ``strategies/*.yaml``
and ``kv_store/*.yaml`` of the same commit are read with the chosen backend, each
verified against the commit's tree (PROV001) and against any expected digest (PROV002),
and only then stored with the commit's data-file list (see
:mod:`validator.source.snapshots`). A spec that fails verification stores nothing.

Exit codes: 0 all stored, 1 a verification error (PROV finding printed), 2 a spec could
not be fetched (bad spec, unknown revision, missing path, network failure).
"""

from __future__ import annotations

import argparse
import sys

from validator.source.options import add_fetch_arguments, fetch_options_from
from validator.source.snapshots import SnapshotStore, snapshot_spec
from validator.source.spec import TreeKey, open_spec, parse_spec
from validator.source.tree import RecipeTree, SourceError
from validator.source.verify import VerificationError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``fetch``."""
    parser.add_argument("specs", nargs="+", metavar="SPEC", help="OWNER/REPO@REV:PATH")
    add_fetch_arguments(parser, offline=False)


def run(args: argparse.Namespace) -> int:
    """Fetch, verify and store every spec; print one line per stored file."""
    options = fetch_options_from(args)
    if options.expect_sha256 and len(args.specs) > 1:
        print("recipe-check: --expect-sha256 needs exactly one SPEC", file=sys.stderr)
        return 2
    store = SnapshotStore(options.snapshot_dir)
    trees: dict[TreeKey, RecipeTree] = {}
    code = 0
    for text in args.specs:
        try:
            spec = parse_spec(text)
            tree, path = open_spec(spec, options, trees)
            entries = snapshot_spec(store, tree, spec.repository, [path])
        except VerificationError as exc:
            f = exc.finding()
            print(f"{f.path}:{f.line}:{f.column}: {f.severity.value} {f.rule} {f.message}",
                  file=sys.stderr)
            if f.hint:
                print(f"    hint: {f.hint}", file=sys.stderr)
            print(f"recipe-check: {text}: verification failed; nothing stored", file=sys.stderr)
            code = max(code, 1)
            continue
        except FileNotFoundError as exc:
            print(f"recipe-check: {text}: {exc}", file=sys.stderr)
            code = 2
            continue
        except SourceError as exc:
            print(f"recipe-check: {text}: {exc}", file=sys.stderr)
            code = 2
            continue
        resolved = f" (resolved from {spec.rev})" if not spec.pinned else ""
        print(f"{spec.repository}@{tree.revision}{resolved}: {len(entries)} file(s) verified "
              f"and stored in {store.root}")
        for e in entries:
            print(f"  {e.path}  sha256:{e.sha256}  gitBlob:{e.git_blob}")
    return code
