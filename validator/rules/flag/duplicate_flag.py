"""``FLAG011``: the same flag twice in one argument list."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG011", Severity.ERROR, "Same flag twice in one list",
      reads=FLAG_READS)
def flag_twice_in_one_list(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """One argument list sets the same option twice (or a whole JSON value and dotted keys of
    the same option). The site's ``dedupeArgs`` silently drops the earlier one, and vLLM's
    dotted keys replace the whole JSON value, so one of them is dead.

    Failing::

        model:
          base_args: ["--max-model-len", "32768", "--max-model-len", "16384"]

    Passing::

        model:
          base_args: ["--max-model-len", "16384"]

    How to fix: keep one occurrence."""
    return issue_hits("FLAG011")(doc, ctx)
