"""A compact, digest-pinned copy of one folder of vendored CLI registries.

Answering "which release first had this option" walks every vendored registry; reading,
hashing and parsing each ``<version>.json`` (14 MB for vLLM alone) costs more than the
rest of a check of one recipe. Most options are the same object in consecutive releases,
so this module derives, from the vendored files, one small file holding every distinct
option once and, per release, the ids of its options and the other fields
:func:`validator.vllm_cli.registry._from_doc` reads. A registry built from it equals the
one built from its file (same fields, same ``sha256``).

The derived file lives in the user cache (``$XDG_CACHE_HOME/recipe-check/vllm-cli/``),
is built at first use and is trusted only when:

* its first line is the SHA-256 of the rest (a damaged or edited copy is rebuilt);
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
from typing import Any

from validator.state_json import parse_json

FORMAT = "recipe-check/vllm-cli-compact/v1"
CACHE_ENV = "RECIPE_CHECK_CLI_CACHE"
"""Environment variable naming the folder of derived files (tests point it elsewhere)."""

_OPTION_KEYS = ("strings", "dest", "takes_value", "nargs", "choices", "is_json", "negatable",
                "deprecated", "help", "default", "hidden", "json_takes_string",
                "parses_json")
_KEPT = {"schema": None, "version": None, "serve_available": None, "provenance": None,
         "json_flags": None, "dotted_keys": None, "tool_call_parsers": ("names",),
         "reasoning_parsers": ("names",), "kv_cache_dtypes": ("values",),
         "env_vars": ("names",), "parser": ("allow_abbrev", "normalisation", "short_O"),
         "plugin": None}


def cache_dir() -> Path:
    """``$RECIPE_CHECK_CLI_CACHE``, else ``$XDG_CACHE_HOME/recipe-check/vllm-cli``."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "recipe-check" / "vllm-cli"


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


def _cache_file(folder: Path) -> Path:
    return cache_dir() / f"{hashlib.sha256(str(folder).encode()).hexdigest()[:24]}.json"


def _read(file: Path) -> dict[str, Any] | None:
    try:
        raw = file.read_bytes()
    except OSError:
        return None
    digest, _, body = raw.partition(b"\n")
    if hashlib.sha256(body).hexdigest().encode() != digest:
        return None
    try:
        data: dict[str, Any] = parse_json(body)
    except ValueError:
        return None
    return data if isinstance(data, dict) and data.get("format") == FORMAT else None


def _write(file: Path, data: dict[str, Any]) -> None:
    from validator.atomic import atomic_write

    body = json.dumps(data, separators=(",", ":"), sort_keys=True).encode()
    with contextlib.suppress(OSError):  # read-only cache: the data derived serves this run
        atomic_write(file, hashlib.sha256(body).hexdigest().encode() + b"\n" + body)


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
        file = _cache_file(folder)
        data = _read(file)
        if not _current(data, folder, pins):
            data = derive(folder, pins)
            _write(file, data)
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
