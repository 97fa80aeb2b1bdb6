"""``GUIDE003``: an unknown vLLM flag in a guide command."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.rules.api import Hit, rule
from validator.rules.guide.facts import GUIDE_READS, rule_hits

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


@rule("GUIDE003", Severity.ERROR, "Unknown vLLM flag in a guide command",
      reads=GUIDE_READS)
def guide_unknown_flag(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A ``vllm serve`` (or ``docker run`` vLLM image, or API server module) command in the
    guide passes an option that no vendored vLLM release has, or one the recipe's
    minimum version does not have (see ``FLAG001``).

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --max-model-lenn 32768
          ```

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --max-model-len 32768
          ```

    How to fix: correct the flag (the hint names the nearest real one) or drop it."""
    return rule_hits("GUIDE003", doc, ctx)
