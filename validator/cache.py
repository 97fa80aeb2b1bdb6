"""recipe-check's on-disk result cache, safe against crashes, concurrency and rot.

One store serves every command that caches results: the history audit (entries keyed by
:func:`blob_key`, one label per context) and ``check`` (entries keyed by a document unit,
see :mod:`validator.unit_cache`). Both key their entries on :func:`checks_digest`.

Layout: ``<cache_dir>/<k[:2]>/<k>.json``, one file per *blob key* ``k`` (the checked
file's path and bytes under one tool digest, see :func:`blob_key`). Each file maps
*context labels* (see :mod:`validator.history.audit`) to JSON values (the findings of
that blob checked against that context)::

    {"format": 3, "key": "<k>", "results": {"<label>": <value>, ...},
     "checksum": "<HMAC-SHA256 of the key and canonical results>"}

(an entry written by a store made with ``fast=True``, the history audit's, also holds
``"canon": "orjson"``: its results' canonical text is orjson's, the same text for the
values cached, so such a store parses and checks its thousands of entries in C; a
``check`` store keeps the standard library and imports no orjson).

The checksum is keyed with the cache's own secret, ``<cache_dir>/.secret`` (32 random
bytes made on first use, mode 0600, published with a hard link so concurrent first runs
agree on one; read without following a link or blocking, at most 33 bytes): an entry
whose findings were edited and whose checksum was recomputed without the secret fails,
so a forged entry is never trusted. An entry replaced by a
folder (or anything but a regular file) is counted as damaged and skipped, never fatal.
A secret that is not a regular file (a link, FIFO, device, folder) turns the cache off for
the run with a note; a regular file of the wrong length (empty, cut short) is replaced
atomically by a new secret, with a note, so the cache works again from the next entry.

Writes are atomic (a temporary file in the same folder, ``fsync``, then ``os.replace``),
so a process killed at any point leaves the old file or the new one. Read-merge-write of
one entry is serialised across processes with a :mod:`filelock` lock next to it, so two
runs sharing the folder never lose each other's results. An entry that does not parse
(:func:`~validator.state_json.parse_json`: invalid, or nested too deep to decode), names
another key, or fails its checksum is treated as missing (counted in
:attr:`ResultCache.corrupt`) and overwritten with recomputed results.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import json
import os
import secrets
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from validator.atomic import atomic_write, read_regular_file
from validator.file_digests import FileDigests as FileDigests  # re-exported: the run's
from validator.owned_folder import tag_cache_folder
from validator.paths import name_bytes
from validator.state_json import parse_json

if TYPE_CHECKING:
    from validator.rules.metadata import Rule
    from validator.settings import Settings

FORMAT = 3
SECRET_NAME = ".secret"
SECRET_BYTES = 32

RESULTS = "results"
"""Sub-folder of the cache folder (``--cache-dir``) that holds the check results of
document units (:mod:`validator.unit_cache`)."""
RUNS = "runs"
"""Sub-folder of the cache folder that holds whole check runs (:mod:`validator.run_cache`)
and the tool stamps they are keyed on."""
CLAIMS = "claims"
"""Sub-folder of the cache folder that holds REF025's index of the recipes' variant ids
(:mod:`validator.api_claims`)."""
HISTORY_PART = "history"
"""Sub-folder of the cache folder (``--cache-dir``) that holds the history audit's
entries (the check results are in :data:`validator.unit_cache.RESULTS`)."""

FindingRow = tuple[str, str, str, int, int, str]
"""One finding as cached: ``(rule, severity, pointer, line, column, message)``."""


_NOT_CHECKS = ("commands/", "report/", "evidence/", "history/", "source/", "pr/", "cli.py",
               "docs.py", "__main__.py", "cache.py", "unit_cache.py")
"""Package parts that do not decide findings (output, publishing, fetching, caching);
``source/tree.py`` and ``source/provenance.py`` are kept (the context is built on them)."""


def _check_sources(package: Path) -> list[Path]:
    """The ``.py`` files of ``package`` that can decide findings, in path order (by parts,
    as :class:`~pathlib.Path` sorts). Walked with :func:`os.walk` and compared as strings:
    ``rglob``, ``relative_to`` and sorting ``Path`` objects were most of the 8 ms this
    costs on each check once the files' digests are known."""
    keep = ("source/tree.py", "source/provenance.py")
    found: list[str] = []
    for folder, _dirs, names in os.walk(package):
        relative = os.path.relpath(folder, package)
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
        for name in names:
            rel = prefix + name
            if name.endswith(".py") and (rel in keep or not rel.startswith(_NOT_CHECKS)):
                found.append(rel)
    return [package / rel for rel in sorted(found, key=lambda rel: rel.split("/"))]


def checks_digest(settings: Settings, rules: Iterable[Rule],
                  digests: FileDigests | None = None) -> str:
    """Hex SHA-256 identifying what produces findings: the version, ``rules`` (id,
    severity and declared reads), the source of every ``validator`` module that can
    decide findings (all but the parts in ``_NOT_CHECKS``), every schema and vendored
    data file (``schemas/``, the settings' vendored folder, default ``snapshots/``: the
    CLI registries and the release list), and the settings that change findings
    (``strict``, ``offline``, ``max_bytes``). Any edit to a rule, even without a version
    bump, invalidates cached results; edits to reporters or publishing do not. The files
    are hashed through ``digests`` (the run's; default: one of the call's own)."""
    from validator import __version__
    from validator.paths import SNAPSHOTS_DIR

    h = hashlib.sha256(f"{__version__}\0{settings.strict}\0{settings.offline}\0"
                       f"{settings.max_bytes}\n".encode())
    for r in rules:
        reads = ",".join(sorted(p.value for p in r.reads))
        h.update(f"{r.id}:{r.severity.value}:{reads}\n".encode())
    vendored = settings.vendored_dir or SNAPSHOTS_DIR  # the CLI registries the run reads
    h.update(_code_text(str(vendored), digests or FileDigests()))
    return h.hexdigest()


def code_digest(digests: FileDigests | None = None) -> str:
    """Hex SHA-256 of the version, the package's deciding source and its schemas (what
    :func:`checks_digest` hashes, less the settings, the rules and the vendored CLI
    data): what reads a recipe's data the same way under any settings (REF025's index of
    variant ids, :mod:`validator.api_claims`) is keyed on it. Computed once per run: kept
    as ``digests.code`` (the run's :class:`~validator.file_digests.FileDigests`, whose
    files it hashes; the history audit sets it from its cache under the package's tool
    stamp, so its warm run hashes no source file); ``None``: computed for this call."""
    from validator import __version__

    digests = digests or FileDigests()
    if digests.code is None:
        digests.code = hashlib.sha256(f"{__version__}\n".encode()
                                      + _code_text(None, digests)).hexdigest()
    return digests.code


def _code_text(vendored: str | None, digests: FileDigests) -> bytes:
    """Each deciding source file, schema and file of the ``vendored`` folder (none:
    none) as its name and SHA-256 (read again only where a file changed since
    ``digests`` hashed it: :meth:`~validator.file_digests.FileDigests.digest`)."""
    from validator.paths import SCHEMAS_DIR

    package = Path(__file__).resolve().parent
    folders = [SCHEMAS_DIR] + ([Path(vendored)] if vendored else [])
    data = [f for folder in folders if folder.is_dir()
            for f in folder.rglob("*") if f.is_file()]
    return b"".join(f.name.encode() + b"\0" + digests.digest(f)
                    for f in _check_sources(package) + sorted(data))


def tool_folders() -> tuple[Path, ...]:
    """The folders of the tool's own files: the package, its schemas, its vendored data."""
    from validator.paths import SCHEMAS_DIR, SNAPSHOTS_DIR

    return Path(__file__).resolve().parent, SCHEMAS_DIR, SNAPSHOTS_DIR


@contextlib.contextmanager
def digests_kept_in(store: ResultCache, digests: FileDigests) -> Iterator[None]:
    """Within the block, the digests of the tool's files known to ``digests`` (the run's)
    are those kept in ``store`` (the cache folder's ``runs`` part), each while its file's
    stamp is the same; what the block had to read and hash is kept there after it
    (:mod:`validator.file_digests`)."""
    digests.recall(store)
    yield
    digests.keep(store, tool_folders())


def blob_key(tool_digest: str, path: str, content: str) -> str:
    """Cache key of one file: hex SHA-256 over the tool digest, its path and the digest
    of its bytes, ``content`` (the history audit's: ``blob:<git blob id>``, a digest git
    computed of the bytes, so a warm run reads no blob to key it). The path is part of
    the key because rules compare it with the content, e.g. ``model.id`` against
    ``models/<org>/<name>.yaml``."""
    return hashlib.sha256(name_bytes(f"{tool_digest}\0{path}\0{content}")).hexdigest()


FAST = "orjson"
"""The value of an entry's ``canon`` field when its checksum is over orjson's text."""


def _text(value: Any, fast: bool) -> bytes:
    """``value`` as compact JSON with its keys sorted at every level, UTF-8: orjson's
    text when ``fast`` (the standard library's where orjson refuses a value, such as a
    lone surrogate), else the standard library's."""
    if fast:
        import orjson

        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except TypeError:
            pass
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8", "surrogatepass")


def _entry_bytes(entry: dict[str, Any]) -> bytes:
    """``entry`` as compact JSON, UTF-8; with ``\\u`` escapes where it holds a file name
    that is not UTF-8 (a lone surrogate, ``surrogateescape``), which reads back as the
    same text (an entry of such a name is kept, not refused as it is written)."""
    try:
        return json.dumps(entry, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(entry, separators=(",", ":")).encode("ascii")


def _checksum(secret: bytes, key: str, results: dict[str, Any], fast: bool = False) -> str:
    """HMAC of ``key`` and the canonical text of ``results`` (:func:`_text`)."""
    text = name_bytes(key) + b"\0" + _text(results, fast)
    return hmac.new(secret, text, hashlib.sha256).hexdigest()


class NotASecret(OSError):
    """Something that is not a small regular file is in the secret's place."""


def _read_secret(path: Path) -> bytes:
    """At most ``SECRET_BYTES + 1`` bytes of the regular file ``path``, opened without
    following a link and without blocking (a FIFO or a device is never read).

    Raises:
        FileNotFoundError: there is no secret yet.
        NotASecret: a link, folder, FIFO, device or socket is in its place.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP or os.path.islink(path):
            raise NotASecret(f"{path}: a symbolic link, not a cache secret") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotASecret(f"{path}: not a regular file, not a cache secret")
        data = b""
        while len(data) <= SECRET_BYTES:
            block = os.read(fd, SECRET_BYTES + 1 - len(data))
            if not block:
                break
            data += block
        return data
    finally:
        os.close(fd)


def _publish_secret(root: Path, path: Path, replace: bool) -> None:
    """Write a new secret at ``path``, mode 0600: over what is there (``replace``, with
    :func:`~validator.atomic.atomic_write`), or only if there is none yet (published with
    a hard link, so that of concurrent first runs the first wins)."""
    if replace:  # atomic: readers see the old file or the new one
        atomic_write(path, secrets.token_bytes(SECRET_BYTES), mode=0o600)
        return
    root.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".secret.", suffix=".tmp", dir=root)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(secrets.token_bytes(SECRET_BYTES))
            stream.flush()
            os.fsync(stream.fileno())
        with contextlib.suppress(FileExistsError):
            os.link(tmp, path)  # atomic; the first of concurrent runs wins
    finally:
        Path(tmp).unlink(missing_ok=True)


def load_secret(root: Path) -> tuple[bytes, str | None]:
    """The cache's secret and, when a regular file of the wrong length was in its place
    and was replaced by a new secret, a note saying so (see the module docstring).

    Raises:
        NotASecret: something that is not a regular file is in its place.
        OSError: the secret cannot be read or made (no access).
    """
    path = root / SECRET_NAME
    note = None
    try:
        secret = _read_secret(path)
    except FileNotFoundError:
        _publish_secret(root, path, replace=False)
        secret = _read_secret(path)
    if len(secret) != SECRET_BYTES:
        shown = f"{len(secret)} bytes" if len(secret) <= SECRET_BYTES else \
            f"more than {SECRET_BYTES} bytes"
        note = (f"{path}: not a cache secret ({shown}, not {SECRET_BYTES}); replaced by a "
                "new one, the entries it keyed are recomputed once")
        _publish_secret(root, path, replace=True)
        secret = _read_secret(path)
        if len(secret) != SECRET_BYTES:
            raise NotASecret(f"{path}: not a cache secret ({len(secret)} bytes)")
    return secret, note


class ResultCache:
    """Findings per ``(blob key, context digest)``; see the module docstring.

    Args:
        root: the cache folder (created on first write). ``None`` disables caching.
        owner: the recipe-check cache folder ``root`` is a part of (``results/``,
            ``runs/``, ``history/``), tagged on first use so that ``cache clean`` knows
            it (:func:`~validator.owned_folder.tag_cache_folder`); ``None``: none.
        fast: parse entries with orjson and checksum those it writes over orjson's text
            (a store that reads thousands of entries a run, the history audit's).

    Attributes:
        corrupt: number of entries found damaged and ignored during this run.
    """

    def __init__(self, root: Path | None, owner: Path | None = None, *,
                 fast: bool = False) -> None:
        self.root = root
        self.owner = owner
        self.fast = fast
        self.corrupt = 0
        self.notes: list[str] = []
        self._secret: bytes | None = None

    def _key_secret(self) -> bytes | None:
        """The secret, or ``None`` (caching off for this run) when something that is not
        a secret is in its place.

        Raises:
            OSError: the cache folder cannot be made or written.
        """
        if self._secret is None and self.root is not None:
            try:
                self._secret, note = load_secret(self.root)
            except NotASecret as exc:
                self.notes.append(f"{exc}; the cache is off for this run (remove it)")
                self.corrupt += 1
                self.root = None
            except OSError:
                if not os.path.lexists(self.root / SECRET_NAME):
                    raise
                self.corrupt += 1
                self.root = None
            else:
                if note:
                    self.notes.append(note)
                if self.owner is not None:
                    tag_cache_folder(self.owner)
        return self._secret

    def _path(self, key: str) -> Path:
        assert self.root is not None
        return self.root / key[:2] / f"{key}.json"

    def _read(self, key: str) -> dict[str, Any] | None:
        secret = self._key_secret()
        if secret is None:
            return None
        path = self._path(key)
        try:
            raw = read_regular_file(path)
        except FileNotFoundError:
            return None
        except OSError:  # a link, folder or FIFO in its place, no access
            self.corrupt += 1
            return None
        try:
            entry = parse_json(raw, fast=self.fast)
            results = entry["results"]
            if isinstance(entry, dict) and entry.get("format") != FORMAT:
                return None  # written by another version of the cache: recomputed
            ok = (entry.get("key") == key and isinstance(results, dict)
                  and hmac.compare_digest(str(entry.get("checksum")),
                                          _checksum(secret, key, results,
                                                    entry.get("canon") == FAST)))
            if not ok:
                raise ValueError("entry does not verify")
            return dict(results)
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            self.corrupt += 1  # RecursionError: results deep enough to stop the checksum
            return None

    def get(self, key: str) -> dict[str, Any]:
        """Cached results of blob ``key``: label -> JSON value (empty when none or when
        the entry is damaged)."""
        if self.root is None:
            return {}
        return self._read(key) or {}

    def put(self, key: str, results: dict[str, Any], *, replace: bool = False) -> None:
        """Merge ``results`` (label -> JSON value) into the entry of ``key`` (``replace``:
        in place of its labels), under the entry's lock, and write it atomically.

        Raises:
            OSError: the cache folder is not writable.
        """
        secret = self._key_secret() if self.root is not None else None
        if self.root is None or secret is None or not results:
            return
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        if (os.path.lexists(path) and not path.is_file()) or path.is_symlink():
            self.corrupt += 1  # a folder or link in the entry's place: left alone, skipped
            return
        from filelock import FileLock  # here: a run answered from the cache never locks

        try:
            with FileLock(str(path) + ".lock"):
                merged: dict[str, Any] = {} if replace else dict(self._read(key) or {})
                merged.update(results)
                plain = json.loads(json.dumps(dict(sorted(merged.items()))))
                entry = {"format": FORMAT, "key": key, "results": plain}
                entry["checksum"] = _checksum(secret, key, plain, self.fast)
                if self.fast:  # checksummed over orjson's text
                    entry["canon"] = FAST
                atomic_write(path, _entry_bytes(entry))
        except IsADirectoryError:
            self.corrupt += 1  # replaced by a folder while we computed


    def entries(self) -> list[Path]:
        """Every entry file of the store (none when caching is off)."""
        if self.root is None or not self.root.is_dir():
            return []
        return [e for sub in self.root.iterdir() if len(sub.name) == 2 and sub.is_dir()
                and not sub.is_symlink() for e in sub.glob("*.json")]

    def prune(self, max_entries: int) -> int:
        """Keep the store within ``max_entries`` entries: past that, remove the least
        recently written ones down to three quarters of it (a lock file goes with its
        entry). Returns how many were removed; an entry another run removes or replaces
        meanwhile is passed over."""
        found = self.entries()
        if len(found) <= max_entries:
            return 0

        def written(entry: Path) -> float:
            try:
                return entry.stat().st_mtime
            except OSError:
                return 0.0

        found.sort(key=written)
        removed = 0
        for entry in found[:len(found) - max_entries * 3 // 4]:
            with contextlib.suppress(OSError):
                entry.unlink()
                removed += 1
            with contextlib.suppress(OSError):
                Path(str(entry) + ".lock").unlink()
        return removed


def as_row(value: Any) -> FindingRow:
    """Validate one cached finding row.

    Raises:
        TypeError, ValueError: ``value`` is not ``[rule, severity, pointer, line, column,
            message]`` with those types.
    """
    rule, severity, pointer, line, column, message = value
    if not (isinstance(rule, str) and isinstance(severity, str) and isinstance(pointer, str)
            and isinstance(line, int) and isinstance(column, int)
            and isinstance(message, str)):
        raise TypeError("bad finding row")
    return (rule, severity, pointer, line, column, message)
