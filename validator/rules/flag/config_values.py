"""``FLAG040``: a key or value of ``--compilation-config``, ``--structured-outputs-config``
or ``--eplb-config`` the recipe's minimum release refuses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG040", Severity.ERROR, "Config key or value the minimum release refuses",
      reads=FLAG_READS)
def config_value_refused(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """vLLM builds ``--compilation-config``, ``--structured-outputs-config`` and
    ``--eplb-config`` (whole JSON, or merged dotted keys such as
    ``--structured-outputs-config.backend``) into pydantic config dataclasses, which check
    each value against the field's type when the server starts: a ``backend`` outside
    ``StructuredOutputsConfig``'s ``Literal`` (``auto``, ``xgrammar``, ``guidance``, ...),
    a ``cudagraph_mode`` that names no ``CUDAGraphMode`` member (any case: ``FULL``,
    ``FULL_DECODE_ONLY``, ``PIECEWISE``, ...), a string that is not an integer for an
    ``int`` field (``num_redundant_experts``) are refused, and so is a key that is no field
    where the class forbids other keys (``extra="forbid"``, vLLM 0.16.0 on; before, an
    unknown key is ignored and this rule says nothing). vLLM does not start. What each
    release takes is read from its own source
    (``snapshots/vllm-config-values.json``, ``scripts/derive_config_values.py``); a key or
    value taken only from a later release says so (raise the minimum).

    Failing::

        model:
          min_vllm_version: "0.16.0"
          base_args: ["--compilation-config", '{"cudagraph_mode": "FULL_DECODE_ONLI"}']

    Passing::

        model:
          min_vllm_version: "0.16.0"
          base_args: ["--compilation-config", '{"cudagraph_mode": "FULL_DECODE_ONLY"}']

    How to fix: spell the key or value as the release does (the hint names the closest),
    or raise ``min_vllm_version`` to the release that takes it."""
    return issue_hits("FLAG040")(doc, ctx)
