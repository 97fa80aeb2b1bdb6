"""``GUIDE001``, ``GUIDE002``: broken line continuations of a guide command, and
``GUIDE001``'s fix (delete the blanks after the backslash)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.fix.model import Applicability
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.fix.spans import NotApplicable, edit_guide_line, guide_line
from validator.rules.api import RECIPE_ONLY, Hit, rule
from validator.rules.guide.facts import GUIDE, continuation_issues
from validator.rules.guide.line_edits import finding_guide_line

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


@rule("GUIDE001", Severity.ERROR, "Broken line continuation in a guide command",
      reads=RECIPE_ONLY)
def broken_continuation(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A guide shell line ends with a backslash followed by blanks. bash reads ``\\ `` as an
    escaped blank, so the command ends on that line and the following lines run as
    separate commands (their flags are never passed)."""
    for line, _ in continuation_issues("trailing_blank", doc):
        yield Hit(GUIDE, "a backslash followed by blanks does not continue the line: bash "
                  "escapes the blank, ends the command here and runs the next line as a "
                  "separate command", "delete the blanks after the `\\`", block_index=line)


@rule("GUIDE002", Severity.ERROR, "Guide flag line lost its backslash",
      reads=RECIPE_ONLY)
def lost_backslash(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A line starting with ``--flag`` follows a command line that does not end with a
    backslash: the shell runs the command without it and then fails on the flag line.
    The flags are still checked as if the continuation were there.

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B
            --max-model-len 32768
          ```

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B \\
            --max-model-len 32768
          ```

    How to fix: end the previous line with `` \\``."""
    for line, text in continuation_issues("lost_backslash", doc):
        yield Hit(GUIDE, f"`{text[:60]}` starts a new command: the line before it does not "
                  "end with `\\`, so this flag is never passed", "end the previous line "
                  "with ` \\`", block_index=line)


@fixer("GUIDE001", applicability=Applicability.SAFE,
       summary="delete the blanks after the backslash")
def trailing_blank(req: FixRequest) -> FixResult:
    """``--tp 8 \\  `` -> ``--tp 8 \\``: the backslash continues the command again."""
    index = finding_guide_line(req)
    content = guide_line(req.doc, req.index, index).content
    stripped = content.rstrip(" \t")
    if not stripped.endswith("\\") or stripped == content:
        raise NotApplicable("the line does not end with a backslash and blanks")
    edit, change = edit_guide_line(req.doc, req.index, index, (stripped,))
    return "delete the blanks after `\\`", [edit], [change]
