"""What each published record was made from, so a warm ``publish`` skips unchanged inputs.

A record depends only on the bytes of its revision (the lock entries and file listing of
that commit in the snapshot store), the checked-on date, whether a statement is wanted and
the tool itself (its code, schemas and vendored data; see :mod:`validator.evidence.record`).
:func:`inputs_digest` is the SHA-256 of all of them. ``OUT/.publish-inputs.json`` maps each
current record file (relative to ``OUT``) to the digest of the inputs it was made from and
the SHA-256 of the record (and statement) bytes as written.

A record is skipped (:meth:`InputsManifest.unchanged`) only when its inputs digest is the
one noted *and* the files on disk still hash to the noted bytes *and* the entry carries
the HMAC-SHA256 of what it notes under a secret kept outside ``OUT`` (the cache folder's,
see :mod:`validator.cache`): the manifest lives in ``OUT``, so whoever can edit a record
there can also note the edited bytes and the new inputs digest in it, but cannot sign
them. Anything else -- no secret, no manifest, a damaged one, an entry without its HMAC
or with a wrong one, an edited or missing record, another tool build -- takes the full
path (re-derive and compare). The manifest is written atomically after the run's records,
so a publisher killed at any instant leaves either the previous manifest or the new one,
and either one only lets through records whose bytes it verifies.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from functools import cache
from pathlib import Path
from typing import Any

from validator.atomic import ConfinedFolder
from validator.paths import PACKAGE_DIR, SCHEMAS_DIR, SNAPSHOTS_DIR
from validator.source.provenance import sha256_hex
from validator.state_json import parse_json

MANIFEST = ".publish-inputs.json"
FORMAT = "recipe-check/publish-inputs/v1"


@cache
def tool_digest() -> str:
    """SHA-256 over the tool's own files: every module and data file of the package, the
    schemas and the vendored snapshots (CLI registries, release list), by relative path."""
    digest = hashlib.sha256()
    for label, base in (("validator", PACKAGE_DIR), ("schemas", SCHEMAS_DIR),
                        ("snapshots", SNAPSHOTS_DIR)):
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if "__pycache__" in path.parts or path.suffix == ".pyc" or not path.is_file():
                continue
            data = path.read_bytes()
            digest.update(f"{label}/{path.relative_to(base).as_posix()}\0{len(data)}\0"
                          .encode())
            digest.update(data)
    return digest.hexdigest()


def inputs_digest(parts: dict[str, Any]) -> str:
    """SHA-256 of ``parts`` (JSON data: the revision's lock entries and listing, the date,
    options) together with :func:`tool_digest`."""
    text = json.dumps({"tool": tool_digest(), **parts}, sort_keys=True, ensure_ascii=True)
    return sha256_hex(text.encode())


def _sha256_of(files: ConfinedFolder, path: Path) -> str | None:
    """SHA-256 of the file ``path`` below ``files.root`` (``None``: absent, unreadable, a
    link or on a link's way: such a file is never taken as the one noted)."""
    try:
        data = files.read(path.relative_to(files.root).as_posix())
    except OSError:
        return None
    return None if data is None else sha256_hex(data)


def entry_mac(secret: bytes, rel: str, noted: dict[str, Any]) -> str:
    """HMAC-SHA256 under ``secret`` of one entry: the record's path below ``OUT``, its
    inputs digest and the SHA-256 of its record and statement (so an entry moved to
    another record, or any of its digests changed, no longer matches)."""
    text = json.dumps([rel, noted.get("inputs"), noted.get("sha256"),
                       noted.get("attestation")], ensure_ascii=True)
    return hmac.new(secret, text.encode(), hashlib.sha256).hexdigest()


def _signed(secret: bytes | None, rel: str, noted: dict[str, Any]) -> bool:
    """Whether ``noted`` carries its :func:`entry_mac` (never without a secret)."""
    mac = noted.get("hmac")
    return secret is not None and isinstance(mac, str) and \
        hmac.compare_digest(mac, entry_mac(secret, rel, noted))


class InputsManifest:
    """The inputs manifest of one output folder: read once, noted per record, saved once.

    Args:
        out: the publish output folder.
        secret: the key of the entries' HMAC, kept outside ``out``; ``None`` (no key
            could be had): nothing is skipped, every record takes the full path.
    """

    def __init__(self, out: Path, secret: bytes | None = None) -> None:
        self.secret = secret
        self.path = out / MANIFEST
        self.out = out
        self.files = ConfinedFolder(out)
        self.old: dict[str, dict[str, Any]] = {}
        self.new: dict[str, dict[str, Any]] = {}
        try:
            doc = parse_json(self.files.read(MANIFEST) or b"")
        except (OSError, ValueError):
            return  # none yet, or damaged: every record takes the full path
        records = doc.get("records") if isinstance(doc, dict) and \
            doc.get("format") == FORMAT else None
        if isinstance(records, dict):
            self.old = {k: v for k, v in records.items() if isinstance(v, dict)}

    def unchanged(self, target: Path, digest: str,
                  attestation: Path | None) -> tuple[str, str | None] | None:
        """The SHA-256 of ``target`` and of ``attestation`` (``None`` when no statement is
        wanted) when both were made from inputs with ``digest`` and still hold exactly the
        bytes noted then; else ``None``."""
        rel = target.relative_to(self.out).as_posix()
        noted = self.old.get(rel)
        if noted is None or noted.get("inputs") != digest or \
                not _signed(self.secret, rel, noted):
            return None
        sha256 = noted.get("sha256")
        if not isinstance(sha256, str) or _sha256_of(self.files, target) != sha256:
            return None
        want = None
        if attestation is not None:
            want = noted.get("attestation")
            if not isinstance(want, str) or _sha256_of(self.files, attestation) != want:
                return None
        self.new[rel] = noted
        return sha256, want

    def note(self, target: Path, digest: str, made: bytes, attestation: Path | None) -> None:
        """Note that ``target`` was just published from inputs with ``digest`` (with its
        statement ``attestation``, when one is wanted). Only a record whose file holds
        exactly ``made`` is noted (not one whose stored copy differs in its dates)."""
        try:
            if self.files.read(target.relative_to(self.out).as_posix()) != made:
                return
            att = None if attestation is None else \
                self.files.read(attestation.relative_to(self.out).as_posix())
        except OSError:
            return
        if attestation is not None and att is None:
            return
        if self.secret is None:
            return
        rel = target.relative_to(self.out).as_posix()
        noted = {"inputs": digest, "sha256": sha256_hex(made),
                 "attestation": sha256_hex(att) if att is not None else None}
        self.new[rel] = {**noted, "hmac": entry_mac(self.secret, rel, noted)}

    def save(self) -> None:
        """Write the records noted by this run (atomically), replacing the old manifest."""
        doc = {"format": FORMAT, "records": dict(sorted(self.new.items()))}
        self.files.write(MANIFEST, (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode())
