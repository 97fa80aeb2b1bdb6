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
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from validator.commands.options import DeprecatedSpelling
from validator.commands.record import checked_on
from validator.context import Context, Settings, build_context
from validator.errors import UsageError
from validator.findings import printable
from validator.paths import option_path
from validator.progress import display_of
from validator.source.options import add_store_dir
from validator.source.tree import SourceError

if TYPE_CHECKING:
    from validator.evidence.publish import Publisher
    from validator.source.lockfile import LockEntry
    from validator.source.snapshots import SnapshotStore, SnapshotTree

PAUSE_ENV = "RECIPE_CHECK_PUBLISH_PAUSE"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``publish``."""
    parser.add_argument("--lock", type=option_path, metavar="FILE",
                        help="snapshot lock file (recipes.lock.json) listing the documents "
                             "(default: the store's, see 'recipe-check snapshot path')")
    add_store_dir(parser, "its lock file lists what is published")
    parser.add_argument("--out-dir", action=DeprecatedSpelling, deprecated=("--out",),
                        dest="out", type=option_path, required=True, metavar="DIR",
                        help="output folder (records/, schemas/, index.json; --out DIR is "
                             "its deprecated old name)")
    parser.add_argument("--checked-on", metavar="YYYY-MM-DD",
                        help="the date the records state they were checked (default: today, UTC)")
    parser.add_argument("--attestation", action="store_true",
                        help="write each record as an in-toto Statement v1 (beside the bare "
                             "record, as .intoto.json)")
    parser.add_argument("--site", type=option_path, metavar="DIR",
                        help="also build the static catalogue of the published records "
                             "here (HTML, works from disk); DIR is replaced whole, so it "
                             "must be new, empty or a catalogue publish made")


def run(args: argparse.Namespace) -> int:
    """Publish every recipe entry; see the module docstring for exit codes."""
    from validator.evidence.foreign_files import foreign_file
    from validator.evidence.publish import Publisher

    date = checked_on(args.checked_on)
    args.lock = _lock_file(args)
    _refuse_site_target(args)  # before anything is published
    _refuse_inside_repository_or_store(args)
    refused = foreign_file(args.out)
    if refused is not None:
        raise UsageError(f"--out-dir: {refused}; nothing published")
    pause = _pause_seconds()
    run = _PublishRun(args, date)
    with Publisher(args.out, attestation_of=_attestation_of, strict_index=True) as pub:
        pub.copy_schemas()
        run.publish_all(pub, pause)
        index = pub.rebuild_index()
        run.manifest.save()
        for line in pub.reports:
            print(f"recipe-check: {printable(line)}", file=sys.stderr)
        print(printable(run.summary(index, pub.reports)))
        if args.site is not None and not _site(args, index):
            return 2
    return 1 if run.failures or pub.reports else 0


def _lock_file(args: argparse.Namespace) -> Path:
    """The lock file ``--lock`` names, else that of ``--store-dir`` or the default store;
    a usage error when both are given or it does not exist."""
    lock: Path | None = args.lock
    if lock is None:
        from validator.paths import default_store_dir
        from validator.source.snapshots import LOCK_NAME

        lock = (args.store_dir or default_store_dir()) / LOCK_NAME
    elif args.store_dir is not None:
        raise UsageError("--lock names the store itself; give --lock or --store-dir")
    if not lock.is_file():
        raise UsageError(f"{lock}: no such lock file (fetch recipes into the store "
                         "first: recipe-check fetch)")
    return lock


def _refuse_inside_repository_or_store(args: argparse.Namespace) -> None:
    """A usage error when ``--out-dir`` or ``--site`` is, or lies inside, the git
    directory of a repository or a snapshot store (the one read: that of the lock file)
    (:func:`~validator.commands.output_guard.repository_or_store_problem`), or a cache
    folder (:func:`~validator.commands.output_guard.cache_problem`)."""
    from validator.commands.output_guard import (
        cache_problem,
        repository_or_store_problem,
        run_caches,
    )

    for option, folder in (("--out-dir", args.out), ("--site", args.site)):
        what = "records" if option == "--out-dir" else "the catalogue"
        why = folder and (repository_or_store_problem(folder, [args.lock.parent], what=what,
                                                      folder=True)
                          or cache_problem(folder, run_caches(args), what=what, folder=True))
        if why:
            raise UsageError(f"{option} {folder}: {why}; nothing published")


def _refuse_site_target(args: argparse.Namespace) -> None:
    """A usage error when ``--site`` names a folder the catalogue may not replace."""
    if args.site is None:
        return
    from validator.evidence.site.guard import site_problem

    refused = site_problem(args.site, (("the publish folder (--out-dir)", args.out),
                                       ("the snapshot store", args.lock.parent)))
    if refused is not None:
        raise UsageError(f"--site {args.site}: {refused}")


def _pause_seconds() -> float:
    """The pause after each record (:data:`PAUSE_ENV`; tests kill a publisher mid-run)."""
    try:
        return float(os.environ.get(PAUSE_ENV, "0") or 0)
    except ValueError as exc:
        raise UsageError(f"{PAUSE_ENV}: expected seconds, got "
                         f"{os.environ.get(PAUSE_ENV)!r}") from exc


def _attestation_of(stored: bytes) -> bytes:
    from validator.evidence.attest import statement_bytes
    from validator.evidence.model import Record

    return statement_bytes(Record.model_validate_json(stored))


class _PublishRun:
    """One publish run over the recipe entries of the lock file: one tree, context and
    revision digest per commit (as one check run), the counts it reports."""

    def __init__(self, args: argparse.Namespace, date: str) -> None:
        from validator.evidence.publish import clashing_records
        from validator.evidence.publish_inputs import InputsManifest
        from validator.source.snapshots import SnapshotStore

        self.args, self.date = args, date
        self.store = SnapshotStore(args.lock.parent)
        self.store.lock_path = args.lock
        self.entries = sorted((e for e in self.store.load().files
                               if e.path.startswith("models/")
                               and e.path.endswith((".yaml", ".yml"))), key=lambda e: e.key)
        self.clashes = clashing_records((e.key for e in self.entries), str(args.lock))
        self.manifest = InputsManifest(args.out, manifest_secret(args.out))
        self.failures = self.skipped = 0
        self.counts = {"written": 0, "unchanged": 0, "replaced": 0}
        self.trees: dict[tuple[str, str], SnapshotTree] = {}
        self.contexts: dict[tuple[str, str], Context] = {}
        #: the store of site renderings every context of the run shares: a recipe's
        #: record at the next commit reuses them where what they read is the same
        self.renderings: OrderedDict[Any, Any] = OrderedDict()
        self.revisions: dict[tuple[str, str], dict[str, Any]] = {}
        self.settings = Settings(offline=True)

    def publish_all(self, pub: Publisher, pause: float) -> None:
        """Publish each entry, with progress on stderr."""
        bar = display_of(self.args)("publishing", len(self.entries))  # never the summary
        try:
            for entry in self.entries:
                self._publish_one(pub, entry, pause)
                bar.advance()
        finally:
            bar.close()

    def _publish_one(self, pub: Publisher, entry: LockEntry, pause: float) -> None:
        """Publish one entry; a record that cannot be made is reported and counted."""
        from validator.atomic import NotAFileError
        from validator.evidence.publish import PublishConflict, record_path
        from validator.evidence.record import RecordError

        label = f"{entry.repository}@{entry.commit}:{entry.path}"
        target = None
        try:
            if entry.key in self.clashes:
                raise ValueError(self.clashes[entry.key])
            target = record_path(self.args.out, *entry.key)
            self._publish_entry(pub, entry, target)
        except (RecordError, SourceError, PublishConflict, ValueError,
                NotAFileError) as exc:
            print(printable(f"recipe-check: {label}: {exc}"), file=sys.stderr)
            self.failures += 1
            if target is not None:  # a stored file of the key is not verified now
                pub.refused.setdefault(target, "this run could not make the record of "
                                               "its key (see the error above)")
        finally:
            if pause > 0:
                time.sleep(pause)

    def _publish_entry(self, pub: Publisher, entry: LockEntry, target: Path) -> None:
        """Confirm the record of ``entry`` when its inputs are unchanged, else make it
        and put it (the publisher compares it with the stored one)."""
        from validator.evidence.attest import statement_bytes
        from validator.evidence.publish import attestation_path, record_problem
        from validator.evidence.publish_inputs import inputs_digest
        from validator.evidence.record import build_record, record_bytes
        from validator.source.snapshots import SnapshotTree

        key = (entry.repository, entry.commit)
        tree = self.trees.setdefault(key, SnapshotTree(self.store, entry.repository,
                                                       entry.commit, entry.resolved_from))
        att = attestation_path(target) if self.args.attestation else None
        if key not in self.revisions:
            self.revisions[key] = _revision_inputs(self.store, tree)
        digest = inputs_digest({"revision": self.revisions[key],
                                "entry": entry.model_dump(mode="json"),
                                "checked_on": self.date, "attestation": att is not None})
        noted = self.manifest.unchanged(target, digest, att) \
            if self.revisions[key]["verified"] else None
        if noted is not None:
            pub.confirm(target, noted[0], att, noted[1])
            self.counts["unchanged"] += 1
            self.skipped += 1
            return
        if key not in self.contexts:
            self.contexts[key] = build_context(tree, self.settings,
                                               renderings=self.renderings)
        record = build_record(tree, entry.path, checked_on=self.date, settings=self.settings,
                              context=self.contexts[key])
        attestation = statement_bytes(record) if self.args.attestation else None
        made = record_bytes(record)
        pub.check_old = lambda old, made=made, key=entry.key: record_problem(old, made, key)
        outcome = pub.put(entry.repository, entry.commit, entry.path, made, attestation)
        self.counts[outcome] += 1
        self.manifest.note(target, digest, made, att)

    def summary(self, index: dict[str, Any], reports: list[str]) -> str:
        """The closing line: what was written, kept, replaced, failed, indexed."""
        total = len(self.entries)
        head = (f"published {total} record(s) into {self.args.out}" if not self.failures
                else f"published {total - self.failures} of {total} record(s) into "
                f"{self.args.out}; {self.failures} refused, each for the reason printed "
                "above it")
        return (f"{head}: " + ", ".join(f"{v} {k}" for k, v in self.counts.items())
                + f", {self.failures} failed; {self.skipped} unchanged by their inputs digest "
                  f"(not re-derived); index lists {len(index['records'])} file(s)"
                + (f"; {len(reports)} file(s) publish did not make (see above)"
                   if reports else ""))


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
    from validator.evidence.site.renderings import RecipeReader, store_tree
    from validator.source.snapshots import SnapshotStore

    try:
        store = args.lock.parent
        site = build_site(args.out, args.site, keep=(("the snapshot store", store),),
                          index=index, recipes=RecipeReader(store_tree(SnapshotStore(store))),
                          progress=display_of(args))
    except (SiteError, OSError) as exc:
        print(f"recipe-check: --site {args.site}: {printable(str(exc))}", file=sys.stderr)
        return False
    print(printable(f"catalogue: {site.pages} record page(s) in {args.site}"))
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
