"""``FLAG008``: ``num_speculative_tokens`` that is not a positive integer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG008", Severity.ERROR, "num_speculative_tokens is not a positive integer",
      reads=FLAG_READS)
def speculative_tokens_not_positive(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """``num_speculative_tokens`` of ``--speculative-config`` (whole JSON or dotted key) must
    be an integer >= 1 (``SpeculativeConfig`` validation).

    Failing::

        model:
          base_args: ["--speculative-config", '{"method": "ngram", "num_speculative_tokens": 0}']

    Passing::

        model:
          base_args: ["--speculative-config", '{"method": "ngram", "num_speculative_tokens": 3}']

    How to fix: set ``num_speculative_tokens`` to an integer of at least 1."""
    return issue_hits("FLAG008")(doc, ctx)
