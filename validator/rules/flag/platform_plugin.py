"""``FLAG017``: arguments of a platform plugin no vendored release of it can check."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG017", Severity.INFO, "Arguments not checked (platform plugin)",
      reads=FLAG_READS)
def not_checked_plugin(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The arguments are for a platform plugin or a separate server (vLLM-Omni for ``tasks:
    omni``; vLLM-Ascend for NPU variants and overrides, ``--quantization ascend`` or
    ``--additional-config``) and no vendored release of that plugin's CLI fits the
    recipe's minimum (the oldest on the package index is built on a newer vLLM), so they
    are reported as not checked rather than risk a false error. When one fits, the
    arguments are checked against it like vLLM's own (``snapshots/vllm-cli/<plugin>/``).

    Failing::

        meta:
          tasks: [omni]
        model:
          min_vllm_version: "0.10.0"

    Passing::

        meta:
          tasks: [omni]
        model:
          min_vllm_version: "0.22.0"

    How to fix: raise ``min_vllm_version`` to a release the plugin has (the message names
    the oldest) to have the arguments checked."""
    return issue_hits("FLAG017")(doc, ctx)
