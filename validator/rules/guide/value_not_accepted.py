"""``GUIDE006``: an invalid flag value in a guide command, and its fix (raise the minimum
when a newer release accepts it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.fix.model import Applicability
from validator.fix.option_edits import raise_minimum
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.rules.api import Hit, rule
from validator.rules.guide.facts import GUIDE_READS, rule_hits

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


@rule("GUIDE006", Severity.ERROR, "Invalid flag value in a guide command",
      reads=GUIDE_READS)
def guide_invalid_value(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A guide command gives a flag a value vLLM rejects at the declared minimum: a missing
    value, a value given to a switch, a value outside the flag's choices or the
    registered parser names, JSON that does not parse, a non-positive
    ``num_speculative_tokens``, a value the flag's argparse type refuses
    (``--max-model-len abc``), or a dotted key that swallows the next flag (one finding
    at the dotted key, what it causes later as related locations; see
    ``FLAG004``-``FLAG009``). A whole shell expansion where an option would be
    (``"$@"``, ``$EXTRA_ARGS``, ``"${ARGS[@]}"``) is not judged, nor are the bare words
    right after it: bash replaces it by words the guide does not show. The literal flags
    around it are judged, and one after an option taking a value is that value
    (``--host $HEAD_IP``). Two values each accepted alone that vLLM's config refuses
    together in one command are an error too, where a release of the command's range
    refuses them (``FLAG035`` for rendered commands): ``--max-cpu-loras`` below
    ``--max-loras`` under ``--enable-lora``, ``--data-parallel-size-local`` above
    ``--data-parallel-size`` (the node's ranks above every node's).

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --kv-cache-dtype fp9
          vllm serve example-org/Example-Chat-8B --data-parallel-size 4 \\
            --data-parallel-size-local 8
          ```

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --kv-cache-dtype fp8
          vllm serve example-org/Example-Chat-8B --data-parallel-size 16 \\
            --data-parallel-size-local 8
          ```

    How to fix: give the flag a value vLLM accepts at the minimum version; make the
    local data-parallel size at most the total one, ``--max-cpu-loras`` at least
    ``--max-loras``."""
    return rule_hits("GUIDE006", doc, ctx)


@fixer("GUIDE006", applicability=Applicability.UNSAFE,
       summary="raise model.min_vllm_version to what the commands need")
def raise_minimum_for_guide_value(req: FixRequest) -> FixResult:
    """Raise ``model.min_vllm_version`` to the release the finding asks for (the highest
    any finding of the document asks for: :func:`~validator.fix.option_edits.raise_minimum`)."""
    return raise_minimum(req)
