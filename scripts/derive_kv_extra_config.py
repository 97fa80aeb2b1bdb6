"""Derive ``snapshots/vllm-kv-extra-config.json``: per vendored vLLM release with
``--kv-transfer-config``, the ``kv_connector_extra_config`` keys each registered connector
converts with ``bool``, ``int`` or ``float`` when it is built, read from the release's own
artifact (the sdist or wheel each ``snapshots/vllm-cli/<version>.json`` was extracted from,
fetched from the package index and verified against the sha256 that file's provenance
records), as ``scripts/derive_kv_transfer_config.py`` does for the connector names.

The source is read, never run (:mod:`ast`): ``KVConnectorFactory.register_connector(name,
module, class)`` in ``vllm/distributed/kv_transfer/kv_connector/factory.py`` names the
module of each connector; in that module (only: a read in a module it imports is not
seen), each call ``bool(X.get("key", ...))``, ``bool(X["key"])`` or
``bool(X.get_from_extra_config("key", ...))`` (and the same with ``int`` or ``float``),
where ``X`` is the extra config (its text names ``extra_config``), records ``key`` as read
with that conversion. A key read with two different conversions in one module is left
out. ``bool`` of a JSON string is its truth (``bool("false")`` is ``True``); ``int`` and
``float`` of a string that is no number raise, and the connector is not built.

    python scripts/derive_kv_extra_config.py --artifacts DIR [--out FILE]

``DIR`` caches the downloaded artifacts (the cache of the other ``derive_*`` scripts).
"""

from __future__ import annotations

import ast
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.release_sources import (  # noqa: E402
    SNAPSHOTS,
    derive_main,
    snapshots_with_option,
)

OUT = SNAPSHOTS / "vllm-kv-extra-config.json"
FORMAT = "recipe-check/vllm-kv-extra-config/v1"
FACTORY = "vllm/distributed/kv_transfer/kv_connector/factory.py"
PREFIX = "vllm/distributed/kv_transfer/"
CONVERSIONS = ("bool", "int", "float")


def kv_sources(artifact: Path) -> dict[str, str]:
    """Every ``.py`` file under ``vllm/distributed/kv_transfer/`` of an sdist or wheel."""
    out: dict[str, str] = {}
    if artifact.name.endswith(".tar.gz"):
        with tarfile.open(artifact) as tar:
            for member in tar.getmembers():
                rel = member.name.partition("/")[2]
                if rel.startswith(PREFIX) and rel.endswith(".py") and member.isfile():
                    handle = tar.extractfile(member)
                    if handle is not None:
                        out[rel] = handle.read().decode("utf-8")
    else:
        with zipfile.ZipFile(artifact) as wheel:
            for name in wheel.namelist():
                if name.startswith(PREFIX) and name.endswith(".py"):
                    out[name] = wheel.read(name).decode("utf-8")
    return out


def connector_modules(factory: str) -> dict[str, str]:
    """Connector name -> the module ``register_connector`` names for it."""
    out: dict[str, str] = {}
    for node in ast.walk(ast.parse(factory)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "register_connector" and len(node.args) >= 2
                and all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                        for a in node.args[:2])):
            out[str(node.args[0].value)] = str(node.args[1].value)  # type: ignore[attr-defined]
    return out


def _read_key(node: ast.expr) -> str | None:
    """The key an extra-config read names (``X.get("k")``, ``X["k"]``,
    ``X.get_from_extra_config("k")`` with ``X`` naming ``extra_config``), else ``None``."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        target, key = node.value, node.slice.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args \
            and node.func.attr in ("get", "get_from_extra_config") \
            and isinstance(node.args[0], ast.Constant):
        target, key = node.func.value, node.args[0].value
        if node.func.attr == "get_from_extra_config":
            return key if isinstance(key, str) else None
    else:
        return None
    return key if isinstance(key, str) and "extra_config" in ast.unparse(target) else None


def typed_reads(source: str) -> dict[str, str]:
    """Key -> conversion of the extra-config reads of one module (module docstring)."""
    seen: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in CONVERSIONS and len(node.args) == 1:
            key = _read_key(node.args[0])
            if key is not None:
                seen.setdefault(key, set()).add(node.func.id)
    return {key: next(iter(kinds)) for key, kinds in sorted(seen.items()) if len(kinds) == 1}


def module_file(files: dict[str, str], module: str) -> str | None:
    """The source of dotted ``module`` (a file, or a package's ``__init__.py``)."""
    base = module.replace(".", "/")
    return files.get(base + ".py") or files.get(base + "/__init__.py")


def release_reads(files: dict[str, str]) -> dict[str, dict[str, str]]:
    """Connector name -> its typed reads, for the connectors that have any."""
    out = {}
    for name, module in sorted(connector_modules(files.get(FACTORY, "")).items()):
        source = module_file(files, module)
        reads = typed_reads(source) if source is not None else {}
        if reads:
            out[name] = reads
    return out


def main() -> int:
    return derive_main(__doc__ or "", OUT, FORMAT, "scripts/derive_kv_extra_config.py",
                       snapshots_with_option("--kv-transfer-config"),
                       lambda _, local: {"reads": release_reads(kv_sources(local))})


if __name__ == "__main__":
    raise SystemExit(main())
