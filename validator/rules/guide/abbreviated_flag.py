"""``GUIDE007``: an abbreviated flag in a guide command, and its fix (write the full option)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.fix.model import Applicability
from validator.fix.option_edits import abbreviation_expansion
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.rules.api import Hit, rule
from validator.rules.guide.facts import GUIDE_READS, rule_hits
from validator.rules.guide.line_edits import rewrite_guide_token

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


@rule("GUIDE007", Severity.WARNING, "Abbreviated flag in a guide command",
      reads=GUIDE_READS)
def guide_abbreviated_flag(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """argparse accepts a unique prefix of a long option; the abbreviation breaks when vLLM
    adds an option with the same prefix (see ``FLAG014``).

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --max-model 32768
          ```

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --max-model-len 32768
          ```

    How to fix: write the option in full."""
    return rule_hits("GUIDE007", doc, ctx)


@fixer("GUIDE007", applicability=Applicability.SAFE,
       summary="write the full option in the guide command")
def expand_guide_flag(req: FixRequest) -> FixResult:
    """``  --enable-mm \\`` -> ``  --enable-mm-embeds \\`` on the guide line."""
    return rewrite_guide_token(req, *abbreviation_expansion(req.finding.message))
