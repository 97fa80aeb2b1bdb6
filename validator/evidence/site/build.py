"""Build the static catalogue of a publish folder: ``recipe-check publish ... --site DIR``.

Layout of ``DIR`` (relative links only, so it works from ``file://`` and any static host;
no server code, no external request)::

    index.html                                   all current records, search and filters
    assets/site.css, assets/site.js
    records/<owner>/<name>/<commit>/<path>.html  one page per record
    records/.../<path>.configs.js                its configurations' JSON, stored once
    records/.../<path>.landing.json              its landing configuration's JSON (the
                                                 page's download link without script)
    records/<owner>/<name>/<commit>/<path>.json  the record (copied byte for byte)
    records/.../<path>.intoto.json               its in-toto Statement, when published
    schemas/record.schema.json
    .recipe-check-catalogue.json                 marker: made by publish, and its files

The whole folder is written into a temporary sibling and swapped in at the end: a build
that fails (or is killed) leaves the previous catalogue as it was, never a half-written one.
The temporary folder is removed when the build fails, is interrupted or terminated
(SIGTERM); one a killed run left (``.DIR.tmp-XXXXXXXX``, or ``.DIR.old-XXXXXXXX`` of an
interrupted swap: only names this module makes) is removed by the next build of ``DIR``,
unless a running build holds it: each build holds an exclusive ``flock`` on its folder
while it fills it.
As the swap deletes what ``DIR`` held, ``DIR`` must be new, empty, or a catalogue an
earlier build made (:mod:`validator.evidence.site.guard`); anything else is refused
(:class:`SiteRefused`) before anything is written.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from validator.atomic import current_umask
from validator.errors import RecipeCheckError
from validator.evidence.attest import statement_bytes
from validator.evidence.cite import blob_url
from validator.evidence.model import Record
from validator.evidence.site.assets import CSS, JS
from validator.evidence.site.config_json import document, script_bytes
from validator.evidence.site.configurations import picker
from validator.evidence.site.guard import MARKER, marker_bytes, site_problem
from validator.evidence.site.guide_page import highlight_css
from validator.evidence.site.index_page import Entry, index_html
from validator.evidence.site.limitations import guide_warnings
from validator.evidence.site.picker_page import picker_section
from validator.evidence.site.picker_script import PICKER_JS
from validator.evidence.site.record_page import Links, record_html
from validator.evidence.site.renderings import Recipe
from validator.owned_folder import remove_unheld_folders
from validator.progress import NO_PROGRESS, Display
from validator.state_json import parse_json

INDEX = "index.json"
ATTESTATION_SUFFIX = ".intoto.json"
_WORK_FOLDER = r"\.{site}\.(?:tmp|old)-[a-z0-9_]{{8}}"
"""Name of a work folder of a build of ``site`` (``tempfile.mkdtemp`` adds 8 characters
of ``[a-z0-9_]`` to the prefixes :func:`build_site` and :func:`_swap` give)."""


class SiteError(RecipeCheckError):
    """The catalogue cannot be built (no index, unreadable record); the message names the
    file."""


class SiteRefused(SiteError):
    """``DIR`` is a folder the catalogue may not replace (it holds files publish did not
    make, or is the publish folder, the store, the current folder or an ancestor of one);
    the message says which."""


@dataclass(frozen=True)
class SiteResult:
    """What a build wrote."""

    pages: int


def _write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)


def _read_index(out: Path) -> dict[str, Any]:
    index_file = out / INDEX
    try:
        index = parse_json(index_file.read_bytes())
        if not isinstance(index, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        raise SiteError(f"{index_file}: not a readable record index ({exc})") from exc
    return index


def _load(out: Path, index: dict[str, Any]) -> list[tuple[dict[str, Any], bytes, Any]]:
    """``(index entry, record bytes, parsed record)`` of every current record of ``index``;
    the bytes are read once and must be the ones the index lists (its ``sha256``): a record
    changed since publish verified and indexed it is never shown as current."""
    try:
        entries = [e for e in index["records"] if e.get("current")]
    except (KeyError, TypeError, AttributeError) as exc:
        raise SiteError(f"{out / INDEX}: not a readable record index ({exc})") from exc
    loaded = []
    for entry in entries:
        file = out / str(entry.get("file"))
        try:
            if ".." in Path(entry["file"]).parts:
                raise ValueError("path leaves the folder")
            data = file.read_bytes()
            if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
                raise SiteError(f"{file}: not the record publish verified and indexed (its "
                                "SHA-256 differs from the index's; edited since?); not shown "
                                "as current -- run publish again")
            loaded.append((entry, data, parse_json(data)))
        except (OSError, ValueError, KeyError) as exc:
            raise SiteError(f"{file}: cannot read the record ({exc})") from exc
    return loaded


def _statement(out: Path, entry: dict[str, Any], record: bytes) -> bytes | None:
    """The in-toto statement listed for ``entry``, which must be the statement of the
    record bytes ``record`` (the one publish writes for it), else :class:`SiteError`."""
    if not entry.get("attestation"):
        return None
    att = out / str(entry["attestation"])
    try:
        if ".." in Path(entry["attestation"]).parts:
            raise ValueError("path leaves the folder")
        data = att.read_bytes()
    except (OSError, ValueError) as exc:
        raise SiteError(f"{att}: cannot read the statement ({exc})") from exc
    try:
        want = statement_bytes(Record.model_validate_json(record))
    except ValueError as exc:  # RecordInvalid too
        first = str(exc).splitlines()[0]
        raise SiteError(f"{out / entry['file']}: does not match the record schema "
                        f"({first})") from exc
    if data != want:
        raise SiteError(f"{att}: not the in-toto statement of the record beside it (edited "
                        "since publish?); run publish again")
    return data


def _record_files(tmp: Path, out: Path, entry: dict[str, Any], data: bytes,
                  record: dict[str, Any],
                  recipes: Callable[[dict[str, Any]], Recipe | None] | None) -> Entry:
    """Write one record's files into ``tmp`` -- the record, its statement, its page and
    its configurations' JSON table -- and give its index entry."""
    rel = Path(entry["file"])  # records/<owner>/<name>/<commit>/<path>.json
    page_rel = rel.with_name(rel.name[:-len(".json")] + ".html")
    root = "../" * (len(rel.parts) - 1)
    _write(tmp / rel, data)
    statement = None
    att_data = _statement(out, entry, data)
    if att_data is not None:
        att = Path(entry["attestation"])
        _write(tmp / att, att_data)
        statement = att.name
    links = Links(root=root, record_json=rel.name, statement=statement,
                  schema=f"{root}schemas/record.schema.json")
    try:
        recipe = recipes(record) if recipes is not None else None
        section = _configurations(tmp, page_rel, record, recipe)
        guide = recipe.doc.data.get("guide") if recipe is not None and isinstance(
            recipe.doc.data, dict) else None
        guide = guide if isinstance(guide, str) else None
        notes = guide_warnings(_guide_lines(record, recipe, guide)) if recipe and guide \
            else []
        _write(tmp / page_rel, record_html(record, links, section, guide, notes))
        return Entry.of(record, page_rel.as_posix())
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SiteError(f"{out / rel}: does not match the record schema "
                        f"({type(exc).__name__}: {exc})") from exc


def _guide_lines(record: dict[str, Any], recipe: Recipe,
                 guide: str) -> list[tuple[str, str]]:
    """``(line URL, text)`` of each line of the recipe's guide."""
    source = record["source"]
    return [(blob_url(str(source["repository"]), str(source["revision"]),
                      str(source["document_path"]),
                      recipe.doc.source_map.block_line("/guide", i)[0]), text)
            for i, text in enumerate(guide.splitlines())]


def _configurations(tmp: Path, page_rel: Path, record: dict[str, Any],
                    recipe: Recipe | None) -> str | None:
    """The picker section of ``record``'s page, its configurations' JSON table written
    beside it (``<page>.configs.js``: :mod:`validator.evidence.site.config_json`) and the
    landing configuration's JSON as a file of its own (``<page>.landing.json``, what the
    page links to without script); ``None`` without the recipe."""
    if recipe is None or not recipe.offered:
        return None
    made = picker(record, recipe.doc.data, recipe.offered, recipe.landing, recipe.cu129)
    script = page_rel.name[:-len(".html")] + ".configs.js"
    _write(tmp / page_rel.parent / script, script_bytes(made.json))
    landing = page_rel.name[:-len(".html")] + ".landing.json"
    _write(tmp / page_rel.parent / landing,
           document(made.json, made.default).encode("utf-8"))
    return picker_section(made, script, landing)


def _swap(tmp: Path, site: Path) -> None:
    """Replace ``site`` by ``tmp`` (the old folder is removed only after the new one is in
    place)."""
    old = None
    if os.path.lexists(site):
        # a fresh empty folder of our own, which rename(2) may replace: nothing that
        # happens to bear the name is removed
        old = Path(tempfile.mkdtemp(prefix=f".{site.name}.old-", dir=site.parent))
        os.replace(site, old)
    os.replace(tmp, site)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def vendored_releases() -> list[str]:
    """Every final vLLM release of the vendored list (none when it cannot be read): the
    versions the index's "I run vLLM" filter offers."""
    from validator.releases import ReleaseListError, load_vendored

    try:
        return [str(r.version) for r in load_vendored().releases
                if not r.version.is_prerelease and not r.version.is_devrelease]
    except ReleaseListError:
        return []


def build_site(out: Path, site: Path, keep: tuple[tuple[str, Path], ...] = (),
               index: dict[str, Any] | None = None,
               recipes: Callable[[dict[str, Any]], Recipe | None] | None = None,
               progress: Display = NO_PROGRESS) -> SiteResult:
    """Write the catalogue of the publish folder ``out`` into ``site``; ``keep`` are more
    folders the run uses, with what each is (the snapshot store), which ``site`` may not
    overlap (nor ``out``). ``recipes`` reads a record's recipe back (from the snapshot
    store, :class:`validator.evidence.site.renderings.RecipeReader`) for its
    configuration picker; without it, or when it gives ``None``, the page shows the
    record's default configuration per hardware; ``progress`` shows the pages made (none
    by default). ``index`` is the record index publish
    just made (default: ``out/index.json``); only its current records are shown, each
    only if its file still holds the bytes indexed (and its statement is the statement of
    those bytes).

    Raises:
        SiteRefused: ``site`` is not a folder the catalogue may replace
            (:func:`validator.evidence.site.guard.site_problem`); nothing is written.
        SiteError: ``out`` has no readable ``index.json``, or a listed record is unreadable,
            not the bytes indexed, has an edited statement, or lacks a field of
            ``schemas/record.schema.json`` that the pages show (the publisher validates
            every record before writing it); nothing is written then.
        OSError: ``site`` cannot be written.
    """
    keep = (("the publish folder", out), *keep)
    refused = site_problem(site, keep)
    if refused is not None:
        raise SiteRefused(refused)
    loaded = _load(out, _read_index(out) if index is None else index)
    site = site.resolve()
    site.parent.mkdir(parents=True, exist_ok=True)
    with _terminate_unwinds():
        _remove_work_folders(site)
        with _work_folder(site) as tmp:
            pages = _build_into(tmp, out, loaded, recipes, progress)
            refused = site_problem(site, keep)  # again: the folder may have changed meanwhile
            if refused is not None:
                raise SiteRefused(refused)
            _swap(tmp, site)
    return SiteResult(pages=pages)


def _build_into(tmp: Path, out: Path, loaded: list[tuple[dict[str, Any], bytes, Any]],
                recipes: Callable[[dict[str, Any]], Recipe | None] | None,
                progress: Display) -> int:
    """Write the whole catalogue of the ``loaded`` records into the folder ``tmp``; the
    number of record pages."""
    os.chmod(tmp, 0o777 & ~current_umask())  # mkdtemp's 0700 is no folder's mode
    _write(tmp / "assets" / "site.css", CSS + highlight_css())
    _write(tmp / "assets" / "site.js", JS + PICKER_JS)
    schema = out / "schemas" / "record.schema.json"
    if schema.is_file():
        _write(tmp / "schemas" / "record.schema.json", schema.read_bytes())
    bar = progress("building the catalogue", len(loaded))
    try:
        entries = []
        for entry, data, record in loaded:
            entries.append(_record_files(tmp, out, entry, data, record, recipes))
            bar.advance()
    finally:
        bar.close()
    _write(tmp / "index.html", index_html(entries, vendored_releases()))
    _write(tmp / MARKER, marker_bytes(p.relative_to(tmp).as_posix()
                                      for p in tmp.rglob("*") if p.is_file()))
    return len(entries)


@contextmanager
def _work_folder(site: Path) -> Iterator[Path]:
    """A new temporary folder beside ``site``, held (``flock``) while in use and removed
    when the block fails or is interrupted."""
    while True:
        tmp = Path(tempfile.mkdtemp(prefix=f".{site.name}.tmp-", dir=site.parent))
        fd = os.open(tmp, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        with contextlib.suppress(FileNotFoundError):
            if os.stat(tmp).st_ino == os.fstat(fd).st_ino:
                break  # not taken for a stale one by another build before it was held
        os.close(fd)
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        os.close(fd)


def _remove_work_folders(site: Path) -> None:
    """Remove the work folders (:data:`_WORK_FOLDER`) beside ``site`` that an earlier build
    left when it was killed: those no running build holds (:func:`_work_folder`). A link
    or file of that name is left alone."""
    remove_unheld_folders(site.parent,
                          re.compile(_WORK_FOLDER.format(site=re.escape(site.name))))


@contextmanager
def _terminate_unwinds() -> Iterator[None]:
    """While the build runs in the main thread, SIGTERM (``timeout``, ``kill``) exits by
    raising :class:`SystemExit` (status 128 + 15, as a shell reports the signal), so the
    temporary folder is removed and the locks are released on the way out."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
