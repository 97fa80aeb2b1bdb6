"""``FLAG033``: a top-level key of ``--speculative-config`` the recipe's minimum release
refuses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG033", Severity.ERROR, "Speculative config key the minimum release refuses",
      reads=FLAG_READS)
def speculative_key_refused(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """Every top-level key of ``--speculative-config`` (whole JSON, or the key of a dotted
    ``--speculative-config.<key>``) must be a field of the minimum release's
    ``SpeculativeConfig`` when that release refuses other keys: vLLM builds the config
    with ``SpeculativeConfig(**value)``, a standard-library dataclass up to 0.9.0 (an
    unknown key is a ``TypeError``) and a pydantic dataclass declared with
    ``extra="forbid"`` from 0.16.0 (a validation error); vLLM does not start. vLLM 0.9.1 to
    0.15.1 ignore unknown keys, and this rule says nothing there. The fields of each
    release are read from its own source (``snapshots/vllm-speculative-config.json``). A
    key taken only from a later release says so (raise the minimum); a release of the
    install range that refuses a key is ``FLAG023``.

    Failing::

        model:
          min_vllm_version: "0.20.0"
          base_args: ["--speculative-config", '{"method": "mtp", "num_speculative_token": 2}']

    Passing::

        model:
          min_vllm_version: "0.20.0"
          base_args: ["--speculative-config", '{"method": "mtp", "num_speculative_tokens": 2}']

    How to fix: spell the key as the release does (the hint names the closest), drop it,
    or raise ``min_vllm_version`` to the release that added it."""
    return issue_hits("FLAG033")(doc, ctx)
