"""``REF037``: a declared single-node TP size above the node's GPU count, which the site
lowers to the GPU count without a word.

The site's ``resolveSingleNodeTp`` takes a variant's ``tp`` (a number, or a map keyed by
hardware id, generation, brand or ``default``), else ``strategy_overrides.single_node_tp
.tp``, and renders ``Math.min(tp, gpu_count)`` on every profile but a CPU one: the author's
16 on an 8-GPU node becomes ``--tensor-parallel-size 8``, a size the author did not
choose (and a model that needs 16 GPUs then does not fit).
"""

from __future__ import annotations

from collections.abc import Iterator

from validator.analysis.rendered_commands import affected
from validator.context import Context
from validator.load import LoadedDocument
from validator.render.cache import rendered_configurations
from validator.render.renderer import Token
from validator.rules.api import CONTEXT_FILES, Hit, Severity, rule
from validator.sourcemap import pointer_value, split_pointer

#: The TP size flags the site emits for ``single_node_tp``.
TP_FLAGS = frozenset({"--tensor-parallel-size", "-tp"})


def _tp_pointer(parts: list[str], hw_id: str) -> bool:
    """``variants/<name>/tp/<hw_id>`` or ``strategy_overrides/single_node_tp/tp/<hw_id>``:
    a size the recipe gave this very profile (a bare number, or a generation, brand or
    ``default`` entry, is one size for several profiles, and the site's ``Math.min`` is
    its documented way of fitting it to the smaller nodes among them)."""
    if len(parts) != 4 or parts[2] != "tp" or parts[3] != hw_id:
        return False
    return parts[0] == "variants" or parts[:2] == ["strategy_overrides", "single_node_tp"]


def _declared(doc: LoadedDocument, token: Token, hw_id: str) -> float | None:
    """The TP size the recipe wrote for ``hw_id`` where the rendered size ``token`` came
    from (the ``hw_id`` entry of a variant's ``tp`` map or of
    ``strategy_overrides.single_node_tp.tp``), or ``None`` when the token is not one."""
    if not token.pointer.startswith("/"):
        return None
    parts = split_pointer(token.pointer)
    if token.document != doc.path or not _tp_pointer(parts, hw_id):
        return None
    value = pointer_value(doc.data, token.pointer)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def _lowered(doc: LoadedDocument, tokens: tuple[Token, ...], hw_id: str
             ) -> tuple[Token, float] | None:
    """The size token of a rendered command whose value is below the size the recipe
    declared for it, with that declared size."""
    for i, token in enumerate(tokens[:-1]):
        if token.text not in TP_FLAGS:
            continue
        size = tokens[i + 1]
        declared = _declared(doc, size, hw_id)
        try:
            rendered = float(size.text)
        except (TypeError, ValueError):
            continue
        if declared is not None and rendered < declared:
            return size, declared
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
    grouped: dict[str, tuple[float, str, list[str]]] = {}
    for rendered in rendered_configurations(doc, ctx):
        if not rendered.ok or rendered.config.strategy != "single_node_tp":
            continue
        for proc in rendered.processes:
            found = _lowered(doc, proc.tokens, rendered.hardware)
            if found is None:
                continue
            size, declared = found
            entry = grouped.setdefault(size.pointer, (declared, size.text, []))
            entry[2].append(rendered.config.label())
    for pointer, (declared, shown, labels) in grouped.items():
        hw_id = split_pointer(pointer)[-1]
        yield Hit(pointer, f"TP {_number(declared)} for {hw_id} is more GPUs than its node "
                  f"has: the site "
                  f"renders `--tensor-parallel-size {shown}` instead, without a word "
                  f"({affected(labels)})",
                  "give at most the profile's gpu_count; serve a model that needs more "
                  "GPUs with a multi-node strategy")
