"""``GUIDE005``: a guide flag or value a newer release removed, and the fix of
``GUIDE005``/``GUIDE017`` (drop a removed flag's guide line when it only restates the
default)."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.fix.model import Applicability
from validator.fix.option_edits import check_droppable
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.fix.spans import NotApplicable, drop_guide_line, guide_line
from validator.rules.api import Hit, rule
from validator.rules.guide.facts import GUIDE_READS, rule_hits
from validator.vllm_cli.argv import split_inline

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


@rule("GUIDE005", Severity.WARNING, "Guide flag or value removed by a newer release",
      reads=GUIDE_READS)
def guide_flag_removed(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A guide command uses a flag or value that the newest vendored vLLM release no longer
    accepts while every install path pins an older release (see ``FLAG003``, also for a
    removal that only pre-releases show; inside the install range it is ``GUIDE017``).

    Failing::

        model:
          docker_image: "vllm/vllm-openai:v0.21.0"
          install:
            pip: {command: "uv pip install vllm==0.21.0"}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --calculate-kv-scales
          ```

    Passing::

        model:
          docker_image: "vllm/vllm-openai:v0.21.0"
          install:
            pip: {command: "uv pip install vllm==0.21.0"}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --max-model-len 32768
          ```

    How to fix: replace the flag before the pinned release is upgraded past the one the
    message names."""
    return rule_hits("GUIDE005", doc, ctx)


@fixer("GUIDE005", "GUIDE017", applicability=Applicability.UNSAFE,
       summary="drop a removed flag that only restates its default (guide line)")
def drop_removed_guide_flag(req: FixRequest) -> FixResult:
    """A guide line ``    --swap-space 4 \\\\`` inside a continued command is deleted when
    4 is the default of every release in range that has ``--swap-space``. Only a line
    that holds nothing but that flag (and its value) between two continued lines."""
    block = req.doc.source_map.blocks.get("/guide")
    if block is None:
        raise NotApplicable("the guide is not a literal block scalar (`guide: |`)")
    index = req.finding.line - block.first_line
    content = guide_line(req.doc, req.index, index).content
    previous = guide_line(req.doc, req.index, index - 1).content if index > 0 else ""
    if not content.rstrip().endswith("\\") or not previous.rstrip().endswith("\\"):
        raise NotApplicable("the flag is not on a line of its own inside a continued command")
    try:
        words = shlex.split(content.rstrip()[:-1])
    except ValueError:
        raise NotApplicable("the line does not split into shell words") from None
    if not words:
        raise NotApplicable("the line holds no flag")
    written, inline = split_inline(words[0])
    values = words[1:] if inline is None else [inline, *words[1:]]
    option = check_droppable(req, written, values)
    edit, change = drop_guide_line(req.doc, req.index, index)
    return f"drop the guide line `{content.strip()}` ({option}: the default in range)", \
        [edit], [change]
