"""``REF033``: a strategy the recipe offers is meant for the model's architecture (the
strategy's ``hardware_match.architecture`` is the recipe's ``model.architecture``)."""

from __future__ import annotations

from collections.abc import Iterator

from validator.analysis.recipe_data import as_dict, elements, get, items
from validator.context import Context
from validator.findings import PAIR, Related, Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, Reads, rule

MATCH = ("hardware_match", "architecture")
"""Where a strategy file says which model architecture it is meant for."""
POINTER = "/hardware_match/architecture"


@rule("REF033", Severity.WARNING, "A strategy meant for another model architecture is offered",
      reads=frozenset({Reads.STRATEGIES}), needs_root=True)
def strategy_fits_architecture(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A strategy the recipe offers (``compatible_strategies``, or ``supported`` on some
    hardware in ``strategy_hardware``) whose ``hardware_match.architecture`` is not the
    recipe's ``model.architecture``: the expert-parallel strategies (``*_tep``,
    ``*_dep``) say ``moe``. The site does not read ``hardware_match``: it offers every
    listed strategy, so a dense model gets ``--enable-expert-parallel`` with no expert to
    spread (vLLM applies it to MoE layers only) and, under ``*_dep``, one whole replica of
    the model per GPU instead of the model split over them. A warning: vLLM may still
    start, but the command is not the layout the strategy describes.

    Failing::

        model:
          architecture: dense
        compatible_strategies:
          - single_node_tp
          - single_node_dep

    Passing::

        model:
          architecture: dense
        compatible_strategies:
          - single_node_tp

    How to fix: drop the strategy from the recipe, or correct ``model.architecture``
    when the model is in fact a mixture of experts. In ``pr`` the finding is new when
    the change made the pair (added the recipe or the entry, or changed either
    architecture), also when the strategy file is unchanged."""
    arch = get(doc.data, "model", "architecture")
    if not isinstance(arch, str):
        return
    listed = get(doc.data, "compatible_strategies")
    for _, name, pointer in elements(listed, "/compatible_strategies"):
        if isinstance(name, str):
            yield from _mismatch(name, arch, pointer, ctx, on_key=False)
    names = [n for _, n, _ in elements(listed, "") if isinstance(n, str)]
    for name, gates, pointer in items(get(doc.data, "strategy_hardware"),
                                      "/strategy_hardware"):
        if name not in names and "supported" in as_dict(gates).values():
            yield from _mismatch(name, arch, pointer, ctx, on_key=True)


def _mismatch(name: str, arch: str, pointer: str, ctx: Context, *,
              on_key: bool) -> Iterator[Hit]:
    sdoc = ctx.strategy_document(name)
    meant = get(sdoc.data, *MATCH) if sdoc is not None and sdoc.ok else None
    if sdoc is None or not isinstance(meant, str) or meant == arch:
        return
    line = sdoc.source_map.position(POINTER)[0]
    where = f"{sdoc.path} {'.'.join(MATCH)}"
    yield Hit(pointer, f"strategy {name!r} is meant for {meant} models ({where}), but "
              f"model.architecture is {arch!r}: the site offers it all the same",
              f"drop {name!r} from the recipe's strategies, or correct model.architecture",
              related=(Related(line, f"architecture: {meant}", sdoc.path, POINTER),),
              on_key=on_key, reason=PAIR)
