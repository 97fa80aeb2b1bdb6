"""``GUIDE`` rules about the install range and spelling of guide commands, found by the
shared model of :mod:`validator.rules.guide.facts`."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.fix.model import Applicability
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.fix.spans import NotApplicable
from validator.rules.api import Hit, rule
from validator.rules.guide.environment import guide_env_hits
from validator.rules.guide.facts import GUIDE_READS, rule_hits
from validator.rules.guide.line_edits import rewrite_guide_token
from validator.vllm_cli import argv

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


@rule("GUIDE017", Severity.ERROR, "Guide flag rejected by a release inside the install range",
      reads=GUIDE_READS)
def guide_rejected_inside_install_range(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A guide command uses a flag or value the recipe's minimum vLLM accepts but a release
    of its install range rejects (see ``FLAG023``). Below, the minimum is 0.12.0 and vLLM
    0.17.0–0.32.0 have no ``--disable-log-requests``.

    Failing::

        guide: |
          ```bash
          vllm serve org/model --disable-log-requests
          ```

    Passing::

        guide: |
          ```bash
          vllm serve org/model --disable-log-stats
          ```

    How to fix: drop or replace the flag, or raise the minimum to a release from which
    every release accepts it."""
    return rule_hits("GUIDE017", doc, ctx)


@rule("GUIDE018", Severity.INFO, "Guide flag only unreleased code may have",
      reads=GUIDE_READS)
def guide_only_unreleased_code(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A guide command uses a flag or a choice value no vendored release has, and the
    recipe (or the command's section) installs unreleased code (nightly, source install, a
    model launch image): not judged (see ``FLAG024``; otherwise ``GUIDE003`` /
    ``GUIDE006``; with a minimum no release has yet, not reported: see ``FLAG019``). A
    command whose section runs in an image no vendored release describes gets the info
    naming it for such a flag or value, and for a ``VLLM_*`` variable no vendored release
    reads.

    Failing::

        model: {min_vllm_version: "0.20.0", nightly_required: true}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --brand-new-flag
          ```

    Passing::

        model: {min_vllm_version: "0.20.0", nightly_required: true}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --max-model-len 32768
          ```

    How to fix: nothing while the flag is unreleased."""
    return rule_hits("GUIDE018", doc, ctx) + guide_env_hits(doc, ctx).hits.get("GUIDE018", [])


@rule("GUIDE019", Severity.WARNING, "Guide flag spelled with underscores",
      reads=GUIDE_READS)
def guide_underscore_spelling(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A guide command spells a flag with underscores (``--max_model_len``). vLLM rewrites
    it (``FlexibleArgumentParser``), but the spelling differs from every other command a
    reader sees, from the structured args and from vLLM's help, and releases before the
    rewrite reject it (see ``FLAG013``).

    Failing::

        guide: |
          ```bash
          vllm serve org/model --max_model_len 8192
          ```

    Passing::

        guide: |
          ```bash
          vllm serve org/model --max-model-len 8192
          ```

    How to fix: write the flag with dashes, as the hint shows."""
    return rule_hits("GUIDE019", doc, ctx)


_UNDERSCORE = re.compile(r"^`([^`\s]+)` is spelled with underscores; vLLM reads it as `([^`\s]+)`")


@fixer("GUIDE019", applicability=Applicability.SAFE,
       summary="write the flag with dashes in the guide command")
def dash_guide_flag(req: FixRequest) -> FixResult:
    """``  --tokenizer_mode mistral \\`` -> ``  --tokenizer-mode mistral \\`` on the guide
    line (dotted JSON keys keep their underscores, as vLLM reads them)."""
    m = _UNDERSCORE.match(req.finding.message)
    if m is None:
        raise NotApplicable("the finding does not name the written and the read spelling")
    written = m.group(1)
    return rewrite_guide_token(req, written, argv.normalise(written))
