"""``FLAG003``: a flag or value a newer vLLM release removed, and the fix of
``FLAG003``/``FLAG023`` (drop a removed flag that only restates its default)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.fix.model import Applicability, DataChange, Edit
from validator.fix.option_edits import check_droppable, removed_option
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.fix.spans import NotApplicable, split_item, value_at
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits
from validator.vllm_cli.argv import split_inline

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG003", Severity.WARNING, "Flag or value removed by a newer vLLM release",
      reads=FLAG_READS)
def flag_removed_since(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The flag (or one of its values) is accepted at the recipe's minimum version but no
    longer by the newest vendored release, and every install path of the recipe pins a
    release before that (``vllm==X``, a ``vX`` image): the message names the first release
    without it. The recipe breaks for anyone who upgrades. When an install path pulls the
    newest release, the removal is inside the install range: ``FLAG023`` (error). When
    only pre-releases lack it (newer than the last stable release that has it: a plugin's
    ``rc`` build), the message says so ("absent from vLLM-Omni 0.32.0rc1, a pre-release
    (not yet removed in a stable release; stable 0.30.0 has it)"): still a warning, as
    the next stable release is likely to follow. A "did you mean" names only a flag of
    the newest release close enough to be a rename (``REPLACEMENT_CUTOFF``).

    Failing::

        model:
          min_vllm_version: "0.12.0"
          base_args: ["--calculate-kv-scales"]
          docker_image: "vllm/vllm-openai:v0.21.0"
          install:
            pip: {command: "uv pip install vllm==0.21.0"}

    Passing::

        model:
          min_vllm_version: "0.12.0"
          base_args: ["--max-model-len", "32768"]
          docker_image: "vllm/vllm-openai:v0.21.0"
          install:
            pip: {command: "uv pip install vllm==0.21.0"}

    How to fix: drop or replace the flag before the pinned release is upgraded past the one
    the message names."""
    return issue_hits("FLAG003")(doc, ctx)


@fixer("FLAG003", "FLAG023", applicability=Applicability.UNSAFE,
       summary="drop a removed flag that only restates its default")
def drop_removed_flag(req: FixRequest) -> FixResult:
    """``- --swap-space`` ``- "4"`` are dropped when 4 is the default of every release in
    range that has ``--swap-space``. Block-sequence items on lines of their own only
    (the flag's value item goes with it)."""
    list_pointer, _, item = req.finding.pointer.rpartition("/")
    tokens = value_at(req.doc, list_pointer)
    if not isinstance(tokens, list) or not item.isdigit():
        raise NotApplicable("the flag is not an item of an argument list")
    at = int(item)
    token = tokens[at]
    if not isinstance(token, str) or not token.strip():
        raise NotApplicable("the list item is not a flag")
    head, *joined = token.split(None, 1)
    written, inline = split_inline(head)
    values = joined if inline is None else [inline]
    items = [at]
    _, spec = removed_option(req)
    if spec.takes_value and not values:
        if at + 1 >= len(tokens) or not isinstance(tokens[at + 1], str):
            raise NotApplicable("the flag's value is not the next list item")
        values, items = [tokens[at + 1]], [at, at + 1]
    check_droppable(req, written, values)
    edits: list[Edit] = []
    changes: list[DataChange] = []
    for index in items:
        edit, change = split_item(req.doc, req.index, f"{list_pointer}/{index}", ())
        edits.append(edit)
        changes.append(change)
    return f"drop `{' '.join([written, *values])}` (the default of every release in range)", \
        edits, changes
