"""``GUIDE010``: a ``VLLM_*`` variable in a guide command that vLLM does not read, and its
fix (raise the minimum when a newer release reads it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.analysis import cli_plan, env_verdicts
from validator.findings import Related, Severity
from validator.fix.model import Applicability
from validator.fix.option_edits import raise_minimum
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.guide.commands import ServeCommand
from validator.rules.api import Hit, rule
from validator.rules.guide.facts import GUIDE_READS, GuideAnalysis, file_line, guide_model

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


def _env(doc: LoadedDocument, cmd: ServeCommand, plan: cli_plan.VersionPlan,
         out: GuideAnalysis) -> None:
    seen: set[str] = set()
    for name, _, line in cmd.env:
        if name in seen:
            continue
        seen.add(name)
        why = env_verdicts.env_issue(name, plan)
        rule_id = "GUIDE010"
        if why is None:
            why, rule_id = env_verdicts.env_unverifiable(name, plan), "GUIDE018"
        if why is not None:
            out.add(rule_id, line, f"environment of a `vllm serve` command: {why[0]}",
                    why[1], related=(Related(file_line(doc, cmd.line), "the command"),))


def guide_env_hits(doc: LoadedDocument, ctx: Context) -> GuideAnalysis:
    """The ``GUIDE010`` hits of the guide commands' ``VLLM_*`` variables, and the
    ``GUIDE018`` infos of those no vendored release reads that a command sets in a
    channel no vendored release describes (a launch, nightly, community or dev image:
    :func:`~validator.analysis.env_verdicts.env_unverifiable`); once per document."""
    def compute() -> GuideAnalysis:
        out = GuideAnalysis()
        for c in guide_model(doc, ctx).checked:
            _env(doc, c.cmd, c.plan, out)
        return out

    return cli_plan.per_document(doc, ctx, "guide:env", compute)


@rule("GUIDE010", Severity.WARNING, "VLLM_* variable in a guide command not read",
      reads=GUIDE_READS)
def guide_env_var_not_read(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A ``VLLM_*`` variable set for a guide command (prefix assignment, ``export`` earlier
    in the same block, ``docker -e``) is not read by the recipe's minimum vLLM, or no
    longer by the newest release (see ``FLAG016``).

    Failing::

        guide: |
          ```bash
          VLLM_NOT_A_REAL_VARIABLE=1 vllm serve example-org/Example-Chat-8B
          ```

    Passing::

        guide: |
          ```bash
          VLLM_LOGGING_LEVEL=INFO vllm serve example-org/Example-Chat-8B
          ```

    How to fix: drop the variable, or use the name the release reads."""
    return guide_env_hits(doc, ctx).hits.get("GUIDE010", [])


@fixer("GUIDE010", applicability=Applicability.UNSAFE,
       summary="raise model.min_vllm_version to what the commands need")
def raise_minimum_for_guide_variable(req: FixRequest) -> FixResult:
    """Raise ``model.min_vllm_version`` to the release the finding asks for (the highest
    any finding of the document asks for: :func:`~validator.fix.option_edits.raise_minimum`)."""
    return raise_minimum(req)
