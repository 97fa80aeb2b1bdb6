"""``FLAG030``: a speculative ``method`` of ``--speculative-config`` the recipe's minimum
release does not accept."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG030", Severity.ERROR, "Speculative method not accepted by the minimum release",
      reads=FLAG_READS)
def speculative_method_not_accepted(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The ``method`` of ``--speculative-config`` (whole JSON or the dotted key
    ``--speculative-config.method``) must be one the recipe's minimum vLLM release accepts.
    From vLLM 0.9.1 ``SpeculativeConfig`` is a pydantic dataclass whose ``method`` is a
    ``Literal``: another name fails validation and vLLM does not start. The names of each
    release are read from its own source (the artifact its vendored CLI snapshot came
    from; ``snapshots/vllm-speculative-config.json``); earlier releases take any string.
    A method accepted only from a later release says so (raise the minimum); a release of
    the install range that drops a method is ``FLAG023``.

    Failing::

        model:
          base_args: ["--speculative-config", '{"method": "deepseek-mtp"}']

    Passing::

        model:
          base_args: ["--speculative-config", '{"method": "deepseek_mtp"}']

    How to fix: use a method of the release (the hint names the closest), or raise
    ``min_vllm_version`` to the release that added it."""
    return issue_hits("FLAG030")(doc, ctx)
