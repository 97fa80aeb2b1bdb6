"""``FLAG013``, ``FLAG014``: a flag spelled with underscores or abbreviated, and their
fixes (write the flag vLLM reads)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.fix.model import Applicability
from validator.fix.option_edits import abbreviation_expansion
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.fix.spans import NotApplicable, replace_in_scalar, value_at
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits
from validator.vllm_cli import argv

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG013", Severity.WARNING, "Flag spelled with underscores",
      reads=FLAG_READS)
def underscore_spelling(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """vLLM accepts ``--max_model_len`` (``FlexibleArgumentParser`` turns underscores into
    dashes before the first ``.``), but the recipes site de-duplicates flags by their
    literal spelling: an override written the canonical way does not replace the
    underscore copy and both are rendered.

    Failing::

        model:
          base_args: ["--max_model_len", "32768"]

    Passing::

        model:
          base_args: ["--max-model-len", "32768"]

    How to fix: spell the flag with dashes, as vLLM's help does."""
    return issue_hits("FLAG013")(doc, ctx)


@rule("FLAG014", Severity.WARNING, "Flag abbreviated",
      reads=FLAG_READS)
def abbreviated_flag(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """argparse accepts a unique prefix of a long option (``--max-model`` for
    ``--max-model-len``); the abbreviation breaks as soon as vLLM adds another option
    with the same prefix.

    Failing::

        model:
          base_args: ["--max-model", "32768"]

    Passing::

        model:
          base_args: ["--max-model-len", "32768"]

    How to fix: write the option in full."""
    return issue_hits("FLAG014")(doc, ctx)


_OPTION = re.compile(r"--?[^\s=]+")


def _item_option(doc: LoadedDocument, pointer: str) -> str:
    value = value_at(doc, pointer)
    if not isinstance(value, str):
        raise NotApplicable("the list item is not a string")
    m = _OPTION.match(value)
    if m is None:
        raise NotApplicable("the list item does not start with an option")
    return m.group(0)


@fixer("FLAG013", applicability=Applicability.SAFE, summary="write the flag with dashes")
def dash_flag(req: FixRequest) -> FixResult:
    """``- --max_model_len=4096`` -> ``- --max-model-len=4096`` (dotted JSON keys keep
    their underscores: ``--speculative_config.num_speculative_tokens`` ->
    ``--speculative-config.num_speculative_tokens``)."""
    written = _item_option(req.doc, req.finding.pointer)
    canonical = argv.normalise(written)
    if canonical == written:
        raise NotApplicable(f"`{written}` has no underscore before its first `.`")
    edit, change = replace_in_scalar(req.doc, req.index, req.finding.pointer, written, canonical)
    return f"`{written}` -> `{canonical}`", [edit], [change]


@fixer("FLAG014", applicability=Applicability.SAFE, summary="write the full option")
def expand_flag(req: FixRequest) -> FixResult:
    """``- --max-model 4096`` -> ``- --max-model-len 4096``: the option argparse expands
    the prefix to at the recipe's minimum vLLM."""
    written, full = abbreviation_expansion(req.finding.message)
    if _item_option(req.doc, req.finding.pointer) != written:
        raise NotApplicable(f"the list item does not start with `{written}`")
    edit, change = replace_in_scalar(req.doc, req.index, req.finding.pointer, written, full)
    return f"`{written}` -> `{full}`", [edit], [change]
