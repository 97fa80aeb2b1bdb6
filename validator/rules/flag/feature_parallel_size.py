"""``FLAG029``: a feature's argument replaces a parallel size the site derives from the
strategy."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.analysis.rendered_commands import affected
from validator.findings import Related, Severity
from validator.rules.api import Hit, rule
from validator.rules.flag.combined_lists import (
    SHOWN_VALUES,
    changed_overrides,
    override_fix,
    unit_text,
    written_at,
)
from validator.rules.flag.facts import FLAG_READS

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument
    from validator.render.args import Arg


def derived_by_the_site(arg: Arg) -> bool:
    """Whether ``arg`` is a parallelism flag the site synthesizes from the strategy (its
    ``parallel_flag``/``parallelism``, PD pools) and the hardware, not an item of a
    strategy file's ``vllm_args``."""
    return arg.layer.startswith("strategy:") and "/vllm_args" not in arg.pointer


@rule("FLAG029", Severity.WARNING,
      "A feature replaces the parallel size the site derives from the strategy",
      reads=FLAG_READS)
def feature_replaces_parallel_size(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A feature's ``args`` (or its hardware override's, or a mode's) set a flag the site
    derives from the strategy and the hardware's ``gpu_count`` -- ``--tensor-parallel-size``,
    ``--pipeline-parallel-size``, ``--data-parallel-size`` and the others its parallelism
    step writes -- with another value. Features are rendered after the strategy, and the
    site's last-wins de-duplication keeps the feature's value and drops its own, on every
    configuration where the feature is on, whatever the hardware, node count and
    strategy. Reported at the feature's flag, naming the value the site would render and
    the configurations where it is dropped. (The same flag in ``model.base_args`` or a
    variant's ``extra_args`` is dropped by the site instead: ``FLAG025``; a spelling the
    de-duplication does not match, such as ``-tp`` or ``--tensor-parallel-size=2``, stays
    beside the site's, vLLM takes the last, and the rendered commands report it as
    ``FLAG011``; with ``--as-written`` it is not reported.)

    Failing::

        features:
          tool_calling:
            args: ["--enable-auto-tool-choice", "--tool-call-parser", "hermes",
                   "--tensor-parallel-size", "2"]

    Passing::

        variants:
          default:
            tp: 2

    How to fix: remove the flag from the feature; pin a single-node TP size with
    ``variants.<name>.tp`` or ``strategy_overrides.single_node_tp.tp``."""
    # one finding per feature flag and strategy source; the site's own values it drops,
    # each with the configurations where it does (most first)
    grouped: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    first: dict[tuple[str, str, str], tuple[str, tuple[Related, ...]]] = {}
    for ov, label in changed_overrides(doc, ctx):
        winner = ov.winner
        if winner.document != doc.path or not winner.pointer.startswith("/features/") \
                or not derived_by_the_site(ov.dropped):
            continue
        key = (winner.pointer, unit_text(winner, ov.winner_value), winner.layer)
        grouped.setdefault(key, {}).setdefault(unit_text(ov.dropped, ov.dropped_value),
                                               []).append(label)
        first.setdefault(key, (override_fix(winner, ov.dropped),
                               written_at(doc, ctx, ov.dropped, ov.dropped_value)))
    out: list[Hit] = []
    for key, values in grouped.items():
        pointer, unit, layer = key
        flag = unit.split(" ", 1)[0]
        ranked = sorted(values.items(), key=lambda kv: -len(set(kv[1])))
        # the configurations last, in the one ``(on ...)`` suffix PR mode and history
        # leave out when they compare findings
        shown = "; ".join(f"{affected(labels)}: `{v}`" for v, labels in ranked[:SHOWN_VALUES])
        more = len(ranked) - SHOWN_VALUES
        rest = f"; and {more} other value{'s' if more > 1 else ''}" if more > 0 else ""
        hint, related = first[key]
        out.append(Hit(pointer, f"`{unit}` of {layer} replaces the `{flag}` the site derives "
                                "from the strategy and the hardware's gpu_count: the site "
                                f"keeps the feature's and drops its own "
                                f"({shown}{rest})", hint, related=related))
    return out
