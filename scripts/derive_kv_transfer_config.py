"""Derive ``snapshots/vllm-kv-transfer-config.json``: per vendored vLLM release with
``--kv-transfer-config``, the ``kv_connector`` names its ``KVConnectorFactory`` registers
and the ``kv_role`` values its ``KVTransferConfig`` accepts, read from the release's own
artifact (the sdist or wheel each ``snapshots/vllm-cli/<version>.json`` was extracted from,
fetched from the package index and verified against the sha256 that file's provenance
records), as ``scripts/derive_speculative_config.py`` does for ``--speculative-config``.

The source is read, never run (:mod:`ast`):

- ``connectors``: the first argument of every ``KVConnectorFactory.register_connector(...)``
  call of ``vllm/distributed/kv_transfer/kv_connector/factory.py``, and the strings of a
  ``supported_kv_connector`` list there (vLLM 0.6.x and 0.7.x test the name against such a
  list). Another name is ``ValueError("Unsupported connector type ...")`` when the engine
  builds the connector: vLLM does not start.
- ``module_path``: whether ``KVTransferConfig`` has a ``kv_connector_module_path`` field,
  with which a connector outside the registry is imported by module path (the name is
  then a class of that module, not a registered one).
- ``roles``: the strings ``KVTransferConfig`` tests ``kv_role`` against (``self.kv_role
  not in [...]`` or ``not in get_args(KVRole)``, the ``Literal`` aliases resolved); another
  role is a ``ValueError`` when the config is built.

    python scripts/derive_kv_transfer_config.py --artifacts DIR [--out FILE]

``DIR`` caches the downloaded artifacts (the same cache ``derive_speculative_config.py``
uses serves both).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.release_sources import (  # noqa: E402
    SNAPSHOTS,
    derive_main,
    first_class,
    snapshots_with_option,
    source_files,
)

OUT = SNAPSHOTS / "vllm-kv-transfer-config.json"
FORMAT = "recipe-check/vllm-kv-transfer-config/v1"
FACTORY = "vllm/distributed/kv_transfer/kv_connector/factory.py"
CONFIGS = ("vllm/config/kv_transfer.py", "vllm/config/__init__.py", "vllm/config.py")


def _strings(node: ast.expr, aliases: dict[str, ast.expr]) -> set[str]:
    """The strings of a list/tuple of constants, a ``Literal[...]`` (nested aliases
    resolved) or ``get_args(Alias)``; raises ``ValueError`` on anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return set().union(*(_strings(e, aliases) for e in node.elts))
    if isinstance(node, ast.Name) and node.id in aliases:
        return _strings(aliases[node.id], aliases)
    if isinstance(node, ast.Subscript) and getattr(node.value, "id", "") == "Literal":
        return _strings(node.slice, aliases)
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "get_args" and node.args:
        return _strings(node.args[0], aliases)
    raise ValueError(f"unexpected expression {ast.unparse(node)}")


def connectors(factory: str) -> list[str]:
    """The connector names ``factory.py`` registers (see the module docstring)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(factory)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "register_connector" and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)):
            names.add(node.args[0].value)
        elif (isinstance(node, ast.Assign) and isinstance(node.value, ast.List)
              and any(isinstance(t, ast.Name) and t.id == "supported_kv_connector"
                      for t in node.targets)):
            names |= _strings(node.value, {})
    if not names:
        raise ValueError("no connector registered in " + FACTORY)
    return sorted(names)


def transfer_config(files: dict[str, str]) -> dict[str, Any]:
    """``{"config_source", "roles", "module_path"}`` of the release whose files are
    ``files`` (see the module docstring)."""
    path, _tree, cls, aliases = first_class(files, CONFIGS, "KVTransferConfig")
    roles: set[str] = set()
    for node in ast.walk(cls):
        if (isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute)
                and node.left.attr == "kv_role"
                and isinstance(node.ops[0], ast.NotIn)):
            roles |= _strings(node.comparators[0], aliases)
    fields = {s.target.id for s in cls.body
              if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
    if not roles:
        raise ValueError(f"{path}: no kv_role test in KVTransferConfig")
    return {"config_source": path, "roles": sorted(roles),
            "module_path": "kv_connector_module_path" in fields}


def main() -> int:
    def describe(_: dict[str, Any], local: Path) -> dict[str, Any]:
        files = source_files(local, (FACTORY, *CONFIGS))
        return {"connectors": connectors(files[FACTORY]), **transfer_config(files)}

    return derive_main(__doc__ or "", OUT, FORMAT, "scripts/derive_kv_transfer_config.py",
                       snapshots_with_option("--kv-transfer-config"), describe)


if __name__ == "__main__":
    raise SystemExit(main())
