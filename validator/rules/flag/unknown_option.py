"""``FLAG001``: an argument that is no option of ``vllm serve``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG001", Severity.ERROR, "Unknown vLLM flag",
      reads=FLAG_READS)
def unknown_flag(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """An argument is not an option of ``vllm serve`` at the recipe's effective minimum vLLM
    version, nor of any later vendored release (or is an ambiguous abbreviation). argparse
    exits with "unrecognized arguments". The hint names the nearest real flag
    (:func:`difflib.get_close_matches`). Source: the vendored CLI registry, built from the
    release's own ``make_arg_parser``.

    Failing::

        model:
          base_args: ["--max-model-lenn", "32768"]

    Passing::

        model:
          base_args: ["--max-model-len", "32768"]

    How to fix: correct the spelling (the hint names the nearest real flag) or drop the flag."""
    return issue_hits("FLAG001")(doc, ctx)
