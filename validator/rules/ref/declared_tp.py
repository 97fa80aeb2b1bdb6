"""``REF037``: a declared single-node TP size above the node's GPU count, which the site
lowers to the GPU count without a word.

The site's ``resolveSingleNodeTp`` takes a variant's ``tp`` (a number, or a map keyed by
hardware id, generation, brand or ``default``), else ``strategy_overrides.single_node_tp
.tp``, and renders ``Math.min(tp, gpu_count)`` on every profile but a CPU one: the author's
16 on an 8-GPU node becomes ``--tensor-parallel-size 8``, a size the author did not
choose (and a model that needs 16 GPUs then does not fit).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from validator.analysis.recipe_data import get, items
from validator.analysis.rendered_commands import affected
from validator.context import Context
from validator.load import LoadedDocument
from validator.render.cache import rendered_configurations
from validator.render.renderer import Token
from validator.rules.api import CONTEXT_FILES, Hit, Severity, rule

#: The TP size flags the site emits for ``single_node_tp``.
TP_FLAGS = frozenset({"--tensor-parallel-size", "-tp"})


def _declared(doc: LoadedDocument, hw_ids: Collection[str]) -> dict[str, tuple[str, float]]:
    """Pointer -> (hardware id, size) of each number the recipe gives one profile in a
    variant's ``tp`` map or in ``strategy_overrides.single_node_tp.tp`` (a bare number,
    or a generation, brand or ``default`` entry, is one size for several profiles, and the
    site's ``Math.min`` is its documented way of fitting it to the smaller nodes among
    them)."""
    maps = [(f"{pointer}/tp", get(variant, "tp"))
            for _, variant, pointer in items(get(doc.data, "variants"), "/variants")]
    maps.append(("/strategy_overrides/single_node_tp/tp",
                 get(doc.data, "strategy_overrides", "single_node_tp", "tp")))
    out: dict[str, tuple[str, float]] = {}
    for base, tp in maps:
        for hw_id, size, pointer in items(tp, base):
            if hw_id in hw_ids and isinstance(size, (int, float)) \
                    and not isinstance(size, bool):
                out[pointer] = (hw_id, size)
    return out


def _lowered(doc: LoadedDocument, tokens: tuple[Token, ...], hw_id: str,
             declared: dict[str, tuple[str, float]]) -> tuple[Token, float] | None:
    """The size token of a rendered command on ``hw_id`` that comes from an entry of
    ``declared`` for that hardware, with the size declared there, when the rendered size
    is smaller."""
    for i, token in enumerate(tokens[:-1]):
        if token.text not in TP_FLAGS:
            continue
        size = tokens[i + 1]
        entry = declared.get(size.pointer) if size.document == doc.path else None
        if entry is None or entry[0] != hw_id:
            continue
        try:
            if float(size.text) < entry[1]:
                return size, entry[1]
        except (TypeError, ValueError):
            continue
    return None


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


@rule("REF037", Severity.WARNING, "A declared TP size above the node's GPU count",
      reads=CONTEXT_FILES)
def tp_above_gpu_count(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The entry of a variant's hardware-keyed ``tp`` map (or of
    ``strategy_overrides.single_node_tp.tp``) for one hardware id, larger than that
    profile's ``gpu_count``: the site's single-node command takes the smaller of the two,
    so the page shows ``--tensor-parallel-size`` of the whole node and the size the author
    wrote for that hardware is never used. Reported at the entry, with the configurations
    it reaches. A bare number, or a generation, brand or ``default`` entry, is one size for
    several profiles: the site fitting it to the smaller nodes among them is its documented
    behaviour, not judged here.

    Failing::

        variants:
          default:
            tp:
              h200: 16      # an H200 node has 8 GPUs: the site renders TP 8

    Passing::

        variants:
          default:
            tp:
              h200: 8

    How to fix: give at most the node's GPU count; a model that needs more GPUs than one
    node has is served with a multi-node strategy (``multi_node_tp``), not a larger
    single-node TP."""
    entries = _declared(doc, ctx.hardware_profiles)
    if not entries:
        return
    named = {hw_id for hw_id, _ in entries.values()}
    grouped: dict[str, tuple[float, str, list[str]]] = {}
    for rendered in rendered_configurations(doc, ctx):
        if not rendered.ok or rendered.config.strategy != "single_node_tp" \
                or rendered.hardware not in named:
            continue
        for proc in rendered.processes:
            found = _lowered(doc, proc.tokens, rendered.hardware, entries)
            if found is None:
                continue
            size, wanted = found
            entry = grouped.setdefault(size.pointer, (wanted, size.text, []))
            entry[2].append(rendered.config.label())
    for pointer, (wanted, shown, labels) in grouped.items():
        yield Hit(pointer, f"TP {_number(wanted)} for {entries[pointer][0]} is more GPUs than "
                  f"its node has: the site renders `--tensor-parallel-size {shown}` instead, "
                  "without a word "
                  f"({affected(labels)})",
                  "give at most the profile's gpu_count; serve a model that needs more "
                  "GPUs with a multi-node strategy")
