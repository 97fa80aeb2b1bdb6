"""``FLAG037``: a value of the recipe that replaces how the site wires the nodes of a
multi-node deployment together."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from validator.analysis.rendered_commands import affected
from validator.findings import Severity
from validator.render import jsval
from validator.render.cache import rendered_configurations
from validator.rules.api import Hit, rule
from validator.rules.flag.combined_lists import changed_overrides, unit_text
from validator.rules.flag.facts import FLAG_READS

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument

WIRING: dict[str, str] = {
    "--data-parallel-address": "the address every node reaches the head at, which the "
    "page asks the reader to fill in",
    "--master-addr": "the address every node reaches the head at, which the page asks the "
    "reader to fill in",
    "--data-parallel-start-rank": "each node's first data-parallel rank, from its node "
    "index: one fixed rank makes the nodes claim the same ranks and the deployment hangs "
    "at the data-parallel handshake",
    "--node-rank": "each node's own rank: one fixed rank makes the nodes claim the same one",
    "--nnodes": "the node count of the configuration the reader picks",
    "--data-parallel-size-local": "each node's data-parallel ranks, from which the site "
    "numbers the next node's start rank: ranks are then left without an engine or claimed "
    "twice",
}
"""The options the site sets per node in a multi-node command (the renderer's
``parallelism``: ``--data-parallel-*`` for data-parallel strategies, ``--nnodes`` /
``--node-rank`` / ``--master-addr`` for the others) -> what the site's value is, and why
one value written for every node breaks it. The parallel sizes are ``FLAG025`` /
``FLAG029``'s."""

#: The pointers of the arguments the site derives itself in a multi-node command
#: (``synth`` of the renderer), in the strategy file's document.
SYNTHESIZED = ("/parallel_flag", "/parallelism", "")

HEADLESS_WHY = ("`--headless` on the head node: no node then runs the API server, so the "
                "deployment serves nothing (the site makes only the other nodes headless)")


@rule("FLAG037", Severity.ERROR, "A recipe value replaces the site's multi-node wiring",
      reads=FLAG_READS)
def replaces_multi_node_wiring(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """On a multi-node strategy the site wires each node's command itself: the head's
    address as a placeholder the reader fills in (``--data-parallel-address $HEAD_IP``,
    ``--master-addr``), each node's rank (``--data-parallel-start-rank``, ``--node-rank``),
    the node count and the local data-parallel size, and ``--headless`` on every node but
    the head. A value of the recipe rendered after that wiring (a strategy override's or a
    hardware override's ``extra_args``) replaces it on every node: a literal address only
    the author's network has, one start rank for every node (vLLM hangs at the
    data-parallel handshake), or ``--headless`` on the head, which then runs no API server
    (vLLM's ``serve`` starts only the engines under ``--headless``). Reported at the
    recipe's value, with the configurations it breaks. A local size set in the strategy's
    own ``strategy_overrides`` is the site's to read (it numbers the start ranks from it)
    and is not reported.

    Failing::

        compatible_strategies: [single_node_tp, multi_node_dep]
        strategy_overrides:
          multi_node_dep:
            extra_args: ["--data-parallel-address", "10.0.0.1", "--headless"]

    Passing::

        compatible_strategies: [single_node_tp, multi_node_dep]
        strategy_overrides:
          multi_node_dep:
            extra_env:
              VLLM_ENGINE_READY_TIMEOUT_S: "1800"

    How to fix: remove the value; the site renders the address placeholder, the ranks and
    ``--headless`` for each node of the configuration the reader picks."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for ov, label in changed_overrides(doc, ctx):
        flag = jsval.js_str(ov.dropped.value)
        winner = ov.winner
        if (flag not in WIRING or winner.document != doc.path
                or ov.dropped.document == doc.path or not ov.dropped.layer.startswith("strategy:")
                or ov.dropped.pointer not in SYNTHESIZED):
            continue
        if flag == "--data-parallel-size-local" and winner.pointer.startswith(
                "/strategy_overrides/"):
            continue  # the site reads it to number the start ranks
        site = unit_text(ov.dropped, ov.dropped_value)
        # a placeholder is named; a node's own value is not (one finding for every node)
        site = f"`{site}`" if site.partition(" ")[2].startswith("$") else f"per-node `{flag}`"
        message = (f"`{unit_text(winner, ov.winner_value)}` of {winner.layer} replaces the "
                   f"site's {site}, {WIRING[flag]}")
        grouped.setdefault((winner.pointer, message), []).append(label)
    for rendered in rendered_configurations(doc, ctx):
        if not rendered.ok:
            continue
        for proc in rendered.processes:
            if proc.role != "head":
                continue
            for token in proc.tokens:
                if token.text == "--headless" and token.document == doc.path:
                    grouped.setdefault((token.pointer, HEADLESS_WHY), []).append(
                        rendered.config.label())
    for (pointer, message), labels in grouped.items():
        yield Hit(pointer, f"{message} ({affected(labels)})",
                  "remove it: the site renders the head's address placeholder, each node's "
                  "ranks and `--headless` on the other nodes itself")
