"""The vendored CLI registries in compact form, derived at build time and shipped as
package data.

Answering "which release first had this option" walks every vendored registry; reading,
hashing and parsing each ``<version>.json`` (14 MB for vLLM alone) costs more than the
rest of a check of one recipe. Most options are the same object in consecutive releases,
so :func:`derive` makes, from one folder of vendored files, a small document holding every
distinct option once and, per release, the ids of its options and the other fields
:func:`validator.vllm_cli.registry._from_doc` reads. A registry built from it equals the
one built from its file (same fields, same ``sha256``).

The derived documents are made once, by ``scripts/derive_vllm_cli.py``, from the vendored
folders (``snapshots/vllm-cli`` and each plugin folder in it holding an ``index.json``)
and shipped in the package as ``validator/data/vllm_cli*.json`` (:func:`data_file`), like
the rest of ``validator/data``: a test derives them again and requires the same bytes, so
a shipped file cannot fall behind its sources. A run only reads them (the file of a
family when a registry of that family is first asked for), never writes them, and never
reads derived data from the user's cache folder: nothing there can change a verdict.
Each release's data is used only when its ``sha256`` (of the file it was derived from)
is the pin ``index.json`` has for that release now; a release re-pinned since (or absent
from the shipped data) is loaded from its file, which is hashed against its pin as before.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

from packaging.version import Version

from validator.paths import PACKAGE_DIR
from validator.state_json import parse_json

FORMAT = "recipe-check/vllm-cli-compact/v2"
DATA_DIR = PACKAGE_DIR / "data"
"""Where the derived documents are shipped (:func:`data_file`)."""

_OPTION_KEYS = ("strings", "dest", "takes_value", "nargs", "choices", "is_json", "negatable",
                "deprecated", "help", "default", "hidden", "json_takes_string",
                "parses_json")
_KEPT = {"schema": None, "version": None, "serve_available": None, "provenance": None,
         "json_flags": None, "dotted_keys": None, "tool_call_parsers": ("names",),
         "reasoning_parsers": ("names",), "kv_cache_dtypes": ("values",),
         "env_vars": ("names",), "parser": ("allow_abbrev", "normalisation", "short_O"),
         "plugin": None}


def data_file(family: str) -> Path:
    """The shipped document of the vendored folder ``family``: ``""`` for vLLM's own
    (``snapshots/vllm-cli``), else a plugin's folder name in it (``"vllm-omni"``)."""
    return DATA_DIR / (f"vllm_cli.{family}.json" if family else "vllm_cli.json")


def _kept(doc: dict[str, Any]) -> dict[str, Any]:
    kept = {}
    for key, sub in _KEPT.items():
        if key in doc:
            value = doc[key]
            kept[key] = {k: value[k] for k in sub} if sub and value is not None else value
    return kept


def derive(folder: Path, pins: dict[str, str]) -> dict[str, Any]:
    """The compact data of ``folder`` (every release whose file matches its pin in
    ``pins``; a file that fails it, or does not parse, is left out). Releases in version
    order, each option numbered where it first appears, so that a new release appends."""
    options: list[dict[str, Any]] = []
    ids: dict[bytes, int] = {}
    releases: dict[str, Any] = {}
    for version in sorted(pins, key=Version):
        try:
            data = (folder / f"{version}.json").read_bytes()
            if hashlib.sha256(data).hexdigest() != pins[version]:
                continue
            doc = parse_json(data, fast=True)
            kept = _kept(doc)
            own = []
            for o in doc["options"]:
                spec = {k: o.get(k) for k in _OPTION_KEYS}
                text = _dump(spec)
                if text not in ids:
                    ids[text] = len(options)
                    options.append(spec)
                own.append(ids[text])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue  # loading this release reads the file and reports what is wrong
        kept["options"] = own
        releases[version] = {"sha256": pins[version], "doc": kept}
    return {"format": FORMAT, "options": options, "releases": releases}


def _dump(value: Any) -> bytes:
    import orjson

    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def encode(data: dict[str, Any]) -> bytes:
    """``data`` (of :func:`derive`) as the bytes of its shipped file: JSON with one option
    and one release a line, so that a regenerated file's diff shows what changed."""
    lines = [b'{"format":' + _dump(data["format"]) + b',"options":[']
    lines += [_dump(o) + b"," for o in data["options"]]
    if data["options"]:
        lines[-1] = lines[-1][:-1]
    lines.append(b'],"releases":{')
    lines += [_dump(v) + b":" + _dump(r) + b"," for v, r in data["releases"].items()]
    if data["releases"]:
        lines[-1] = lines[-1][:-1]
    lines.append(b"}}")
    return b"\n".join(lines) + b"\n"


@functools.cache
def shipped(family: str) -> dict[str, Any] | None:
    """The shipped document of ``family`` (see :func:`data_file`), read once per process,
    with its lists of names shared (:func:`_share`); ``None`` when the package has none
    (every release of the family is then loaded from its file)."""
    try:
        data = parse_json(data_file(family).read_bytes(), fast=True)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    data["objects"] = [None] * len(data["options"])  # CliOption objects, built when asked
    return _share(data)


_NAME_SETS = (("json_flags", None), ("tool_call_parsers", "names"),
              ("reasoning_parsers", "names"), ("kv_cache_dtypes", "values"),
              ("env_vars", "names"))
_PLUGIN_SETS = ("env_vars", "additional_config_keys")


def _share(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (in memory only) with each list of names of a release (``env_vars``,
    parsers, ``json_flags``, a plugin's names) replaced by a frozenset shared by every
    release that lists the same names, each name one string object: consecutive releases
    mostly repeat them, and the registries built from the data keep those sets as they
    are (:func:`validator.vllm_cli.registry._names`)."""
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


def release_doc(family: str, version: str, pin: str
                ) -> tuple[dict[str, Any], list[dict[str, Any]], list[Any]] | None:
    """``(document fields, option table, objects)`` of ``version`` of ``family`` from its
    shipped document (``objects``: one slot per table entry, where the caller keeps what
    it built from it, shared by every release of the family), or ``None`` when the
    document lacks that release or derived it from a file other than the one pinned
    now (``pin``, the release's sha256 in ``index.json``)."""
    data = shipped(family)
    if data is None:
        return None
    entry = data["releases"].get(version)
    if entry is None or entry["sha256"] != pin:
        return None
    return entry["doc"], data["options"], data["objects"]
