"""``REF002``, ``REF003``: ``compatible_strategies`` and ``strategy_overrides`` name strategies of
``strategies/``."""

from __future__ import annotations

from collections.abc import Iterator

from validator.analysis.recipe_data import elements, get, items
from validator.context import Context
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, Reads, rule


@rule("REF002", Severity.ERROR, "compatible_strategies names an unknown strategy",
      reads=frozenset({Reads.STRATEGIES}), needs_root=True)
def compatible_strategy_exists(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Every entry of ``compatible_strategies`` must be a ``strategies/<name>.yaml`` of the
    same revision.

    Failing::

        compatible_strategies:
          - single_node_tensor_parallel

    Passing::

        compatible_strategies:
          - single_node_tp

    How to fix: use the name of a file in ``strategies/`` (the hint lists them), or add the
    strategy there first."""
    known = sorted(ctx.strategies)
    strategies = get(doc.data, "compatible_strategies")
    for _, name, pointer in elements(strategies, "/compatible_strategies"):
        if isinstance(name, str) and name not in ctx.strategies:
            yield Hit(pointer, f"strategy {name!r} does not exist in strategies/",
                      f"known strategies: {', '.join(known)}")


@rule("REF003", Severity.ERROR, "strategy_overrides names an unknown strategy",
      reads=frozenset({Reads.STRATEGIES}), needs_root=True)
def strategy_override_exists(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Every key of ``strategy_overrides`` must be a strategy of the same revision; an
    override for a strategy that does not exist is never applied.

    Failing::

        strategy_overrides:
          single_node_pp:
            extra_args: ["--max-num-seqs", "64"]

    Passing::

        strategy_overrides:
          single_node_tp:
            extra_args: ["--max-num-seqs", "64"]

    How to fix: key the override by an existing strategy name, or drop it."""
    for name, _, pointer in items(get(doc.data, "strategy_overrides"), "/strategy_overrides"):
        if name not in ctx.strategies:
            yield Hit(pointer, f"strategy_overrides names unknown strategy {name!r}",
                      f"known strategies: {', '.join(sorted(ctx.strategies))}", on_key=True)
