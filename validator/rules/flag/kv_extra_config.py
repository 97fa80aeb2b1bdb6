"""``FLAG041``: a value of a KV connector's ``kv_connector_extra_config`` the connector of
the recipe's minimum release misreads or refuses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG041", Severity.ERROR, "KV connector extra config value of the wrong type",
      reads=FLAG_READS)
def kv_extra_config_type(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A KV connector reads its ``kv_connector_extra_config`` (in ``--kv-transfer-config``,
    a kv-store file or a taxonomy KV offload option) with plain Python conversions when it
    is built: ``SimpleCPUOffloadConnector`` takes ``bool(extra_config.get("lazy_offload",
    False))`` and ``int(extra_config.get("cpu_bytes_to_use", ...))``. A JSON string that
    says "off" for a ``bool`` read (``"false"``, ``"0"``, ``"no"``) is true, so the
    connector does the opposite of what the option says; a value ``int`` or ``float``
    refuses (``"220GiB"``, ``null``) stops the connector, and vLLM does not start. Which
    keys each connector of each release converts, and how, is read from the release's own
    source (``snapshots/vllm-kv-extra-config.json``,
    ``scripts/derive_kv_extra_config.py``); keys a connector reads in another module, or
    without a conversion, are not judged.

    Failing::

        model:
          min_vllm_version: "0.21.0"
          base_args:
            - "--kv-transfer-config"
            - '{"kv_connector": "SimpleCPUOffloadConnector", "kv_role": "kv_both",
              "kv_connector_extra_config": {"lazy_offload": "false"}}'

    Passing::

        model:
          min_vllm_version: "0.21.0"
          base_args:
            - "--kv-transfer-config"
            - '{"kv_connector": "SimpleCPUOffloadConnector", "kv_role": "kv_both",
              "kv_connector_extra_config": {"lazy_offload": false}}'

    How to fix: write JSON booleans and numbers unquoted (``false``, ``236223201280``)."""
    return issue_hits("FLAG041")(doc, ctx)
