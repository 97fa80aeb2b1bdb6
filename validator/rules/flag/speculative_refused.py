"""``FLAG034``: a ``--speculative-config`` whose values, each valid alone, the recipe's
minimum release refuses together."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG034", Severity.ERROR, "Speculative config the minimum release refuses as a whole",
      reads=FLAG_READS)
def speculative_config_refused(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """``SpeculativeConfig`` checks its values together when ``--speculative-config``
    builds it, and vLLM does not start when it refuses them: a method that needs a draft
    ``model`` (``eagle``, ``eagle3``, ``draft_model`` ...) given ``num_speculative_tokens``
    without one ("num_speculative_tokens was provided but without speculative model"), and,
    for an n-gram method, ``prompt_lookup_min`` above ``prompt_lookup_max``. Which methods
    take no model (the MTP methods, ``ngram``, ``suffix`` ...) and which refuse the lookup
    order are read from each release's own ``__post_init__``
    (``snapshots/vllm-speculative-config.json``); before vLLM 0.11.0 the model test is of
    the target's model type, and the rule says nothing of it there. A later release of the
    install range that refuses the config is ``FLAG023``. The method's own spelling is
    ``FLAG030``, its keys ``FLAG033``.

    Failing::

        model:
          min_vllm_version: "0.20.0"
          base_args:
            - "--speculative-config"
            - '{"method": "eagle3", "num_speculative_tokens": 3}'

    Passing::

        model:
          min_vllm_version: "0.20.0"
          base_args:
            - "--speculative-config"
            - '{"method": "eagle3", "model": "org/draft-eagle3", "num_speculative_tokens": 3}'

    How to fix: give the draft checkpoint as ``model`` (or use a method that needs none),
    and keep ``prompt_lookup_min`` at most ``prompt_lookup_max``."""
    return issue_hits("FLAG034")(doc, ctx)
