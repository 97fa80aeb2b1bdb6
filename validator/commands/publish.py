"""``recipe-check publish --lock FILE --out-dir DIR``: one record per recipe in a lock file.

The lock file is a snapshot store's ``recipes.lock.json``
(:mod:`validator.source.snapshots`); every ``models/**.yaml`` entry is read back from that
store (re-verified against its digests) together with the context files stored for its
commit, and published into ``DIR`` by :class:`validator.evidence.publish.Publisher`
(atomic writes, idempotent, conflicts refused, ``index.json`` rebuilt from disk, the
record schema copied to ``DIR/schemas/``). Entries that are not recipes (taxonomy,
strategies) are context, not records.

The environment variable ``RECIPE_CHECK_PUBLISH_PAUSE`` (seconds) makes the command pause
after each record; tests use it to kill a publisher mid-run.

Publishing re-derives and compares (:func:`validator.evidence.publish.record_problem`): a
stored record that is damaged, off-schema, about another document, or states a fact
other than the one derived now is replaced and not kept as an older tool's record; an
edited ``.intoto.json`` is rewritten; the index lists only records this run made or
confirmed. Every file publish did not make is printed.

A warm run skips re-deriving a record whose inputs (the commit's lock entries and listing,
the checked-on date, ``--attestation``, the tool's own files) have the digest noted in
``DIR/.publish-inputs.json`` when it was made, provided the stored files of that commit
still verify, the record (and statement) on disk still hash to the bytes noted then, and
the manifest's entry carries its HMAC under the cache folder's secret, which lies outside
``DIR`` (:func:`manifest_secret`, :mod:`validator.evidence.publish_inputs`): a manifest
edited to match an edited record is not trusted. Anything else is re-derived and compared.

``--site SITE`` then builds the catalogue (:mod:`validator.evidence.site`) and swaps it in
for ``SITE`` whole; ``SITE`` must not exist, be empty, or be a catalogue an earlier
``--site`` made (its marker file lists its files, and it holds no other), and may not be,
hold or lie inside ``--out-dir`` or the store, nor be the current folder or an ancestor of
it: anything else is a usage error (exit 2) before anything is published.

Exit codes: 0 every record published or unchanged, 1 a record could not be made or
conflicts with a published one (the others are still published), or a file in ``DIR``
was not made by publish (each reported), 2 usage or I/O failure.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from validator.commands.options import DeprecatedSpelling
from validator.commands.record import checked_on
from validator.context import Context, Settings, build_context
from validator.errors import UsageError
from validator.findings import printable
from validator.source.options import add_store_dir
from validator.source.tree import SourceError

if TYPE_CHECKING:
    from validator.source.snapshots import SnapshotStore, SnapshotTree

PAUSE_ENV = "RECIPE_CHECK_PUBLISH_PAUSE"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``publish``."""
    parser.add_argument("--lock", type=Path, metavar="FILE",
                        help="snapshot lock file (recipes.lock.json) listing the documents "
                             "(default: the store's, see 'recipe-check snapshot path')")
    add_store_dir(parser, "its lock file lists what is published")
    parser.add_argument("--out-dir", action=DeprecatedSpelling, deprecated=("--out",),
                        dest="out", type=Path, required=True, metavar="DIR",
                        help="output folder (records/, schemas/, index.json; --out DIR is "
                             "its deprecated old name)")
    parser.add_argument("--checked-on", metavar="YYYY-MM-DD",
                        help="the date the records state they were checked (default: today, UTC)")
    parser.add_argument("--attestation", action="store_true",
                        help="write each record as an in-toto Statement v1 (beside the bare "
                             "record, as .intoto.json)")
    parser.add_argument("--site", type=Path, metavar="DIR",
                        help="also build the static catalogue of the published records "
                             "here (HTML, works from disk); DIR is replaced whole, so it "
                             "must be new, empty or a catalogue publish made")


def run(args: argparse.Namespace) -> int:
    """Publish every recipe entry; see the module docstring for exit codes."""
    from validator.atomic import NotAFileError
    from validator.evidence.attest import statement_bytes
    from validator.evidence.model import Record
    from validator.evidence.publish import (
        PublishConflict,
        Publisher,
        attestation_path,
        clashing_records,
        record_path,
        record_problem,
    )
    from validator.evidence.publish_inputs import InputsManifest, inputs_digest
    from validator.evidence.record import RecordError, build_record, record_bytes
    from validator.source.snapshots import SnapshotStore, SnapshotTree

    date = checked_on(args.checked_on)
    if args.lock is None:
        from validator.paths import default_store_dir
        from validator.source.snapshots import LOCK_NAME

        args.lock = (args.store_dir or default_store_dir()) / LOCK_NAME
    elif args.store_dir is not None:
        raise UsageError("--lock names the store itself; give --lock or --store-dir")
    if not args.lock.is_file():
        raise UsageError(f"{args.lock}: no such lock file (fetch recipes into the store "
                         "first: recipe-check fetch)")
    if args.site is not None:
        from validator.evidence.site.guard import site_problem

        refused = site_problem(args.site, (("the publish folder (--out-dir)", args.out),
                                           ("the snapshot store", args.lock.parent)))
        if refused is not None:  # before anything is published
            raise UsageError(f"--site {args.site}: {refused}")
    store = SnapshotStore(args.lock.parent)
    store.lock_path = args.lock
    entries = [e for e in store.load().files
               if e.path.startswith("models/") and e.path.endswith((".yaml", ".yml"))]
    entries.sort(key=lambda e: e.key)
    try:
        pause = float(os.environ.get(PAUSE_ENV, "0") or 0)
    except ValueError as exc:
        raise UsageError(f"{PAUSE_ENV}: expected seconds, got "
                         f"{os.environ.get(PAUSE_ENV)!r}") from exc
    clashes = clashing_records((e.key for e in entries), str(args.lock))
    failures = skipped = 0
    counts = {"written": 0, "unchanged": 0, "replaced": 0}
    trees: dict[tuple[str, str], SnapshotTree] = {}
    contexts: dict[tuple[str, str], Context] = {}  # one per revision, as one check run
    revisions: dict[tuple[str, str], dict[str, Any]] = {}
    settings = Settings(offline=True)

    def attestation_of(stored: bytes) -> bytes:
        return statement_bytes(Record.model_validate_json(stored))

    with Publisher(args.out, attestation_of=attestation_of, strict_index=True) as pub:
        pub.copy_schemas()
        manifest = InputsManifest(args.out, manifest_secret(args.out))
        for entry in entries:
            key = (entry.repository, entry.commit)
            tree = trees.setdefault(key, SnapshotTree(store, entry.repository, entry.commit,
                                                      entry.resolved_from))
            label = f"{entry.repository}@{entry.commit}:{entry.path}"
            target = None
            try:
                if entry.key in clashes:
                    raise ValueError(clashes[entry.key])
                target = record_path(args.out, *entry.key)
                att = attestation_path(target) if args.attestation else None
                if key not in revisions:
                    revisions[key] = _revision_inputs(store, tree)
                digest = inputs_digest({"revision": revisions[key],
                                        "entry": entry.model_dump(mode="json"),
                                        "checked_on": date, "attestation": att is not None})
                noted = manifest.unchanged(target, digest, att) \
                    if revisions[key]["verified"] else None
                if noted is not None:
                    pub.confirm(target, noted[0], att, noted[1])
                    counts["unchanged"] += 1
                    skipped += 1
                    continue
                if key not in contexts:
                    contexts[key] = build_context(tree, settings)
                record = build_record(tree, entry.path, checked_on=date, settings=settings,
                                      context=contexts[key])
                attestation = statement_bytes(record) if args.attestation else None
                made = record_bytes(record)
                pub.check_old = lambda old, made=made, key=entry.key: record_problem(
                    old, made, key)
                outcome = pub.put(entry.repository, entry.commit, entry.path, made,
                                  attestation)
                counts[outcome] += 1
                manifest.note(target, digest, made, att)
            except (RecordError, SourceError, PublishConflict, ValueError,
                    NotAFileError) as exc:
                print(f"recipe-check: {label}: {exc}", file=sys.stderr)
                failures += 1
                if target is not None:  # a stored file of the key is not verified now
                    pub.refused.setdefault(target, "this run could not make the record of "
                                                   "its key (see the error above)")
            finally:
                if pause > 0:
                    time.sleep(pause)
        index = pub.rebuild_index()
        manifest.save()
        for line in pub.reports:
            print(f"recipe-check: {printable(line)}", file=sys.stderr)
        print(f"published {len(entries)} record(s) into {args.out}: "
              + ", ".join(f"{v} {k}" for k, v in counts.items())
              + f", {failures} failed; {skipped} unchanged by their inputs digest (not "
                f"re-derived); index lists {len(index['records'])} file(s)"
              + (f"; {len(pub.reports)} file(s) publish did not make (see above)"
                 if pub.reports else ""))
        if args.site is not None and not _site(args, index):
            return 2
    return 1 if failures or pub.reports else 0


def manifest_secret(out: Path) -> bytes | None:
    """The key of the inputs manifest's HMAC: the cache folder's secret
    (:func:`validator.cache.load_secret`), which lies outside ``out``. ``None`` (a warm
    run skips nothing, with a note) when it cannot be had or lies inside ``out``."""
    from validator.cache import SECRET_NAME, NotASecret, load_secret
    from validator.source.options import default_cache_dir

    root = default_cache_dir()
    if (root / SECRET_NAME).resolve().is_relative_to(out.resolve()):
        print(f"recipe-check: note: the cache folder {root} lies inside {out}; every record "
              "is re-derived (its inputs manifest cannot be keyed)", file=sys.stderr)
        return None
    try:
        root.mkdir(parents=True, exist_ok=True)
        return load_secret(root)[0]
    except (OSError, NotASecret) as exc:
        print(f"recipe-check: note: no key for {out}'s inputs manifest ({exc}); every "
              "record is re-derived", file=sys.stderr)
        return None


def _site(args: argparse.Namespace, index: dict[str, Any]) -> bool:
    """Build the catalogue of ``index`` (the one this run made, under its lock: only the
    records it verified, each checked against the digest it indexed); False on failure."""
    from validator.evidence.site import SiteError, build_site

    try:
        site = build_site(args.out, args.site, keep=(("the snapshot store", args.lock.parent),),
                          index=index)
    except (SiteError, OSError) as exc:
        print(f"recipe-check: --site {args.site}: {printable(str(exc))}", file=sys.stderr)
        return False
    print(f"catalogue: {site.pages} record page(s) in {args.site}")
    return True


def _revision_inputs(store: SnapshotStore, tree: SnapshotTree) -> dict[str, Any]:
    """What every record of ``tree``'s commit is made from, for the inputs digest: the
    lock entries and file listing of the commit and what it was resolved from; and
    ``verified``: whether every stored file of the commit still matches its lock entry
    (a record is only skipped when it does, as building it would read them)."""
    key = (tree.repository, tree.commit)
    entries = sorted((e for e in store.load().files if (e.repository, e.commit) == key),
                     key=lambda e: e.path)
    listing = store.listing(*key)
    try:
        for e in entries:
            store.read_verified(e)
        verified = True
    except (SourceError, OSError):
        verified = False
    return {"entries": [e.model_dump(mode="json") for e in entries],
            "listing": listing.paths if listing is not None else None,
            "resolved_from": tree.resolved_from, "verified": verified}
