"""``GUIDE004``: a guide flag newer than the declared minimum vLLM, and its fix (raise the
minimum)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.fix.model import Applicability
from validator.fix.option_edits import raise_minimum
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.rules.api import Hit, rule
from validator.rules.guide.facts import GUIDE_READS, rule_hits

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


@rule("GUIDE004", Severity.ERROR, "Guide flag newer than the declared minimum vLLM",
      reads=GUIDE_READS)
def guide_flag_newer(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A guide command uses a flag that exists only from a release later than the recipe's
    (or the served variant's) effective ``min_vllm_version`` (see ``FLAG002``).

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --linear-backend auto
          ```

    Passing::

        model: {min_vllm_version: "0.22.0"}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --linear-backend auto
          ```

    How to fix: raise ``min_vllm_version`` to the release the message names, or drop the flag."""
    return rule_hits("GUIDE004", doc, ctx)


@fixer("GUIDE004", applicability=Applicability.UNSAFE,
       summary="raise model.min_vllm_version to what the commands need")
def raise_minimum_for_newer_guide_flag(req: FixRequest) -> FixResult:
    """Raise ``model.min_vllm_version`` to the release the finding asks for (the highest
    any finding of the document asks for: :func:`~validator.fix.option_edits.raise_minimum`)."""
    return raise_minimum(req)
