"""``GUIDE013``, ``GUIDE014``: code fences of the guide (glued to a command line, never
closed), and ``GUIDE013``'s fix (the fence on a line of its own)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from validator.analysis.recipe_data import get
from validator.findings import Severity
from validator.fix.model import Applicability
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.fix.spans import NotApplicable, edit_guide_line, guide_line, value_at
from validator.guide.commands import find_fences
from validator.rules.api import RECIPE_ONLY, Hit, rule
from validator.rules.guide.facts import GUIDE, continuation_issues
from validator.rules.guide.line_edits import finding_guide_line

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


@rule("GUIDE013", Severity.ERROR, "Closing fence glued to a guide command line",
      reads=RECIPE_ONLY)
def fence_glued_to_command(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A closing code fence (```` ``` ````) ends a command line instead of standing on a line
    of its own. CommonMark only closes a fence on its own line, so the block swallows the
    text after it, and the copied command hands bash a backtick command substitution.

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --max-model-len 32768 ```

          Then send a request.

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --max-model-len 32768
          ```

          Then send a request.

    How to fix: put the closing ``` on a line of its own."""
    for line, _ in continuation_issues("glued_fence", doc):
        yield Hit(GUIDE, "the closing ``` is written at the end of this command line: "
                  "markdown does not close the code block there (the following prose renders "
                  "as code) and a copied command passes backticks to the shell",
                  "put the closing ``` on a line of its own", block_index=line)


@rule("GUIDE014", Severity.WARNING, "Code fence in the guide is never closed",
      reads=RECIPE_ONLY)
def fence_never_closed(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A fenced code block of the guide has no closing fence. CommonMark then runs the
    block to the end of the document (spec 0.31, section 4.5), so every heading and
    paragraph after it renders as code, and the commands inside it may include prose.

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B
          ```

    How to fix: add a closing ``` line after the block's last line."""
    text = get(doc.data, "guide")
    if not isinstance(text, str):
        return
    for fence in find_fences(text):
        if not fence.closed and not fence.glued_close:  # a glued close is GUIDE013
            yield Hit("/guide", f"the code block opened here ({fence.lang or 'no language'}) "
                      "is never closed: the rest of the guide renders as code",
                      "add a closing ``` line after the block's last line",
                      block_index=fence.start)


_GLUED = re.compile(r"\s(`{3,})\s*$")


_OPENING = re.compile(r"^([ \t]*)(`{3,})")


@fixer("GUIDE013", applicability=Applicability.SAFE,
       summary="put the closing fence on a line of its own")
def unglue_fence(req: FixRequest) -> FixResult:
    """``vllm serve org/model ```` `` -> ``vllm serve org/model`` and a line ```` ``` ````
    indented like the block's opening fence."""
    index = finding_guide_line(req)
    content = guide_line(req.doc, req.index, index).content
    m = _GLUED.search(content)
    command = content[:m.start()].rstrip() if m else ""
    if m is None or not command:
        raise NotApplicable("no closing fence after a command on this line")
    if command.endswith("\\"):
        raise NotApplicable("the command line continues (ends with `\\`)")
    guide = value_at(req.doc, GUIDE)
    assert isinstance(guide, str)
    opening = None
    for line in reversed(guide.split("\n")[:index]):
        opening = _OPENING.match(line)
        if opening is not None:
            break
    if opening is None:
        raise NotApplicable("no opening fence above this line")
    fence = opening.group(1) + "`" * max(len(opening.group(2)), len(m.group(1)))
    edit, change = edit_guide_line(req.doc, req.index, index, (command, fence))
    return "put the closing fence on its own line", [edit], [change]
