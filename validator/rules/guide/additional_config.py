"""``GUIDE015``, ``GUIDE016``: ``--additional-config`` keys vLLM-Ascend ignores or rejects,
in a guide command."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.rules.api import Hit, rule
from validator.rules.guide.facts import GUIDE_READS, rule_hits

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


@rule("GUIDE015", Severity.WARNING, "--additional-config key vLLM-Ascend ignores (guide)",
      reads=GUIDE_READS)
def guide_additional_config_key_ignored(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A vLLM-Ascend command in the guide passes an ``--additional-config`` key the
    release the recipe needs does not read, so it has no effect (see ``FLAG021``).

    Failing::

        model: {min_vllm_version: "0.17.0"}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B \\
            --additional-config '{"enable_cpu_bindings": true}'
          ```

    Passing::

        model: {min_vllm_version: "0.17.0"}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B \\
            --additional-config '{"enable_cpu_binding": true}'
          ```

    How to fix: correct the key's spelling, or drop it (the message names the first release
    that reads it, if any)."""
    return rule_hits("GUIDE015", doc, ctx)


@rule("GUIDE016", Severity.ERROR, "--additional-config key vLLM-Ascend rejects (guide)",
      reads=GUIDE_READS)
def guide_additional_config_key_rejected(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A vLLM-Ascend command in the guide passes an ``--additional-config`` key that a
    release with a strict ``AscendConfig`` (0.27 on) refuses: the server does not start
    (see ``FLAG022``).

    Failing::

        model: {min_vllm_version: "0.28.0"}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B \\
            --additional-config '{"enable_cpu_bindings": true}'
          ```

    Passing::

        model: {min_vllm_version: "0.28.0"}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B \\
            --additional-config '{"enable_cpu_binding": true}'
          ```

    How to fix: correct the key's spelling, or drop it: the server does not start with it."""
    return rule_hits("GUIDE016", doc, ctx)
