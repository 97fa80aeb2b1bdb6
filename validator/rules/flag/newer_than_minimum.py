"""``FLAG002``: a flag newer than the recipe's declared minimum vLLM, and its fix (raise
the minimum)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.fix.model import Applicability
from validator.fix.option_edits import raise_minimum
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG002", Severity.ERROR, "Flag newer than the declared minimum vLLM",
      reads=FLAG_READS)
def flag_newer_than_minimum(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The flag (or its dotted-key form) exists only from a later release than the recipe's
    effective minimum ``min_vllm_version``: on the declared minimum, ``vllm serve`` rejects
    it. The message names the first release that has it.

    Failing::

        model:
          min_vllm_version: "0.12.0"
          base_args: ["--linear-backend", "auto"]

    Passing::

        model:
          min_vllm_version: "0.22.0"
          base_args: ["--linear-backend", "auto"]

    How to fix: raise ``min_vllm_version`` to the release the message names, or drop the flag."""
    return issue_hits("FLAG002")(doc, ctx)


@fixer("FLAG002", applicability=Applicability.UNSAFE,
       summary="raise model.min_vllm_version to what the commands need")
def raise_minimum_for_newer_flag(req: FixRequest) -> FixResult:
    """Raise ``model.min_vllm_version`` to the release the finding asks for (the highest
    any finding of the document asks for: :func:`~validator.fix.option_edits.raise_minimum`)."""
    return raise_minimum(req)
