"""``FLAG020``: a flag and its value in one list item, and its fix (two items)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.analysis.arg_items import split_joined
from validator.findings import Severity
from validator.fix.model import Applicability
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.fix.spans import NotApplicable, split_item, value_at
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG020", Severity.WARNING, "Flag and value in one list item",
      reads=FLAG_READS)
def flag_and_value_in_one_item(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A list item holds ``"--flag value"`` in one string. The site's shell rendering happens
    to split it, but every consumer that passes the items as separate argv entries (not
    through a shell) hands vLLM one argument it does not know. The flag and value are
    still checked as two tokens.

    Failing::

        model:
          base_args: ["--max-model-len 32768"]

    Passing::

        model:
          base_args: ["--max-model-len", "32768"]

    How to fix: write the flag and its value as two list items."""
    return issue_hits("FLAG020")(doc, ctx)


@fixer("FLAG020", applicability=Applicability.SAFE,
       summary="write the flag and its value as two items")
def split_flag_value(req: FixRequest) -> FixResult:
    """``- --max-model-len 4096`` -> ``- --max-model-len`` and ``- "4096"`` (the value
    stays a string, as it was)."""
    value = value_at(req.doc, req.finding.pointer)
    if not isinstance(value, str):
        raise NotApplicable("the list item is not a string")
    tokens, _, joined = split_joined((value,))
    if joined != [0] or len(tokens) != 2:
        raise NotApplicable("the item is not one flag followed by its value")
    if any(ch.isspace() for ch in tokens[1]):
        raise NotApplicable("the value holds blanks (several tokens?); split it by hand")
    parts = (tokens[0], tokens[1])
    edit, change = split_item(req.doc, req.index, req.finding.pointer, parts)
    return f"`{value}` -> `{parts[0]}`, `{parts[1]}`", [edit], [change]
