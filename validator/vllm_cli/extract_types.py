"""The value kinds of each release's ``vllm serve`` options, vendored beside its registry.

The introspection subprocess (:mod:`validator.vllm_cli._introspect_kinds`) runs each
option's argparse ``type`` callable on probe strings and names what it takes (``int``,
``human_int``, ``float``, ``bool``). The kinds of one release are written to
``<registry folder>/types/<version>.json``, pinned by ``types/index.json`` as the
registries are by theirs, so a release's kinds can be added without rewriting (or
re-pinning) its registry: :func:`main_types` extracts only them, newest release first.

Document shape (sorted keys, indent 1)::

    {"schema": 1, "version": "0.11.0", "source": {"artifact": ..., "sha256": ...},
     "kinds": {"--max-model-len": {"kind": "int", "words": []}, ...}}
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from packaging.version import Version

from validator.vllm_cli.extract import (
    DEFAULT_CACHE_DIR,
    dumps_snapshot,
    extract_each,
    introspect_release,
    update_index,
    write_snapshot,
)
from validator.vllm_cli.fetch import FetchError, index_files
from validator.vllm_cli.registry import INDEX_NAME

#: The folder of the kinds files inside a registry folder.
TYPES_DIR = "types"
TYPES_SCHEMA = 1


def build_types(raw: dict[str, Any], snapshot: dict[str, Any]) -> dict[str, Any]:
    """The kinds document of one introspection dump (``snapshot``: the registry document
    :func:`~validator.vllm_cli.extract.build_snapshot` made of it)."""
    source = snapshot["provenance"]
    return {
        "schema": TYPES_SCHEMA,
        "version": snapshot["version"],
        "source": {"artifact": source["artifact"], "sha256": source["sha256"]},
        "kinds": dict(sorted(raw.get("value_kinds", {}).items())),
    }


def write_types(doc: dict[str, Any], registry_dir: Path) -> str:
    """Write ``<registry_dir>/types/<version>.json`` and pin it; return its sha256."""
    folder = registry_dir / TYPES_DIR
    folder.mkdir(parents=True, exist_ok=True)
    data = dumps_snapshot(doc)
    (folder / f"{doc['version']}.json").write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    update_index(folder, {str(doc["version"]): digest})
    return digest


def extract_release(version: str, registry_dir: Path, files: list[dict[str, Any]],
                    cache_dir: Path = DEFAULT_CACHE_DIR, *,
                    kinds_only: bool = False) -> dict[str, float]:
    """Fetch, unpack and introspect one release; write its registry (unless
    ``kinds_only``: it stays as it is) and its kinds file. Returns timings as
    :func:`~validator.vllm_cli.extract.extract_version` does."""
    raw, doc, timings = introspect_release(version, files, cache_dir)
    if not kinds_only:
        write_snapshot(doc, registry_dir)
    write_types(build_types(raw, doc), registry_dir)
    return timings


def newest_first(registry_dir: Path) -> list[str]:
    """The releases pinned in ``<registry_dir>/index.json`` without a kinds file yet,
    newest first."""
    pinned = json.loads((registry_dir / INDEX_NAME).read_text(encoding="utf-8"))
    typed = registry_dir / TYPES_DIR / INDEX_NAME
    have = set(json.loads(typed.read_text(encoding="utf-8"))) if typed.is_file() else set()
    return sorted((v for v in pinned if v not in have), key=Version, reverse=True)


def main_types(versions: list[str], registry_dir: Path) -> int:
    """Extract the kinds files of ``versions`` (``"missing"``: every pinned release without
    one, newest first) into ``<registry_dir>/types``; exit status as
    :func:`~validator.vllm_cli.extract.main_vllm_cli`."""
    import sys

    try:
        files = index_files()
    except (FetchError, OSError) as exc:
        print(f"vllm-cli types: cannot read the package index: {exc}", file=sys.stderr)
        return 2
    wanted: list[str] = []
    for v in versions:
        wanted += newest_first(registry_dir) if v == "missing" else [v]
    return extract_each("vllm-cli types", list(dict.fromkeys(wanted)),
                        lambda v: extract_release(v, registry_dir, files, kinds_only=True))
