"""``FLAG026``: an argument list written as one string."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, string_list_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG026", Severity.ERROR, "Argument list written as one string",
      reads=FLAG_READS)
def argument_list_is_a_string(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """An argument list (``base_args``, ``extra_args``, a feature's ``args``) is one string
    instead of a list. The site spreads it into the command character by character
    (``--max-model-len 4096`` becomes the tokens ``-``, ``-``, ``m``, ...), so every
    command rendered from it is broken. Reported once per list, with the list to write
    (the per-character tokens are not reported one by one).

    Failing::

        model:
          base_args: "--max-model-len 32768"

    Passing::

        model:
          base_args: ["--max-model-len", "32768"]

    How to fix: write a YAML list with one item per token."""
    return string_list_hits(doc)
