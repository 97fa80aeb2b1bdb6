"""Which relative paths ``render --api-out`` may write: one predicate, used by the output
folder (:mod:`validator.render.api_out`) before every write and removal and by ``REF017``
on every variant ``model_id`` the site promotes to its own files, so ``check`` and
``render --api-out`` never disagree about an id.
"""

from __future__ import annotations

import posixpath
import unicodedata
from collections.abc import Iterable

PUBLIC = "public"
"""The site's output folder; every path of the API is joined to it (``path.join``)."""


def api_path_problem(rel: str) -> str | None:
    """Why ``rel`` cannot be a path inside the API folder, or ``None`` when it can.

    ``rel`` is refused when it holds a backslash (a folder separator on Windows), starts
    with ``/``, or, joined to the folder as the site joins it and normalised, leaves the
    folder or names the folder itself (``org/..``: the site would clear the whole API
    before writing the variant's files). ``""`` names the folder on purpose and passes.
    """
    if rel == "":
        return None
    if "\\" in rel:
        return "holds a backslash (a folder separator on Windows)"
    if rel.startswith("/"):
        return "is an absolute path"
    joined = posixpath.normpath(f"{PUBLIC}/{rel}")
    if joined == PUBLIC:
        return "names the API folder itself ('..' segments)"
    if not joined.startswith(f"{PUBLIC}/"):
        return "leaves the API folder ('..' segments)"
    return None


def promoted_id(model_id: object) -> str | None:
    """``model_id`` when the site promotes the variant to its own files (a string with a
    ``/``), else ``None``."""
    return model_id if isinstance(model_id, str) and "/" in model_id else None


SHARED_FILES = frozenset({"models", "taxonomy", "platforms", "strategies", "kv_store"})
"""Names of the API's own files (``<name>.json``), which no recipe's id may take."""
SHARED_FOLDERS = frozenset({"strategies", "kv_store", "quickstart"})
"""The API's own folders (one file per strategy, kv store, quickstart hardware)."""


def path_key(rel: str) -> str:
    """``rel`` as a case-insensitive, normalising file system (macOS, Windows) stores it:
    ``.`` segments and doubled ``/`` dropped, NFKC-normalised and case-folded; two paths
    with one key are one file there."""
    norm = posixpath.normpath(rel) if rel else rel
    if norm.isascii():  # NFKC leaves ASCII as it is; casefold is lower() there
        return norm.lower()
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", norm).casefold())


_WINDOWS_DEVICES = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                              *(f"lpt{i}" for i in range(1, 10))})
"""Names Windows reserves for devices, in any case and with any extension (``aux.json``)."""
_WINDOWS_FORBIDDEN = frozenset('<>:"|?*')


def unportable_segment(rel: str) -> str | None:
    """Why a segment of ``rel`` names no file of its own on every system the API is
    copied to, or ``None``: an empty, ``.`` or ``..`` segment (``x/.`` is the folder
    ``x``), a Windows device name (``con``, ``aux``, ``com1`` ..., also as ``aux.json``),
    a trailing dot or space (Windows drops it), or a character Windows refuses."""
    for segment in rel.split("/"):
        if segment in ("", ".", ".."):
            return f"has the segment {segment!r}, which names no file of its own"
        if segment.split(".", 1)[0].rstrip(" ").casefold() in _WINDOWS_DEVICES:
            return f"has the segment {segment!r}, a device name on Windows (no file can " \
                "have it there)"
        if segment.endswith((".", " ")):
            return f"has the segment {segment!r}, whose trailing dot or space Windows drops"
        bad = sorted(_WINDOWS_FORBIDDEN.intersection(segment))
        if bad or any(ord(ch) < 32 for ch in segment):
            return f"has the segment {segment!r}, with a character Windows refuses in " \
                f"file names ({''.join(bad) or 'a control character'})"
    return None


def promoted_id_problem(model_id: str) -> str | None:
    """Why a promoted variant's ``model_id`` cannot be written: the folder the site clears
    for it (the id itself) or its document (``<id>.json``) is no API path, or it names
    one of the API's own files or folders (``./taxonomy`` would replace
    ``taxonomy.json``, ``strategies/x`` clear and write inside ``strategies/``), as
    compared on a case-insensitive file system, or it cannot be a file on every system
    (:func:`unportable_segment`: ``con/aux``, ``x/.``)."""
    problem = api_path_problem(model_id) or api_path_problem(f"{model_id}.json") \
        or unportable_segment(model_id)
    if problem is not None:
        return problem
    key = path_key(model_id)
    top = key.split("/", 1)[0]
    if key in SHARED_FILES:
        return f"names the API's own file {key}.json"
    if top in SHARED_FOLDERS:
        return f"lies in the API's own folder {top}/"
    if top.removesuffix(".json") in SHARED_FILES and top.endswith(".json"):
        return f"makes a folder where the API's own file {top} is"
    return None


def id_outputs_meet(a: str, b: str) -> str | None:
    """How the API outputs of two promoted ids with path keys ``a`` and ``b``
    (:func:`path_key`) meet, as the output folder's ledger
    (:class:`~validator.render.api_ledger.ApiLedger`) would refuse them: each id ``X``
    has the file ``X.json`` and the folder ``X/`` it clears first. ``"same"`` (one path),
    ``"holds"`` (``a``'s folder holds ``b``'s files), ``"inside"`` (``a``'s files lie in
    ``b``'s folder), ``"file-holds"`` (``a``'s file ``a.json`` is where ``b``'s folder or
    a folder above it would be: ``b`` is ``a.json`` or lies under it), ``"under-file"``
    (the converse), ``None``: apart."""
    if a == b:
        return "same"
    if b.startswith(a + "/"):
        return "holds"
    if a.startswith(b + "/"):
        return "inside"
    if b == a + ".json" or b.startswith(a + ".json/"):
        return "file-holds"
    if a == b + ".json" or a.startswith(b + ".json/"):
        return "under-file"
    return None


QUICKSTART = "quickstart"
"""The folder of quickstart files (``quickstart/*.yaml``), and the API's folder the site's
build writes each to (``quickstart/<hardware_profile>.json``)."""


def quickstart_profile_problem(profile: str) -> str | None:
    """Why the site's build cannot write a quickstart file whose ``hardware_profile``
    reads ``profile`` (as a JS template string) to a file of its own,
    ``quickstart/<profile>.json``, or ``None`` when it can. The build joins that path to
    its output folder with ``..`` honoured, so ``profile`` must be one portable path
    segment: else the file leaves the folder (:func:`api_path_problem`), or lands on
    another output of the API (``../models`` is ``models.json``, ``../org/model`` a
    recipe's page) or below a folder of its own, or it names no file on every system
    (:func:`unportable_segment`). ``render --api-out`` refuses it, and ``REF028`` is its
    finding on the quickstart file."""
    rel = f"{QUICKSTART}/{profile}.json"
    problem = api_path_problem(rel)
    if problem is not None:
        return problem
    if "/" in profile:
        target = posixpath.normpath(rel)
        if not target.startswith(f"{QUICKSTART}/"):
            return f"is {target}, outside the API's {QUICKSTART}/ folder (another output " \
                "of the API: an index, a strategy, a recipe's page)"
        return f"is {target}, below a folder of its own in {QUICKSTART}/ (a hardware " \
            "profile is one name)"
    name_bytes = len(f"{profile}.json".encode("utf-8", "surrogateescape"))
    if name_bytes > MAX_NAME_BYTES:
        return f"is a file name of {name_bytes} bytes, longer than file systems allow " \
            f"({MAX_NAME_BYTES}): the site's build stops writing it (ENAMETOOLONG)"
    return unportable_segment(profile)


MAX_NAME_BYTES = 255
"""The longest file name (in bytes) the usual file systems (ext4, APFS, NTFS) allow."""


def _throws_as_text(value: object) -> bool:
    """Whether JavaScript's ``String(value)`` throws for js-yaml data ``value``: a mapping
    with a ``toString`` key (a plain object whose own ``toString`` is no function), also
    inside a list (a list is its items' texts joined)."""
    if isinstance(value, dict):
        return "toString" in value
    return isinstance(value, list) and any(_throws_as_text(v) for v in value)


def quickstart_value_problem(data: object) -> str | None:
    """Why the site's build cannot use a quickstart file's ``hardware_profile`` (of a
    mapping root ``data``) as a name: a mapping or a list is no name (written as its JS
    text, ``[object Object]`` or its items joined with ``,``), and one whose text
    conversion throws stops the build; ``None`` for any other value."""
    from validator.load.jsstring import js_str  # here: this module stays import-light

    value = data.get("hardware_profile") if isinstance(data, dict) else None
    if not isinstance(value, (dict, list)):
        return None
    kind = "a mapping" if isinstance(value, dict) else "a list"
    if _throws_as_text(value):
        return f"is {kind} holding a toString key: the site's build cannot make it a " \
            "file name (TypeError: Cannot convert object to primitive value) and stops, " \
            "writing no API"
    return f"is {kind}, not a name: the site writes this file to " \
        f"{QUICKSTART}/{js_str(value)}.json"


QUICKSTART_FOLDER_PROBLEM = (
    "is a folder, not a file: the site's build lists it among the quickstart files (its "
    "name ends in .yaml) and stops reading it (EISDIR), writing no API")
"""Why a ``quickstart/<name>.yaml`` that is a folder stops the site's build (``REF028``;
``render --api-out`` refuses it)."""


def quickstart_folder_entries(listed: Iterable[str]) -> list[str]:
    """The entries ``quickstart/<name>.yaml`` the site's build lists as quickstart files
    that are folders, given the files ``listed`` under ``quickstart/`` (a folder shows as
    the files below it)."""
    return sorted({"/".join(parts[:2]) for parts in (p.split("/") for p in listed)
                   if len(parts) > 2 and parts[0] == QUICKSTART
                   and parts[1].endswith(".yaml")})


def quickstart_profile(data: object) -> str | None:
    """``hardware_profile`` of a quickstart file's data as the site's build reads it into
    the path it writes (``${q.hardware_profile}``): ``"undefined"`` when the root is no
    mapping or has no such key, else the value as a JS template string; ``None`` when
    the root is ``null`` (the build throws there and writes no API)."""
    from validator.load.jsstring import js_str  # here: this module stays import-light

    if data is None:
        return None
    if not isinstance(data, dict) or "hardware_profile" not in data:
        return "undefined"
    return js_str(data["hardware_profile"])


def quickstart_missing_problem(data: object) -> str | None:
    """Why a quickstart file's data gives the site's build no ``hardware_profile`` of its
    own (a ``null`` root stops the build; a root that is no mapping, or one without the key,
    is written to ``quickstart/undefined.json``), or ``None`` when it has one."""
    if data is None:
        return "the file's root is null: the site's build stops reading its " \
            "hardware_profile and writes no API"
    if not isinstance(data, dict) or "hardware_profile" not in data:
        return f"no hardware_profile: the site writes the file to {QUICKSTART}/undefined.json"
    return None
