"""The vendored KV connectors and roles per vLLM release
(``snapshots/vllm-kv-transfer-config.json``): derived from the same artifacts as the CLI
snapshots, and what the derivation reads of a release's source."""

from __future__ import annotations

from scripts.derive_kv_transfer_config import connectors, transfer_config
from tests.derived_snapshots import described_artifacts, registers, snapshot_artifacts
from validator.vllm_cli.kv_connectors import PATH, load


def test_every_release_with_the_option_is_described_from_its_snapshot_artifact() -> None:
    assert described_artifacts(PATH) == snapshot_artifacts(registers("--kv-transfer-config"))


def test_connectors_follow_the_releases_sources() -> None:
    known = load()
    assert known["0.6.5"].connectors == {"PyNcclConnector", "MooncakeConnector"}
    assert "OffloadingConnector" not in known["0.10.2"].connectors
    assert "OffloadingConnector" in known["0.11.0"].connectors
    assert "MooncakeStoreConnector" not in known["0.20.2"].connectors
    assert "MooncakeStoreConnector" in known["0.21.0"].connectors
    assert "SimpleCPUOffloadConnector" in known["0.19.0"].connectors
    assert all(r.roles == {"kv_producer", "kv_consumer", "kv_both"} for r in known.values())
    assert not known["0.8.5"].module_path and known["0.9.0"].module_path


FACTORY_LIST = """
class KVConnectorFactory:
    def create_connector(rank, local_rank, config):
        supported_kv_connector = ["PyNcclConnector", "MooncakeConnector"]
"""

FACTORY_REGISTRY = """
class KVConnectorFactory:
    _registry = {}
KVConnectorFactory.register_connector("NixlConnector", "vllm.x", "NixlConnector")
KVConnectorFactory.register_connector("MultiConnector", "vllm.y", "MultiConnector")
"""

CONFIG = """
from typing import Literal, get_args
KVProducer = Literal["kv_producer", "kv_both"]
KVConsumer = Literal["kv_consumer", "kv_both"]
KVRole = Literal[KVProducer, KVConsumer]
class KVTransferConfig:
    kv_connector: str | None = None
    kv_connector_module_path: str | None = None
    def __post_init__(self):
        if self.kv_role is not None and self.kv_role not in get_args(KVRole):
            raise ValueError("Unsupported kv_role")
"""


def test_the_derivation_reads_lists_registrations_and_role_literals() -> None:
    assert connectors(FACTORY_LIST) == ["MooncakeConnector", "PyNcclConnector"]
    assert connectors(FACTORY_REGISTRY) == ["MultiConnector", "NixlConnector"]
    assert transfer_config({"vllm/config/kv_transfer.py": CONFIG}) == {
        "config_source": "vllm/config/kv_transfer.py", "module_path": True,
        "roles": ["kv_both", "kv_consumer", "kv_producer"]}
