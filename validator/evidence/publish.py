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
  its checked-on dates (the stored, earlier check of the same bytes stands);
* different bytes from the *same* tool version are an error (:class:`PublishConflict`):
  the same input must give the same record;
* a record from a *different* tool version replaces the current file after the old one
  has been kept beside it as ``<path>@recipe-check-<old version>.json``;
* ``index.json`` is rebuilt from the files on disk after every run (never patched), so it
  cannot disagree with them after a crash and a re-run.

A :mod:`filelock` lock (``OUT/.publish.lock``) serialises concurrent publishers.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from filelock import FileLock

from validator.atomic import atomic_write
from validator.evidence.model import SCHEMA_PATH
from validator.source.spec import FULL_COMMIT, check_path
from validator.source.tree import SourceError

INDEX = "index.json"
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
            absolute paths, not ``owner/name``, not a full commit id).
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
    return out / RECORDS / repository / commit / f"{path}.json"


def _tool_version(data: bytes) -> str | None:
    try:
        doc = json.loads(data)
        version = doc["validation"]["tool"]["version"]
    except (ValueError, KeyError, TypeError):
        return None
    return version if isinstance(version, str) else None


def _without_dates(data: bytes) -> Any:
    doc = json.loads(data)
    doc.get("source", {}).pop("checked_on", None)
    doc.get("editorial", {}).pop("generated_on", None)
    return doc


@dataclass
class Publisher:
    """Writes records into ``out`` following the module's rules.

    Use as a context manager to hold the publish lock::

        with Publisher(out) as pub:
            pub.put(repository, commit, path, record_bytes)
    """

    out: Path
    timeout: float = 600.0

    def __post_init__(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        self._lock = FileLock(str(self.out / LOCK), timeout=self.timeout)

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
        outcome: Outcome = "written"
        if target.exists():
            old = target.read_bytes()
            if old == data:
                outcome = "unchanged"
            else:
                old_version, new_version = _tool_version(old), _tool_version(data)
                if old_version == new_version:
                    try:
                        same = _without_dates(old) == _without_dates(data)
                    except ValueError:
                        same = False
                    if not same:
                        raise PublishConflict(
                            f"{target}: a different record for {repository}@{commit}:{path} "
                            f"already exists from the same tool version {new_version}; the "
                            "same input must give the same record (remove it to replace it)")
                    outcome = "unchanged"
                else:
                    kept = target.with_name(f"{path.rsplit('/', 1)[-1]}{KEPT_MARK}"
                                            f"{old_version or 'unknown'}.json")
                    if not kept.exists() or kept.read_bytes() != old:
                        atomic_write(kept, old)
                    atomic_write(target, data)
                    outcome = "replaced"
        else:
            atomic_write(target, data)
        if attestation is not None and outcome != "unchanged":
            atomic_write(target.with_name(target.name[:-len(".json")] + ATTESTATION_SUFFIX),
                         attestation)
        elif attestation is not None:
            att = target.with_name(target.name[:-len(".json")] + ATTESTATION_SUFFIX)
            if not att.exists():
                atomic_write(att, attestation)
        return outcome

    def copy_schemas(self, schemas: Iterable[Path] = (SCHEMA_PATH,)) -> None:
        """Copy the schemas records follow into ``out/schemas/`` (skipped when equal)."""
        for schema in schemas:
            data = schema.read_bytes()
            target = self.out / "schemas" / schema.name
            if not target.exists() or target.read_bytes() != data:
                atomic_write(target, data)

    def rebuild_index(self) -> dict[str, Any]:
        """Rebuild ``index.json`` from the record files on disk and write it atomically.

        Temporary files (``.*``) are ignored; a file that is not a JSON record is listed
        under ``unreadable``. Entries are sorted by (repository, commit, path, file).
        """
        entries: list[dict[str, Any]] = []
        unreadable: list[str] = []
        root = self.out / RECORDS
        for file in sorted(root.rglob("*.json")) if root.is_dir() else []:
            if file.name.startswith(".") or file.name.endswith(ATTESTATION_SUFFIX):
                continue
            rel = file.relative_to(self.out).as_posix()
            data = file.read_bytes()
            try:
                doc = json.loads(data)
                src = doc["source"]
                entry = {
                    "repository": src["repository"], "commit": src["revision"],
                    "path": src["document_path"], "file": rel,
                    "sha256": hashlib.sha256(data).hexdigest(),
                    "document_sha256": src["document_sha256"],
                    "checked_on": src["checked_on"],
                    "tool_version": doc["validation"]["tool"]["version"],
                    "current": KEPT_MARK not in file.name,
                    "errors": doc["validation"]["summary"]["errors"],
                    "warnings": doc["validation"]["summary"]["warnings"],
                }
            except (ValueError, KeyError, TypeError):
                unreadable.append(rel)
                continue
            att = file.with_name(file.name[:-len(".json")] + ATTESTATION_SUFFIX)
            if entry["current"] and att.exists():
                entry["attestation"] = att.relative_to(self.out).as_posix()
            entries.append(entry)
        entries.sort(key=lambda e: (e["repository"], e["commit"], e["path"], e["file"]))
        index = {"format": "recipe-check/record-index/v1", "records": entries,
                 "unreadable": unreadable,
                 "schemas": sorted(p.relative_to(self.out).as_posix()
                                   for p in (self.out / "schemas").glob("*.json"))
                 if (self.out / "schemas").is_dir() else []}
        atomic_write(self.out / INDEX, (json.dumps(index, indent=2, sort_keys=True) + "\n")
                     .encode())
        return index
