"""``REF032``: the keys of a recipe's ``kv_offload_support`` name KV offload options of the
taxonomy."""

from __future__ import annotations

from collections.abc import Iterator

from validator.analysis.recipe_data import as_dict, get, items
from validator.context import Context
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, Reads, rule
from validator.rules.ref.facts import nearest_hint


@rule("REF032", Severity.WARNING, "kv_offload_support names an unknown KV offload option",
      reads=frozenset({Reads.TAXONOMY}), needs_root=True)
def kv_offload_option_exists(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Every key of ``kv_offload_support`` must be a ``kv_offload`` option of the
    taxonomy of the same revision: the site looks the options up by key, so a status under
    another key never applies -- an option meant to be verified stays hidden (when it
    requires an opt-in), one meant to be ``unsupported`` stays offered.

    Failing::

        kv_offload_support:
          offloading_gpu: verified

    Passing::

        kv_offload_support:
          offloading_cpu: verified

    How to fix: use a key of the taxonomy's ``kv_offload`` (the hint names the closest),
    or drop the entry."""
    tax = ctx.taxonomy
    if tax is None or not tax.ok:
        return
    options = as_dict(get(tax.data, "kv_offload"))
    for name, _, pointer in items(get(doc.data, "kv_offload_support"), "/kv_offload_support"):
        if name not in options:
            yield Hit(pointer, f"kv_offload_support names {name!r}, which is no KV offload "
                      "option of the taxonomy: its status never applies",
                      nearest_hint(str(name), options)
                      or f"options: {', '.join(map(str, options)) or 'none'}", on_key=True)
