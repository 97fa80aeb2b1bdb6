"""The vendored typed reads of ``kv_connector_extra_config`` per vLLM release
(``snapshots/vllm-kv-extra-config.json``): derived from the same artifacts as the CLI
snapshots, what the derivation reads of a connector module, and what a conversion
misreads (:func:`validator.analysis.kv_extra_config.misread`)."""

from __future__ import annotations

import pytest

from scripts.derive_kv_extra_config import connector_modules, typed_reads
from tests.derived_snapshots import described_artifacts, registers, snapshot_artifacts
from validator.analysis.kv_extra_config import PATH, load, misread


def test_every_release_with_the_option_is_described_from_its_snapshot_artifact() -> None:
    assert described_artifacts(PATH) == snapshot_artifacts(registers("--kv-transfer-config"))


def test_the_simple_offload_connectors_reads_are_typed_from_0_19_0_on() -> None:
    known = load()
    assert "SimpleCPUOffloadConnector" not in known["0.18.1"]
    for version in ("0.19.0", "0.25.0", "0.33.0"):
        reads = known[version]["SimpleCPUOffloadConnector"]
        assert (reads["lazy_offload"], reads["cpu_bytes_to_use_per_rank"]) == ("bool", "int")


FACTORY = """
KVConnectorFactory.register_connector("SimpleConnector", "vllm.x.simple", "SimpleConnector")
"""

MODULE = """
class SimpleConnector:
    def __init__(self, config):
        extra_config = config.kv_connector_extra_config or {}
        self.lazy = bool(extra_config.get("lazy", False))
        self.size = int(extra_config["size"])
        self.both = int(extra_config.get("both", 0)) and bool(extra_config.get("both"))
        self.timeout = float(config.get_from_extra_config("timeout", 1.0))
        self.other = bool(self.options.get("unrelated"))
"""


def test_the_derivation_reads_conversions_of_extra_config_reads() -> None:
    assert connector_modules(FACTORY) == {"SimpleConnector": "vllm.x.simple"}
    # a key read two ways is left out, a dict that is no extra config is not read
    assert typed_reads(MODULE) == {"lazy": "bool", "size": "int", "timeout": "float"}


@pytest.mark.parametrize(("conversion", "item", "wrong"), [
    ("bool", "false", True), ("bool", "Off", True), ("bool", False, False),
    ("bool", "true", False), ("int", "220GiB", True), ("int", " 42 ", False),
    ("int", 42, False), ("int", None, True), ("float", "1.5", False), ("float", [1], True),
    (None, "false", False)])
def test_a_conversion_misreads_what_python_misreads(conversion: str | None, item: object,
                                                    wrong: bool) -> None:
    assert (misread(conversion, item) is not None) is wrong
