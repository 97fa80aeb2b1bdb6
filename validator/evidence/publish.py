"""Safe publishing of records into an output folder.

Layout of ``OUT``::

    records/<owner>/<name>/<commit>/<path>.json                    current record of a key
    records/<owner>/<name>/<commit>/<path>@recipe-check-<v>.json   kept record of tool <v>
    records/.../<path>.intoto.json                                 in-toto statement (opt.)
    schemas/record.schema.json                                     the schema records follow
    index.json                                                     rebuilt from disk

Rules, per key ``(repository, commit, path)``:

* every file is written atomically: a temporary file in the same folder, ``fsync``, then
  :func:`os.replace` (and the folder is fsynced), so a reader -- or a publisher killed at
  any instant -- sees either no file or a complete one;
* a record whose bytes equal the stored ones is a no-op; so is one that differs only in
  its checked-on dates or in ``source.resolved_from`` (the name the commit was fetched
  by, e.g. ``main``: how it was asked for, not what the pinned document states; the
  stored, earlier record of the same bytes stands);
* different content from the *same* tool version is an error (:class:`PublishConflict`,
  naming the first fields that differ): the same input must give the same record; the
  stored file is left as it is, and not indexed as current (:attr:`Publisher.refused`);
* a record from a *different* tool version replaces the current file after the old one
  has been kept beside it as ``<path>@recipe-check-<old version>.json``;
* ``index.json`` is rebuilt from the files on disk after every run (never patched), so it
  cannot disagree with them after a crash and a re-run.

Re-derivation (when the caller gives ``check_old``/``attestation_of``, as ``recipe-check
publish`` does): a stored record that differs from the one made now is kept as an older
tool's record only if ``check_old`` finds nothing wrong with it (it parses, follows the
record schema, names the same document and every fact's value is what the document
states at its pointer); otherwise it is replaced, not kept, and reported. An
``.intoto.json`` that is not the statement of the record beside it is rewritten and
reported. With ``strict_index`` the index lists as current only the records this run
made or confirmed, while they hold the bytes it verified (:attr:`Publisher.verified`);
every other file under ``records/`` is listed under ``not_verified``
and reported (:attr:`Publisher.reports`).

A :mod:`filelock` lock (``OUT/.publish.lock``) serialises concurrent publishers.

No link inside ``OUT`` is followed: every read and write goes through
:class:`validator.atomic.ConfinedFolder`, which refuses a link at the file or on its way
by name (:class:`~validator.atomic.LinkRefused`); a link under ``records/`` is reported
and listed under ``not_verified``, never read or indexed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from filelock import FileLock

from validator.atomic import ConfinedFolder, LinkRefused, NotAFileError
from validator.evidence.model import SCHEMA_PATH
from validator.render.api_paths import path_key
from validator.source.provenance import sha256_hex
from validator.source.spec import FULL_COMMIT, check_path
from validator.source.tree import SourceError
from validator.state_json import parse_json

INDEX = "index.json"
INDEX_FORMAT = "recipe-check/record-index/v1"
"""The ``format`` of the index publish writes: an ``index.json`` without it is not
publish's, and publish refuses to replace it
(:func:`validator.evidence.foreign_files.foreign_index`)."""
LOCK = ".publish.lock"
RECORDS = "records"
KEPT_MARK = "@recipe-check-"
ATTESTATION_SUFFIX = ".intoto.json"


class PublishConflict(Exception):
    """Different record bytes for an existing key from the same tool version."""


Outcome = Literal["written", "unchanged", "replaced"]


_REPOSITORY = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


def record_path(out: Path, repository: str, commit: str, path: str) -> Path:
    """Where the current record of a key lives under ``out``.

    Raises:
        ValueError: a repository, commit or path that could leave ``out`` (``..``,
            absolute paths, not ``owner/name``, not a full commit id), or a document whose
            file name publish's own files would take for one of theirs (an older tool's
            kept record ``...@recipe-check-<v>.json``, a temporary ``.*`` file).
    """
    if not _REPOSITORY.match(repository) or any(
            part in (".", "..") for part in repository.split("/")):
        raise ValueError(f"{repository!r}: not an owner/name repository")
    if not FULL_COMMIT.match(commit):
        raise ValueError(f"{commit!r}: not a full commit id")
    try:
        check_path(path)
    except SourceError as exc:
        raise ValueError(str(exc)) from exc
    name = path.rsplit("/", 1)[-1]
    if KEPT_MARK in name or name.startswith("."):
        what = "an older tool's kept record" if KEPT_MARK in name else "a temporary file"
        raise ValueError(f"{path!r}: its record would be taken for {what} of publish "
                         "(rename the document)")
    return out / RECORDS / repository / commit / f"{path}.json"


Key = tuple[str, str, str]


def clashing_records(keys: Iterable[Key], source: str) -> dict[Key, str]:
    """Keys (repository, commit, path) whose record files are one file on a file system
    that ignores letter case or Unicode form (macOS, Windows; GitHub, too, takes
    ``Acme/Recipes`` for ``acme/recipes``), each with why it is not published: the
    keys it clashes with, all listed in ``source``."""
    groups: dict[str, list[Key]] = {}
    for key in dict.fromkeys(keys):
        try:
            rel = record_path(Path(), *key).as_posix()
        except ValueError:
            continue
        groups.setdefault(path_key(rel), []).append(key)
    return {key: "its record file and that of " + ", ".join(
                "{}@{}:{}".format(*other) for other in group if other != key)
            + f" (both in {source}) are one file where letter case or Unicode form is "
            "ignored (macOS, Windows); neither is published"
            for group in groups.values() if len(group) > 1 for key in group}


def attestation_path(target: Path) -> Path:
    """Where the in-toto statement of the record file ``target`` lives (beside it)."""
    return target.with_name(target.name[:-len(".json")] + ATTESTATION_SUFFIX)


def _tool_version(data: bytes) -> str | None:
    try:
        doc = parse_json(data)
        version = doc["validation"]["tool"]["version"]
    except (ValueError, KeyError, TypeError):
        return None
    return version if isinstance(version, str) else None


def _identity(data: bytes) -> Any:
    """A record without what may differ between two records of one input: the dates it
    was checked and generated on, and the name its commit was resolved from."""
    doc = parse_json(data)
    for section, key in (("source", "checked_on"), ("editorial", "generated_on"),
                         ("source", "resolved_from")):
        part = doc.get(section) if isinstance(doc, dict) else None
        if isinstance(part, dict):
            part.pop(key, None)
    return doc


def _differences(old: Any, new: Any, pointer: str = "") -> list[str]:
    """JSON pointers of the values that differ between ``old`` and ``new``."""
    if isinstance(old, dict) and isinstance(new, dict):
        return [d for key in sorted(set(old) | set(new), key=str)
                for d in _differences(old.get(key), new.get(key), f"{pointer}/{key}")]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [d for i, (a, b) in enumerate(zip(old, new, strict=True))
                for d in _differences(a, b, f"{pointer}/{i}")]
    return [] if old == new else [pointer or "/"]


@dataclass
class Publisher:
    """Writes records into ``out`` following the module's rules.

    Use as a context manager to hold the publish lock::

        with Publisher(out) as pub:
            pub.put(repository, commit, path, record_bytes)
    """

    out: Path
    timeout: float = 600.0
    check_old: Callable[[bytes], str | None] | None = None
    attestation_of: Callable[[bytes], bytes] | None = None
    strict_index: bool = False

    def __post_init__(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        self.files = ConfinedFolder(self.out)
        """Every read and write below ``out``: no link inside it is followed."""
        if (self.out / LOCK).is_symlink():
            raise LinkRefused(0, f"{self.out / LOCK}: is a symbolic link; publish does not "
                              f"follow links inside {self.out} (remove it)")
        self._lock = FileLock(str(self.out / LOCK), timeout=self.timeout)
        self.reports: list[str] = []
        """Files this run found but did not make, with what was done about each."""
        self.verified: dict[Path, str] = {}
        """Record and statement files this run wrote or confirmed -> SHA-256 of the bytes
        it wrote or confirmed (a file holding other bytes later is not indexed)."""
        self.refused: dict[Path, str] = {}
        """Record files of this run's keys that it did not verify -> why."""

    def __enter__(self) -> Publisher:
        self._lock.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()

    def put(self, repository: str, commit: str, path: str, data: bytes,
            attestation: bytes | None = None) -> Outcome:
        """Publish one record (and optionally its in-toto statement).

        Returns:
            ``"written"`` (new key), ``"unchanged"`` (same bytes, or only the checked-on
            dates differ) or ``"replaced"`` (older tool version kept beside).

        Raises:
            PublishConflict: same tool version, different content.
            ValueError: a key that could name a file outside ``out``.
            OSError: the folder cannot be written.
        """
        target = record_path(self.out, repository, commit, path)
        old = self._read(target)
        outcome = self._store_record(target, old, data, f"{repository}@{commit}:{path}", path)
        self.verified[target] = sha256_hex(data if outcome != "unchanged" or old is None else old)
        if attestation is not None:
            self._store_attestation(attestation_path(target), attestation, outcome, old)
        return outcome

    def _store_record(self, target: Path, old: bytes | None, data: bytes, key: str,
                      path: str) -> Outcome:
        """Write ``data`` at ``target`` unless the stored record ``old`` is the same one;
        keep an older tool version's record beside it (``key``: the record's
        ``repository@commit:path``, for messages)."""
        problem = None
        if old is not None and old != data and self.check_old is not None:
            problem = self.check_old(old)
        if problem is not None:
            self._write(target, data)
            self.reports.append(f"{target}: {problem}; not a record publish made: replaced "
                                "and not kept")
            return "replaced"
        if old is None:
            self._write(target, data)
            return "written"
        if old == data:
            return "unchanged"
        old_version, new_version = _tool_version(old), _tool_version(data)
        if old_version == new_version:
            self._refuse_if_different(target, old, data, key, new_version)
            return "unchanged"
        kept = target.with_name(f"{path.rsplit('/', 1)[-1]}{KEPT_MARK}"
                                f"{old_version or 'unknown'}.json")
        if self._read(kept) != old:
            self._write(kept, old)
        self._write(target, data)
        return "replaced"

    def _refuse_if_different(self, target: Path, old: bytes, data: bytes, key: str,
                             version: str | None) -> None:
        """Raise :class:`PublishConflict` when ``old`` and ``data``, both made by tool
        ``version``, differ in more than their checked-on dates."""
        try:
            differ = _differences(_identity(old), _identity(data))
        except ValueError:
            differ = ["the stored file is not JSON"]
        if not differ:
            return
        shown = ", ".join(differ[:3]) + (
            f" and {len(differ) - 3} more" if len(differ) > 3 else "")
        self.refused[target] = (
            f"differs at {shown} from the record made now from the same "
            f"document by the same tool version {version} (edited?)")
        raise PublishConflict(
            f"{target}: a different record for {key} "
            f"already exists from the same tool version {version} "
            f"(differs at {shown}); the same input must give the same "
            "record (remove it to replace it)")

    def _store_attestation(self, att: Path, attestation: bytes, outcome: Outcome,
                           old: bytes | None) -> None:
        """Write the record's statement beside it; when the record was kept as it was,
        make sure the statement beside it is the kept record's."""
        if outcome != "unchanged":
            self._write(att, attestation)
            self.verified[att] = sha256_hex(attestation)
            return
        expected = attestation
        if self.attestation_of is not None and old is not None:  # the record kept
            expected = self.attestation_of(old)
        stored = self._read(att)
        if stored is None:
            self._write(att, expected)
        elif self.attestation_of is not None and stored != expected:
            self._write(att, expected)
            self.reports.append(f"{att}: not the statement of the record beside it; "
                                "rewritten")
        statement = expected if self.attestation_of is not None or stored is None \
            else stored
        self.verified[att] = sha256_hex(statement)

    def _read(self, file: Path) -> bytes | None:
        """The bytes of ``file`` (under ``out``), ``None`` when absent; a link on the way is
        refused (:class:`~validator.atomic.LinkRefused`), and so is a folder or a FIFO
        (:class:`~validator.atomic.NotAFileError`)."""
        return self.files.read(file.relative_to(self.out).as_posix())

    def _write(self, file: Path, data: bytes) -> None:
        self.files.write(file.relative_to(self.out).as_posix(), data)

    def confirm(self, target: Path, sha256: str, attestation: Path | None = None,
                attestation_sha256: str | None = None) -> None:
        """Count the record file ``target`` holding the bytes of digest ``sha256`` (and its
        statement) as confirmed by this run without re-deriving it: the caller verified
        that these are the bytes made from the same inputs
        (:class:`validator.evidence.publish_inputs.InputsManifest`)."""
        self.verified[target] = sha256
        if attestation is not None and attestation_sha256 is not None:
            self.verified[attestation] = attestation_sha256

    def copy_schemas(self, schemas: Iterable[Path] = (SCHEMA_PATH,)) -> None:
        """Copy the schemas records follow into ``out/schemas/`` (skipped when equal)."""
        for schema in schemas:
            data = schema.read_bytes()
            target = self.out / "schemas" / schema.name
            if self._read(target) != data:
                self._write(target, data)

    def _not_current(self, file: Path, entry: dict[str, Any]) -> str | None:
        """Why a record file must not be indexed, or ``None``: it must sit where its own
        key puts it (or beside it as a kept older record) and, with ``strict_index``, be
        made or confirmed by this run when current."""
        try:
            home = record_path(self.out, str(entry["repository"]), str(entry["commit"]),
                               str(entry["path"]))
        except ValueError as exc:
            return f"names an impossible key ({exc})"
        stem = home.name[:-len(".json")]
        if file.parent != home.parent or not (
                file.name == home.name or file.name.startswith(stem + KEPT_MARK)):
            return (f"sits at {file.relative_to(self.out).as_posix()} but is the record of "
                    f"{entry['repository']}@{entry['commit']}:{entry['path']}")
        if self.strict_index and entry["current"]:
            return self._unverified(file, entry["sha256"])
        return None

    def _unverified(self, file: Path, sha256: str) -> str | None:
        """Why ``file`` (now holding bytes of digest ``sha256``) is not a file this run
        verified, or ``None``."""
        if file in self.refused:
            return self.refused[file]
        if file not in self.verified:
            return "not made by this publish run (its key is not in the lock file)"
        if self.verified[file] != sha256:
            return "changed after this publish run verified it"
        return None

    def rebuild_index(self) -> dict[str, Any]:
        """Rebuild ``index.json`` from the record files on disk and write it atomically.

        Temporary files (``.*``) are ignored; a file that is not a JSON record is listed
        under ``unreadable``. Entries are sorted by (repository, commit, path, file).
        """
        entries: list[dict[str, Any]] = []
        unreadable: list[str] = []
        not_verified: list[dict[str, str]] = []
        root = self.out / RECORDS
        files = [root] if root.is_symlink() else sorted(root.rglob("*")) if root.is_dir() \
            else []
        for file in files:
            rel = file.relative_to(self.out).as_posix()
            if file.is_symlink():
                not_verified.append({"file": rel, "why": "a symbolic link (not followed)"})
                self.reports.append(f"{file}: a symbolic link; not followed, not indexed")
                continue
            if file.name.startswith(".") or file.is_dir():
                continue
            if file.name.endswith(ATTESTATION_SUFFIX) or not file.name.endswith(".json") \
                    or not file.is_file():
                if self.strict_index and (file not in self.verified or (
                        file.is_file() and self._unverified(file, sha256_hex(file.read_bytes())))):
                    not_verified.append({"file": rel, "why": "not made by this run"})
                    self.reports.append(f"{file}: not made by this publish run; not indexed")
                continue
            try:
                entry = _index_entry(rel, self._read(file) or b"")
            except (ValueError, KeyError, TypeError, NotAFileError):
                unreadable.append(rel)
                self.reports.append(f"{file}: not a readable record; not indexed")
                continue
            why = self._not_current(file, entry)
            if why is not None:
                not_verified.append({"file": rel, "why": why})
                self.reports.append(f"{file}: {why}; not indexed")
                continue
            att = attestation_path(file)
            if entry["current"] and att.is_file() and not att.is_symlink() and not (
                    self.strict_index and self._unverified(att, sha256_hex(att.read_bytes()))):
                entry["attestation"] = att.relative_to(self.out).as_posix()
            entries.append(entry)
        entries.sort(key=lambda e: (e["repository"], e["commit"], e["path"], e["file"]))
        index = {"format": INDEX_FORMAT, "records": entries,
                 "unreadable": unreadable, "not_verified": not_verified,
                 "schemas": sorted(p.relative_to(self.out).as_posix()
                                   for p in (self.out / "schemas").glob("*.json"))
                 if (self.out / "schemas").is_dir() else []}
        self._write(self.out / INDEX, (json.dumps(index, indent=2, sort_keys=True) + "\n")
                    .encode())
        return index


def _index_entry(rel: str, data: bytes) -> dict[str, Any]:
    """The index entry of the record file ``rel`` holding ``data``.

    Raises:
        ValueError, KeyError, TypeError: ``data`` is not a JSON record.
    """
    doc = parse_json(data)
    src = doc["source"]
    return {
        "repository": src["repository"], "commit": src["revision"],
        "path": src["document_path"], "file": rel,
        "sha256": sha256_hex(data),
        "document_sha256": src["document_sha256"],
        "checked_on": src["checked_on"],
        "tool_version": doc["validation"]["tool"]["version"],
        "current": KEPT_MARK not in rel.rsplit("/", 1)[-1],
        "errors": doc["validation"]["summary"]["errors"],
        "warnings": doc["validation"]["summary"]["warnings"],
    }


def record_problem(old: bytes, new: bytes, key: tuple[str, str, str]) -> str | None:
    """What is wrong with a stored record ``old`` of ``key`` (repository, commit, path),
    compared with ``new``, the record re-derived now from the same verified document;
    ``None`` when ``old`` could be an older tool's record of that document: valid JSON
    following the record schema, naming the same document (repository, revision, path,
    SHA-256 and git blob id), and every fact that both derive (same name and pointer)
    holding the same value."""
    from validator.evidence.model import RecordInvalid, validate_record

    try:
        data, fresh = parse_json(old), parse_json(new)
    except ValueError:
        return "not valid JSON (truncated or damaged)"
    if not isinstance(data, dict):
        return "not a JSON object"
    try:
        validate_record(data)
    except RecordInvalid as exc:
        return f"does not follow the record schema ({str(exc).splitlines()[0]})"
    src, now = data["source"], fresh["source"]
    named = (src["repository"], src["revision"], src["document_path"])
    same = ("document_sha256", "git_blob")
    if named != key or any(src.get(k) != now.get(k) for k in same):
        return f"names {named[0]}@{named[1]}:{named[2]}, not the document of its key"
    derived = {(f["name"], f["pointer"]): f["value"] for f in fresh["facts"]}
    for fact in data["facts"]:
        want = derived.get((fact["name"], fact["pointer"]), fact["value"])
        if fact["value"] != want:
            return (f"fact {fact['name']!r} at {fact['pointer']} states {fact['value']!r}, "
                    f"but the document gives {want!r}")
    return None
