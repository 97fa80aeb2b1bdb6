"""``GUIDE009``: a guide command serving another model than the recipe's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.analysis.recipe_data import as_dict, get
from validator.findings import Severity
from validator.guide.commands import ServeCommand
from validator.rules.api import Hit, rule
from validator.rules.guide.facts import GUIDE_READS, GuideAnalysis, guide_model, placeholder

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


def _served_model(doc: LoadedDocument, cmd: ServeCommand, ids: dict[str, str | None],
                  out: GuideAnalysis) -> None:
    model = cmd.model
    if model is None or placeholder(model) or model.lower() in ids:
        return
    known = ", ".join(sorted({str(get(doc.data, "model", "model_id"))} | {
        str(get(v, "model_id")) for v in as_dict(get(doc.data, "variants")).values()
        if isinstance(get(v, "model_id"), str)}))
    out.add("GUIDE009", cmd.model_line, f"this command serves `{model}`, which is neither "
            "the recipe's model_id nor a variant's", f"recipe models: {known}")


@rule("GUIDE009", Severity.WARNING, "Guide command serves another model",
      reads=GUIDE_READS)
def guide_other_model(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The model a guide command serves is neither ``model.model_id`` nor a variant's (or an
    omni task's) ``model_id``; local paths and placeholders are not reported. Hugging
    Face ids are compared case-insensitively, as the Hub resolves them.

    Failing::

        guide: |
          ```bash
          vllm serve other-org/Other-Model-8B
          ```

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B
          ```

    How to fix: serve the recipe's ``model_id`` (or a variant's), or write a placeholder."""
    out = GuideAnalysis()
    model = guide_model(doc, ctx)
    for c in model.checked:
        _served_model(doc, c.cmd, model.ids, out)
    return out.hits.get("GUIDE009", [])
