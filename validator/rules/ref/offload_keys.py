"""``REF032``: the keys of a recipe's ``kv_offload_support`` name KV offload options of the
taxonomy; ``REF035``: the keys of its ``kv_cache_strategy_hardware`` name kv-store
deployments."""
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


@rule("REF035", Severity.WARNING,
      "kv_cache_strategy_hardware names an unknown kv-store deployment",
      reads=frozenset({Reads.KV_STORES}), needs_root=True)
def kv_store_deployment_exists(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Every key of ``kv_cache_strategy_hardware`` must be a kv-store deployment of the
    same revision (the ``name`` of a ``kv_store/*.yaml`` file): the site looks a
    deployment's per-hardware status up by its name, so a status under another key never
    applies -- a deployment marked ``unsupported`` there stays offered. A revision with no
    deployment at all (an older tree, before ``kv_store/``) is not judged.

    Failing::

        kv_cache_strategy_hardware:
          kv_store_distributed_mooncak:
            mi300x: unsupported

    Passing::

        kv_cache_strategy_hardware:
          kv_store_distributed_mooncake:
            mi300x: unsupported

    How to fix: use the name of a kv-store deployment (the hint names the closest), or drop
    the entry."""
    deployments = ctx.kv_stores
    if not deployments:  # a revision without kv-store deployments: nothing to name yet
        return
    for name, _, pointer in items(get(doc.data, "kv_cache_strategy_hardware"),
                                  "/kv_cache_strategy_hardware"):
        if name not in deployments:
            yield Hit(pointer, f"kv_cache_strategy_hardware names {name!r}, which is no "
                      "kv-store deployment of this revision: its statuses never apply",
                      nearest_hint(str(name), deployments)
                      or f"deployments: {', '.join(map(str, deployments))}",
                      on_key=True)
