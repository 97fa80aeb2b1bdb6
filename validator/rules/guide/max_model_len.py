"""``GUIDE020``: a guide command's ``--max-model-len`` above the model's
``context_length``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.analysis.context_length import (
    ALLOW_LONG,
    above_context,
    allows_long,
    context_length,
    too_long,
)
from validator.analysis.recipe_data import get, items
from validator.findings import Related, Severity
from validator.guide.commands import GuideCommands, ServeCommand
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import line_of
from validator.rules.guide.facts import GUIDE_READS, GuideAnalysis, guide_commands, guide_model

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


def _served_ids(data: object) -> set[str]:
    """The model ids whose context ``model.context_length`` states: the base model's and
    the variants' (not an omni task's other models), lower-cased."""
    found = [get(data, "model", "model_id")]
    found += [get(variant, "model_id") for _, variant, _ in items(get(data, "variants"),
                                                                   "/variants")]
    return {mid.lower() for mid in found if isinstance(mid, str)}


def _section_exports(commands: GuideCommands, cmd: ServeCommand) -> list[tuple[str, str]]:
    """The ``export`` lines above ``cmd`` in blocks of its section (a block's own exports
    are in ``cmd.env`` already)."""
    section = commands.fences[cmd.fence].section_line
    out = []
    for name, value, line in commands.exports:
        fence = next((f for f in commands.fences if f.first <= line < f.first + len(f.lines)),
                     None)
        if line < cmd.line and fence is not None and fence.section_line == section:
            out.append((name, value))
    return out


@rule("GUIDE020", Severity.ERROR, "Guide command's --max-model-len above context_length",
      reads=GUIDE_READS)
def guide_max_model_len_above_context(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A guide command serving the recipe's model (or a variant's ``model_id``) sets
    ``--max-model-len`` above ``model.context_length``: vLLM refuses to start
    (``_get_and_verify_max_len``; see ``FLAG015``), unless the command extends the context
    (rope scaling through ``--hf-overrides``/``--rope-scaling``) or its environment sets
    ``VLLM_ALLOW_LONG_MAX_MODEL_LEN`` (a prefix assignment, ``docker -e``, or an
    ``export`` above it in its section). Values are read as vLLM does (``128k``).

    Failing::

        model: {context_length: 131072}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --max-model-len 262144
          ```

    Passing::

        model: {context_length: 131072}
        guide: |
          ```bash
          VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve example-org/Example-Chat-8B \\
            --max-model-len 262144
          ```

    How to fix: lower ``--max-model-len`` in the command, correct ``context_length``, or
    extend the context deliberately (rope scaling or the environment variable)."""
    limit = context_length(doc.data)
    commands = guide_commands(doc)
    if limit is None or commands is None:
        return []
    ids = _served_ids(doc.data)
    out = GuideAnalysis()
    related = (Related(line_of(doc, "/model/context_length"), "model.context_length"),)
    for c in guide_model(doc, ctx).checked:
        cmd = c.cmd
        if (cmd.model or "").lower() not in ids or allows_long(
                [(name, value) for name, value, _ in cmd.env]) \
                or allows_long(_section_exports(commands, cmd)):
            continue
        for opt in above_context(c.parsed, limit):
            out.add("GUIDE020", cmd.arg_lines[opt.index], too_long(opt.value, limit),
                    f"use at most {limit} in the command, correct model.context_length, or "
                    f"extend the context (rope scaling in --hf-overrides, or {ALLOW_LONG}=1 "
                    "before the command)", related=related)
    return out.hits.get("GUIDE020", [])
