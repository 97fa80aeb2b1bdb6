"""``GUIDE009``: a guide command serving another model than the recipe's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.analysis.recipe_data import as_dict, as_list, get
from validator.findings import Severity
from validator.guide.commands import ServeCommand
from validator.rules.api import Hit, rule
from validator.rules.guide.facts import GUIDE_READS, GuideAnalysis, guide_model, placeholder
from validator.rules.metadata import Reads

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


def _served_model(doc: LoadedDocument, cmd: ServeCommand, ids: dict[str, str | None],
                  siblings: frozenset[str], out: GuideAnalysis) -> None:
    model = cmd.model
    if model is None or placeholder(model) or model.lower() in ids or \
            model.lower() in siblings:
        return
    known = ", ".join(sorted({str(get(doc.data, "model", "model_id"))} | {
        str(get(v, "model_id")) for v in as_dict(get(doc.data, "variants")).values()
        if isinstance(get(v, "model_id"), str)}))
    out.add("GUIDE009", cmd.model_line, f"this command serves `{model}`, which is neither "
            "the recipe's model_id nor a variant's", f"recipe models: {known}")


def sibling_models(doc: LoadedDocument, ctx: Context) -> frozenset[str]:
    """The models a family guide may show beside the recipe's own, lower-cased: the ids
    of ``meta.related_recipes`` and the ``<org>/<name>`` of every recipe file of the tree
    (``models/<org>/<name>.yaml``: each serves that model)."""
    related = {r.lower() for r in as_list(get(doc.data, "meta", "related_recipes"))
               if isinstance(r, str)}
    return frozenset(related) | ctx.memoised("GUIDE009.recipe_models", lambda: frozenset(
        p[len("models/"):].rsplit(".", 1)[0].lower() for p in ctx.recipe_paths
        if p.count("/") == 2))


@rule("GUIDE009", Severity.WARNING, "Guide command serves another model",
      reads=GUIDE_READS | {Reads.RECIPE_LIST})
def guide_other_model(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The model a guide command serves is neither ``model.model_id`` nor a variant's (or an
    omni task's) ``model_id``, nor the model of a recipe of ``meta.related_recipes`` or of
    the tree (a family guide showing a sibling); local paths and placeholders are not
    reported. Hugging Face ids are compared case-insensitively, as the Hub resolves them.

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
    siblings = sibling_models(doc, ctx)
    for c in model.checked:
        _served_model(doc, c.cmd, model.ids, siblings, out)
    return out.hits.get("GUIDE009", [])
