"""``GUIDE011``: a guide command and the structured args serve the same way."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.checks import arg_layers, cli_plan, flag_engine
from validator.checks.guide_model import GuideAnalysis, guide_model
from validator.checks.registry import Hit, rule
from validator.findings import Related, Severity
from validator.guide.commands import ServeCommand
from validator.sourcemap import join_pointer
from validator.vllm_cli import argv
from validator.vllm_cli.argv import ParsedArgs

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


#: Flags whose value the guide should state the same way as the structured features.
KEY_DESTS = ("tool_call_parser", "reasoning_parser", "tokenizer_mode")


@rule("GUIDE011", Severity.WARNING, "Guide and structured args disagree")
def guide_disagrees_with_structured(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A guide command sets ``--tool-call-parser``, ``--reasoning-parser`` or
    ``--tokenizer-mode`` to a value the structured args (``model.base_args`` and the
    features) never use: the page's command builder and its prose serve differently.
    Both lines are named.

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --tool-call-parser mistral
          ```

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --tool-call-parser hermes
          ```

    How to fix: make the guide and the structured args use the same value."""
    out = GuideAnalysis()
    _disagreements(doc, ctx, [(c.cmd, c.parsed) for c in guide_model(doc, ctx).checked], out)
    return out.hits.get("GUIDE011", [])


def _structured_values(doc: LoadedDocument, ctx: Context) -> dict[str, list[tuple[str, int]]]:
    """dest -> [(value, file line)] over the structured argument lists."""
    out: dict[str, list[tuple[str, int]]] = {}
    plan_cache: dict[str, cli_plan.VersionPlan] = {}
    for layer in arg_layers.collect_layers(doc.data):
        if layer.feature is None and layer.pointer != "/model/base_args":
            continue
        key = str(layer.variant)
        plan = plan_cache.get(key)
        if plan is None:
            family = arg_layers.platform_plugin(doc.data) or cli_plan.VLLM
            plan = cli_plan.plan_for(flag_engine.recipe_minimum(doc, ctx, layer.variant), family)
            plan_cache[key] = plan
        if plan.minimum is None:
            continue
        parsed = argv.parse_args(layer.tokens, plan.minimum)
        for opt in parsed.options:
            if opt.dest in KEY_DESTS and opt.value is not None:
                line = doc.source_map.position(join_pointer(layer.pointer, opt.index))[0]
                out.setdefault(opt.dest, []).append((opt.value, line))
    return out


def _disagreements(doc: LoadedDocument, ctx: Context,
                   results: list[tuple[ServeCommand, ParsedArgs]], out: GuideAnalysis) -> None:
    if not results:
        return
    structured = _structured_values(doc, ctx)
    for cmd, parsed in results:
        for dest in KEY_DESTS:
            declared = structured.get(dest)
            if not declared:
                continue
            values = {v for v, _ in declared}
            for opt in parsed.find(dest):
                if opt.value is None or opt.value in values or opt.value.startswith("$"):
                    continue
                flag_name = opt.option or opt.normalised
                related = tuple(Related(line, f"structured {flag_name} {v}")
                                for v, line in declared[:3])
                out.add("GUIDE011", cmd.arg_lines[opt.index], f"the guide uses `{flag_name} "
                        f"{opt.value}` but the recipe's structured args use "
                        + ", ".join(f"`{v}`" for v, _ in declared[:3]),
                        "make the guide and the structured args agree", related)
