"""The ``kv_connector`` names each vendored vLLM release registers and the ``kv_role``
values it accepts in ``--kv-transfer-config``, vendored as
``snapshots/vllm-kv-transfer-config.json``.

The file is derived, by ``scripts/derive_kv_transfer_config.py``, from the same release
artifacts as ``snapshots/vllm-cli/<version>.json`` (each entry records the artifact and its
sha256, which a test requires to be that file's provenance): the names
``KVConnectorFactory`` registers (another is ``Unsupported connector type`` when the engine
builds the connector), the roles ``KVTransferConfig`` tests ``kv_role`` against (another is
``Unsupported kv_role``), and whether a ``kv_connector_module_path`` can name a connector
outside the registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from validator.paths import SNAPSHOTS_DIR
from validator.vllm_cli.derived import derived_releases

PATH = SNAPSHOTS_DIR / "vllm-kv-transfer-config.json"
FORMAT = "recipe-check/vllm-kv-transfer-config/v1"


@dataclass(frozen=True)
class KvTransferRelease:
    """What one release accepts in ``--kv-transfer-config``: the registered connector
    names, the ``kv_role`` values, and whether ``kv_connector_module_path`` exists."""

    connectors: frozenset[str]
    roles: frozenset[str]
    module_path: bool


def load(path: Path = PATH) -> dict[str, KvTransferRelease]:
    """Release version -> :class:`KvTransferRelease`, read from the vendored file."""
    releases = derived_releases(path, FORMAT)
    return {version: KvTransferRelease(frozenset(entry["connectors"]), frozenset(entry["roles"]),
                                       bool(entry["module_path"]))
            for version, entry in releases.items()}
