"""``recipe-check fetch SPEC...``: fetch pinned recipes with their context, verify them and
add them to the snapshot store.

For each ``OWNER/REPO@REV:PATH`` the document, and once per commit ``taxonomy.yaml``,
``strategies/*.yaml`` and ``kv_store/*.yaml``, are read with the chosen backend, each
verified against the commit's tree (PROV001) and against any expected digest (PROV002:
``--expect-sha256``, or the lock file's existing entry), and only then stored, with the
commit's data-file list, in one atomic lock-file update per commit (see
:mod:`validator.source.snapshots`). A document that fails verification is not stored; a
context file that fails, or the failure of every document of a commit, stores nothing for
that commit.

Exit codes: 0 all stored, 1 a verification error (PROV finding printed) or a file of a
folder left out for its name (said on stderr; the others are stored), 2 a spec could
not be fetched (bad spec, unknown revision, missing path, network failure).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

from validator.findings import printable
from validator.source.options import add_fetch_arguments, fetch_options_from
from validator.source.provenance import Provenance
from validator.source.snapshots import (
    SnapshotStore,
    chain_objects,
    context_paths,
    tree_listing,
    verified_files,
)
from validator.source.spec import SpecError, check_path, parse_spec
from validator.source.targets import TreeKey, open_targets
from validator.source.tree import RecipeTree, SourceError
from validator.source.verify import VerificationError


@dataclass
class _Commit:
    tree: RecipeTree
    repository: str
    resolved_from: str | None
    files: list[tuple[Provenance, bytes]] = field(default_factory=list)
    documents: int = 0
    objects: list[bytes] = field(default_factory=list)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``fetch``."""
    parser.add_argument("specs", nargs="+", metavar="SPEC",
                        help="OWNER/REPO@REV:PATH (a file, or a folder: its .yaml files)")
    add_fetch_arguments(parser, offline=False)


def _report(text: str, exc: VerificationError) -> None:
    f = exc.finding()
    print(printable(f"{f.path}:{f.line}:{f.column}: {f.severity.value} {f.rule} {f.message}"),
          file=sys.stderr)
    if f.hint:
        print(f"    hint: {printable(f.hint)}", file=sys.stderr)
    print(f"recipe-check: {printable(text)}: verification failed; nothing stored",
          file=sys.stderr)


def _named_safely(text: str, paths: list[str]) -> tuple[list[str], list[str]]:
    """``(paths to fetch, paths refused)``: a file of a folder whose name no path may hold
    (:func:`~validator.source.spec.check_path`: a percent-encoded byte, a control
    character, a backslash) is said on stderr and left out; the others are fetched."""
    kept: list[str] = []
    refused: list[str] = []
    for path in paths:
        try:
            kept.append(check_path(path))
        except SpecError as exc:
            refused.append(path)
            print(f"recipe-check: {text}: skipped {path!r}, a file of the repository: {exc}; "
                  "not fetched (rename it to fetch it)", file=sys.stderr)
    return kept, refused


def run(args: argparse.Namespace) -> int:
    """Fetch, verify and store every spec; print one line per stored file."""
    options = fetch_options_from(args)
    if options.expect_sha256 and len(args.specs) > 1:
        print("recipe-check: --expect-sha256 needs exactly one SPEC", file=sys.stderr)
        return 2
    store = SnapshotStore(options.store_dir)
    trees: dict[TreeKey, RecipeTree] = {}
    commits: dict[int, _Commit] = {}
    failed: set[int] = set()
    code = 0
    for text in args.specs:
        try:
            spec = parse_spec(text)
            tree, paths = open_targets(spec, options, trees)
            if id(tree) in failed:
                raise SourceError("the context files of this commit failed; see above")
            if id(tree) not in commits:
                try:
                    context = verified_files(tree, context_paths(tree))
                except SourceError:
                    failed.add(id(tree))
                    raise
                commits[id(tree)] = _Commit(tree, spec.repository,
                                            None if spec.pinned else spec.rev, context)
            paths, refused = _named_safely(text, paths)
            code = max(code, 1 if refused else 0)
            commits[id(tree)].files += verified_files(tree, paths)
            commits[id(tree)].objects += chain_objects(
                tree, [*paths, *(p.path for p, _ in commits[id(tree)].files)])
            commits[id(tree)].documents += len(paths)
        except VerificationError as exc:
            _report(text, exc)
            code = max(code, 1)
        except (FileNotFoundError, SourceError) as exc:
            print(f"recipe-check: {text}: {exc}", file=sys.stderr)
            code = 2
    for group in commits.values():
        if not group.documents:  # every document of this commit failed: store nothing
            continue
        label = f"{group.repository}@{group.tree.revision}"
        try:
            entries = store.add(group.files, tree_listing(group.tree, group.repository),
                                group.objects)
        except VerificationError as exc:
            _report(label, exc)
            code = max(code, 1)
            continue
        except SourceError as exc:
            print(printable(f"recipe-check: {label}: {exc}"), file=sys.stderr)
            code = 2
            continue
        resolved = f" (resolved from {group.resolved_from})" if group.resolved_from else ""
        print(printable(f"{label}{resolved}: {len(entries)} file(s) verified and stored in "
                        f"{store.root}"))
        for e in entries:
            print(printable(f"  {e.path}  sha256:{e.sha256}  gitBlob:{e.git_blob}"))
    return code
