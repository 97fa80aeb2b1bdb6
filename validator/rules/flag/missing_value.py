"""``FLAG004``: a flag without its value."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG004", Severity.ERROR, "Flag is missing its value",
      reads=FLAG_READS)
def missing_value(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A value-taking option is followed by another option or ends the list (argparse:
    "expected one argument"), or a dotted key has no value: it ends the list, or
    ``FlexibleArgumentParser`` takes the flag after it as its value (the token after a
    dotted key is its value unconditionally). One defect, one finding: what the swallowed
    flag's absence causes at later lines (its own value a stray argument,
    ``--enable-auto-tool-choice`` without its ``--tool-call-parser``) is not reported at
    those lines but listed as related locations of this finding.

    Failing::

        model:
          base_args: ["--max-model-len"]

    Passing::

        model:
          base_args: ["--max-model-len", "32768"]

    How to fix: give the option its value as the next list item."""
    return issue_hits("FLAG004")(doc, ctx)
