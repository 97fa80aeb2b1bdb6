"""``FLAG032``: a ``kv_connector`` or ``kv_role`` of ``--kv-transfer-config`` the recipe's
minimum release refuses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG032", Severity.ERROR, "KV connector or role the minimum release refuses",
      reads=FLAG_READS)
def kv_transfer_refused(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The ``kv_connector`` of ``--kv-transfer-config`` (whole JSON or a dotted key, and
    each child of a ``MultiConnector``) must be a name the minimum vLLM release's
    ``KVConnectorFactory`` registers, and its ``kv_role`` one of the roles
    ``KVTransferConfig`` accepts (``kv_producer``, ``kv_consumer``, ``kv_both``): vLLM
    refuses another ("Unsupported connector type", "Unsupported kv_role") and does not
    start. The names of each release are read from its own source
    (``snapshots/vllm-kv-transfer-config.json``). A connector loaded from
    ``kv_connector_module_path`` is not judged. The same lists in a strategy or kv-store
    file are reported on that file at the value's line. A connector registered only from a
    later release says so (raise the minimum); a release of the install range that does
    not register it is ``FLAG023``.

    Failing::

        model:
          min_vllm_version: "0.21.0"
          base_args:
            - "--kv-transfer-config"
            - '{"kv_connector": "NIXLConnector", "kv_role": "kv_both"}'

    Passing::

        model:
          min_vllm_version: "0.21.0"
          base_args:
            - "--kv-transfer-config"
            - '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'

    How to fix: spell the connector and role as the release does (the hint names the
    closest), or raise ``min_vllm_version`` to the release that registers the connector."""
    return issue_hits("FLAG032")(doc, ctx)
