"""What the ``GUIDE`` fixes share: the guide line a finding is on, and rewriting one
option on it."""

from __future__ import annotations

import re

from validator.fix.registry import FixRequest, FixResult
from validator.fix.spans import GUIDE, NotApplicable, edit_guide_line, guide_line


def finding_guide_line(req: FixRequest) -> int:
    """0-based guide line of a ``GUIDE`` finding (its file line minus the block start)."""
    block = req.doc.source_map.blocks.get(GUIDE)
    if block is None:
        raise NotApplicable("the guide is not a literal block scalar (`guide: |`)")
    return req.finding.line - block.first_line


def _token_pattern(token: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w.-])" + re.escape(token) + r"(?=[\s=\"']|$)")


def rewrite_guide_token(req: FixRequest, written: str, new: str) -> FixResult:
    """Replace the one occurrence of option ``written`` on the finding's guide line by
    ``new`` (the fix of every guide spelling finding)."""
    index = finding_guide_line(req)
    content = guide_line(req.doc, req.index, index).content
    hits = list(_token_pattern(written).finditer(content))
    if len(hits) != 1:
        raise NotApplicable(f"the guide line holds `{written}` {len(hits)} times")
    m = hits[0]
    edit, change = edit_guide_line(req.doc, req.index, index,
                                   (content[:m.start()] + new + content[m.end():],))
    return f"`{written}` -> `{new}`", [edit], [change]
