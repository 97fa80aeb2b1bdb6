"""Safe fixes: each writes what the recipe author clearly meant, and vLLM (and the
recipes site) then read the same command as before, or the command the author wrote.

* ``FLAG013``: the flag's underscores -> dashes, as vLLM itself rewrites them.
* ``FLAG014``/``GUIDE007``: an abbreviated flag -> the option argparse expands it to.
* ``FLAG020``: one list item holding a flag and its value -> two items.
* ``GUIDE001``: a backslash followed by blanks -> the backslash ends the line.
* ``GUIDE013``: a closing fence glued to a command line -> a line of its own.

The fixes of the families in ``validator/rules/<family>/`` are beside their rules there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from validator.checks.flag_engine import split_joined
from validator.fix.model import Applicability, DataChange, Edit
from validator.fix.registry import FixRequest, fixer
from validator.fix.spans import (
    GUIDE,
    NotApplicable,
    edit_guide_line,
    guide_line,
    replace_in_scalar,
    split_item,
    value_at,
)
from validator.load import LoadedDocument
from validator.vllm_cli import argv

Result = tuple[str, Sequence[Edit], Sequence[DataChange]]
SAFE = Applicability.SAFE


def _block_index(req: FixRequest) -> int:
    """0-based guide line of a ``GUIDE`` finding (its file line minus the block start)."""
    block = req.doc.source_map.blocks.get(GUIDE)
    if block is None:
        raise NotApplicable("the guide is not a literal block scalar (`guide: |`)")
    return req.finding.line - block.first_line


_OPTION = re.compile(r"--?[^\s=]+")


def _item_option(doc: LoadedDocument, pointer: str) -> str:
    value = value_at(doc, pointer)
    if not isinstance(value, str):
        raise NotApplicable("the list item is not a string")
    m = _OPTION.match(value)
    if m is None:
        raise NotApplicable("the list item does not start with an option")
    return m.group(0)


@fixer("FLAG013", applicability=SAFE, summary="write the flag with dashes")
def dash_flag(req: FixRequest) -> Result:
    """``- --max_model_len=4096`` -> ``- --max-model-len=4096`` (dotted JSON keys keep
    their underscores: ``--speculative_config.num_speculative_tokens`` ->
    ``--speculative-config.num_speculative_tokens``)."""
    written = _item_option(req.doc, req.finding.pointer)
    canonical = argv.normalise(written)
    if canonical == written:
        raise NotApplicable(f"`{written}` has no underscore before its first `.`")
    edit, change = replace_in_scalar(req.doc, req.index, req.finding.pointer, written, canonical)
    return f"`{written}` -> `{canonical}`", [edit], [change]


_ABBREVIATION = re.compile(r"`([^`]+)`(?: in `([^`]+)`)? is an abbreviation of `(--[^`]+)`")


def _expansion(message: str) -> tuple[str, str]:
    """(written option key, full key) of an abbreviation finding."""
    m = _ABBREVIATION.search(message)
    if m is None:
        raise NotApplicable("the finding does not name the full option")
    head, key, option = m.group(1), m.group(2), m.group(3)
    written = key or head
    written_head, dot, rest = written.partition(".")
    if not option.startswith(argv.normalise(written_head)):
        raise NotApplicable(f"`{option}` does not extend `{written_head}`")
    return written, option + dot + rest


@fixer("FLAG014", applicability=SAFE, summary="write the full option")
def expand_flag(req: FixRequest) -> Result:
    """``- --max-model 4096`` -> ``- --max-model-len 4096``: the option argparse expands
    the prefix to at the recipe's minimum vLLM."""
    written, full = _expansion(req.finding.message)
    if _item_option(req.doc, req.finding.pointer) != written:
        raise NotApplicable(f"the list item does not start with `{written}`")
    edit, change = replace_in_scalar(req.doc, req.index, req.finding.pointer, written, full)
    return f"`{written}` -> `{full}`", [edit], [change]


def _token_pattern(token: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w.-])" + re.escape(token) + r"(?=[\s=\"']|$)")


def rewrite_guide_token(req: FixRequest, written: str, new: str) -> Result:
    """Replace the one occurrence of option ``written`` on the finding's guide line by
    ``new`` (the fix of every guide spelling finding)."""
    index = _block_index(req)
    content = guide_line(req.doc, req.index, index).content
    hits = list(_token_pattern(written).finditer(content))
    if len(hits) != 1:
        raise NotApplicable(f"the guide line holds `{written}` {len(hits)} times")
    m = hits[0]
    edit, change = edit_guide_line(req.doc, req.index, index,
                                   (content[:m.start()] + new + content[m.end():],))
    return f"`{written}` -> `{new}`", [edit], [change]


@fixer("GUIDE007", applicability=SAFE, summary="write the full option in the guide command")
def expand_guide_flag(req: FixRequest) -> Result:
    """``  --enable-mm \\`` -> ``  --enable-mm-embeds \\`` on the guide line."""
    return rewrite_guide_token(req, *_expansion(req.finding.message))


_UNDERSCORE = re.compile(r"^`([^`\s]+)` is spelled with underscores; vLLM reads it as `([^`\s]+)`")


@fixer("GUIDE019", applicability=SAFE, summary="write the flag with dashes in the guide command")
def dash_guide_flag(req: FixRequest) -> Result:
    """``  --tokenizer_mode mistral \\`` -> ``  --tokenizer-mode mistral \\`` on the guide
    line (dotted JSON keys keep their underscores, as vLLM reads them)."""
    m = _UNDERSCORE.match(req.finding.message)
    if m is None:
        raise NotApplicable("the finding does not name the written and the read spelling")
    written = m.group(1)
    return rewrite_guide_token(req, written, argv.normalise(written))


@fixer("FLAG020", applicability=SAFE, summary="write the flag and its value as two items")
def split_flag_value(req: FixRequest) -> Result:
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


@fixer("GUIDE001", applicability=SAFE, summary="delete the blanks after the backslash")
def trailing_blank(req: FixRequest) -> Result:
    """``--tp 8 \\  `` -> ``--tp 8 \\``: the backslash continues the command again."""
    index = _block_index(req)
    content = guide_line(req.doc, req.index, index).content
    stripped = content.rstrip(" \t")
    if not stripped.endswith("\\") or stripped == content:
        raise NotApplicable("the line does not end with a backslash and blanks")
    edit, change = edit_guide_line(req.doc, req.index, index, (stripped,))
    return "delete the blanks after `\\`", [edit], [change]


_GLUED = re.compile(r"\s(`{3,})\s*$")
_OPENING = re.compile(r"^([ \t]*)(`{3,})")


@fixer("GUIDE013", applicability=SAFE, summary="put the closing fence on a line of its own")
def unglue_fence(req: FixRequest) -> Result:
    """``vllm serve org/model ```` `` -> ``vllm serve org/model`` and a line ```` ``` ````
    indented like the block's opening fence."""
    index = _block_index(req)
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

