"""A compact, digest-pinned copy of one folder of vendored CLI registries.

Answering "which release first had this option" walks every vendored registry; reading,
hashing and parsing each ``<version>.json`` (14 MB for vLLM alone) costs more than the
rest of a check of one recipe. Most options are the same object in consecutive releases,
so this module derives, from the vendored files, one small file holding every distinct
option once and, per release, the ids of its options and the other fields
:func:`validator.vllm_cli.registry._from_doc` reads. A registry built from it equals the
one built from its file (same fields, same ``sha256``).

The derived data is one entry of the ``vllm-cli/`` part of the run's cache folder
(``--cache-dir``, default ``$XDG_CACHE_HOME/recipe-check``; none under ``--no-cache``: then
it is derived for the run, in memory), kept by a :class:`~validator.cache.ResultCache` as
every other cache entry is: written atomically under a lock, with an HMAC under the
part's own secret. It is built at first use and trusted only when:

* its HMAC verifies (an entry that is damaged, edited or re-stamped without the secret is
  derived again, never trusted);
* it was derived from the same folder with the same ``index.json`` pins;
* every registry file still has the size and modification time it had then.

Building hashes every file against its pin: a file that fails its pin (or does not
parse) is left out, so loading that release goes through the file itself and fails with
the usual :class:`~validator.vllm_cli.registry.RegistryError`. When the cache cannot be
written, the derived data is used from memory for the run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from validator.state_json import parse_json

if TYPE_CHECKING:
    from validator.cache import ResultCache

FORMAT = "recipe-check/vllm-cli-compact/v1"
CACHE_ENV = "RECIPE_CHECK_CLI_CACHE"
"""Environment variable naming the folder of derived entries when no command chose one
(:func:`use_cache`; tests point it elsewhere)."""
PART = "vllm-cli"
"""Sub-folder of the cache folder (``--cache-dir``) that holds the derived data."""
LABEL = "compact"
"""The label of the data in its entry."""
MAX_ENTRIES = 64
"""Entries the part keeps (one per folder of registries and set of pins; about 1 MiB
each); past it the oldest are removed."""

_OPTION_KEYS = ("strings", "dest", "takes_value", "nargs", "choices", "is_json", "negatable",
                "deprecated", "help", "default", "hidden", "json_takes_string",
                "parses_json")
_KEPT = {"schema": None, "version": None, "serve_available": None, "provenance": None,
         "json_flags": None, "dotted_keys": None, "tool_call_parsers": ("names",),
         "reasoning_parsers": ("names",), "kv_cache_dtypes": ("values",),
         "env_vars": ("names",), "parser": ("allow_abbrev", "normalisation", "short_O"),
         "plugin": None}


_CHOSEN: list[Path | None] = []
"""The cache folder a command chose (:func:`use_cache`); empty: none chose."""


def use_cache(root: Path | None) -> None:
    """Keep the derived data in the ``vllm-cli/`` part of the cache folder ``root`` (the
    run's ``--cache-dir`` or the default), or nowhere (``None``: ``--no-cache``, derived
    in memory for the run). Until a command calls this, the part of
    ``$RECIPE_CHECK_CLI_CACHE`` (that folder itself) or of the default cache folder is
    used."""
    _CHOSEN[:] = [root]


def _store() -> ResultCache | None:
    """The store of the derived data (see :func:`use_cache`), ``None``: none."""
    from validator.cache import ResultCache
    from validator.paths import default_cache_dir

    if _CHOSEN:
        root = _CHOSEN[0]
    elif os.environ.get(CACHE_ENV):
        return ResultCache(Path(os.environ[CACHE_ENV]), fast=True)
    else:
        root = default_cache_dir()
    return None if root is None else ResultCache(root / PART, owner=root, fast=True)


def _stats(folder: Path, versions: list[str]) -> dict[str, list[int]] | None:
    out = {}
    for v in versions:
        try:
            st = (folder / f"{v}.json").stat()
        except OSError:
            return None
        out[v] = [st.st_mtime_ns, st.st_size]
    return out


def derive(folder: Path, pins: dict[str, str]) -> dict[str, Any]:
    """The compact data of ``folder`` (every release whose file matches its pin)."""
    options: list[dict[str, Any]] = []
    ids: dict[str, int] = {}
    releases: dict[str, Any] = {}
    stats: dict[str, list[int]] = {}
    for version, pin in sorted(pins.items()):
        path = folder / f"{version}.json"
        try:
            st = path.stat()
            data = path.read_bytes()
            if hashlib.sha256(data).hexdigest() != pin:
                continue
            doc = parse_json(data)
            kept = {}
            for key, sub in _KEPT.items():
                if key in doc:
                    value = doc[key]
                    kept[key] = {k: value[k] for k in sub} if sub and value is not None \
                        else value
            own = []
            for o in doc["options"]:
                spec = {k: o.get(k) for k in _OPTION_KEYS}
                text = json.dumps(spec, sort_keys=True)
                if text not in ids:
                    ids[text] = len(options)
                    options.append(spec)
                own.append(ids[text])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue  # loading this release reads the file and reports what is wrong
        kept["options"] = own
        releases[version] = {"sha256": pin, "doc": kept}
        stats[version] = [st.st_mtime_ns, st.st_size]
    return {"format": FORMAT, "folder": str(folder), "pins": pins, "stats": stats,
            "options": options, "releases": releases}


def _key(folder: Path, pins: dict[str, str]) -> str:
    """The entry's key: the format, the folder and its pins."""
    text = json.dumps([FORMAT, str(folder), sorted(pins.items())])
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _read(store: ResultCache | None, key: str) -> dict[str, Any] | None:
    """The data of the entry ``key`` when it verifies (see the module docstring)."""
    if store is None:
        return None
    try:
        data = store.get(key).get(LABEL)
    except OSError:  # the part cannot be made or read: derived for this run
        return None
    return data if isinstance(data, dict) and data.get("format") == FORMAT else None


def _write(store: ResultCache | None, key: str, data: dict[str, Any]) -> None:
    if store is None:
        return
    with contextlib.suppress(OSError):  # read-only cache: the data derived serves this run
        store.put(key, {LABEL: data}, replace=True)
        store.prune(MAX_ENTRIES)


def _current(data: dict[str, Any] | None, folder: Path, pins: dict[str, str]) -> bool:
    if data is None or data.get("folder") != str(folder) or data.get("pins") != pins:
        return False
    stats = data.get("stats")
    return isinstance(stats, dict) and _stats(folder, sorted(stats)) == stats


_LOADED: dict[tuple[Path, tuple[tuple[str, str], ...]], dict[str, Any]] = {}


def compact(folder: Path, pins_items: tuple[tuple[str, str], ...],
            fresh: bool = False) -> dict[str, Any]:
    """The verified compact data of ``folder`` for these ``index.json`` pins (once per
    process): read from the cache when it is current (see the module docstring), else
    derived and cached; ``fresh`` checks the cache again."""
    key = (folder, pins_items)
    if fresh or key not in _LOADED:
        pins = dict(pins_items)
        store, entry = _store(), _key(folder, pins)
        data = _read(store, entry)
        if not _current(data, folder, pins):
            data = derive(folder, pins)
            _write(store, entry, data)
        assert data is not None
        _LOADED[key] = _share(data)
    return _LOADED[key]


_NAME_SETS = (("json_flags", None), ("tool_call_parsers", "names"),
              ("reasoning_parsers", "names"), ("kv_cache_dtypes", "values"),
              ("env_vars", "names"))
_PLUGIN_SETS = ("env_vars", "additional_config_keys")


def _share(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (after it is written, in memory only) with each list of names of a
    release (``env_vars``, parsers, ``json_flags``, a plugin's names) replaced by a
    frozenset shared by every release that lists the same names, each name one string
    object: consecutive releases mostly repeat them, and the registries built from the
    data keep those sets as they are (:func:`validator.vllm_cli.registry._names`)."""
    sets: dict[tuple[str, ...], frozenset[str]] = {}
    names: dict[str, str] = {}

    def frozen(value: Any) -> Any:
        if not isinstance(value, list) or not all(type(x) is str for x in value):
            return value  # left as read: building the registry reports what is wrong
        key = tuple(value)
        hit = sets.get(key)
        if hit is None:
            hit = sets[key] = frozenset(names.setdefault(x, x) for x in key)
        return hit

    for entry in data["releases"].values():
        doc = entry.get("doc") if isinstance(entry, dict) else None
        if not isinstance(doc, dict):
            continue
        for field, sub in _NAME_SETS:
            block = doc.get(field)
            if sub is None and field in doc:
                doc[field] = frozen(block)
            elif isinstance(block, dict) and sub in block:
                block[sub] = frozen(block[sub])
        plugin = doc.get("plugin")
        if isinstance(plugin, dict):
            for field in _PLUGIN_SETS:
                if field in plugin:
                    plugin[field] = frozen(plugin[field])
    return data


def release_doc(folder: Path, pins_items: tuple[tuple[str, str], ...], version: str,
                stat: tuple[int, int]
                ) -> tuple[dict[str, Any], list[dict[str, Any]], list[Any]] | None:
    """``(document fields, option table, objects)`` of ``version`` from the compact data
    (``objects``: one slot per table entry, where the caller keeps what it built from it,
    shared by every release of the same data), or
    ``None`` when it is not there (its file failed its pin when the data was made).
    ``stat`` is the file's current ``(mtime_ns, size)``: a file changed since the data
    was made is derived again."""
    data = compact(folder, pins_items)
    if data["stats"].get(version) != list(stat):
        data = compact(folder, pins_items, fresh=True)
    entry = data["releases"].get(version)
    if entry is None or entry["sha256"] != dict(pins_items).get(version) \
            or data["stats"].get(version) != list(stat):
        return None
    doc: dict[str, Any] = entry["doc"]
    options: list[dict[str, Any]] = data["options"]
    objects: list[Any] = data.setdefault("objects", [None] * len(options))  # never written
    return doc, options, objects
