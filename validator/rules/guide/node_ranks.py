"""``GUIDE022``: the per-node commands of one data-parallel deployment in the guide claim
the same ranks, or none of them runs the API server."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Related, Severity
from validator.guide.commands import ServeCommand
from validator.rules.api import Hit, rule
from validator.rules.guide.facts import GUIDE_READS, GuideAnalysis, file_line, guide_model
from validator.vllm_cli.parsed_args import ParsedArgs

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument

#: Options that make a command one node of a data-parallel deployment over several nodes.
DP_NODE_DESTS = frozenset({"data_parallel_start_rank", "data_parallel_address", "headless"})
#: Options from which vLLM infers a node's rank itself (``--node-rank`` of ``--nnodes``,
#: from 0.14.0): a node without a start rank then does not claim rank 0.
INFERRED_DESTS = frozenset({"node_rank", "nnodes"})

Node = tuple[ServeCommand, ParsedArgs]


@rule("GUIDE022", Severity.ERROR, "Per-node guide commands claim the same data-parallel "
      "ranks, or none serves", reads=GUIDE_READS)
def node_ranks_clash(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The guide gives one command per node of a data-parallel deployment (one section,
    model and ``--data-parallel-size``; ``--data-parallel-address``, ``--headless``,
    ``--data-parallel-start-rank``), and vLLM cannot run it as written:

    - two nodes start at the same data-parallel rank: a node without
      ``--data-parallel-start-rank`` (nor ``--data-parallel-rank``, nor the ``--node-rank``
      vLLM infers it from) starts at rank 0, the head's, so its engines claim the head's
      ranks (``EngineArgs``: ``data_parallel_rank = data_parallel_start_rank or 0``) and the
      deployment hangs at the data-parallel handshake, waiting for ranks no node runs;
    - every node is ``--headless``: a headless node runs only engines, so no node runs
      the API server and the deployment serves nothing.

    Reported at the later node's command (every node: at the first), the other node's as
    related. A flag every node should share but that differs is ``GUIDE012``.

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --data-parallel-size 4 \\
            --data-parallel-size-local 2 --data-parallel-address 10.0.0.1
          vllm serve example-org/Example-Chat-8B --data-parallel-size 4 \\
            --data-parallel-size-local 2 --data-parallel-address 10.0.0.1 --headless
          ```

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --data-parallel-size 4 \\
            --data-parallel-size-local 2 --data-parallel-address 10.0.0.1
          vllm serve example-org/Example-Chat-8B --data-parallel-size 4 \\
            --data-parallel-size-local 2 --data-parallel-address 10.0.0.1 --headless \\
            --data-parallel-start-rank 2
          ```

    How to fix: give each node after the head ``--data-parallel-start-rank`` (the ranks of
    the nodes before it), and leave ``--headless`` off the head."""
    out = GuideAnalysis()
    model = guide_model(doc, ctx)
    for members in _deployments([(c.cmd, c.parsed) for c in model.checked]).values():
        if len(members) > 1:
            _judge(doc, members, out)
    return out.hits.get("GUIDE022", [])


def _deployments(nodes: list[Node]) -> dict[tuple[str, str, str], list[Node]]:
    """The data-parallel node commands of the guide by deployment: section, model and
    total data-parallel size (another size is another deployment shown beside it)."""
    groups: dict[tuple[str, str, str], list[Node]] = {}
    for cmd, parsed in nodes:
        if not any(parsed.has(d) for d in DP_NODE_DESTS):
            continue
        size = parsed.find("data_parallel_size")
        if not size or size[-1].value is None:
            continue
        key = (cmd.section, (cmd.model or "").lower(), size[-1].value)
        groups.setdefault(key, []).append((cmd, parsed))
    return groups


def _start(parsed: ParsedArgs) -> str | None:
    """The data-parallel rank a node starts at as vLLM reads the command (``"0"`` when
    it sets none), ``None`` when vLLM infers it from ``--node-rank``."""
    for dest in ("data_parallel_start_rank", "data_parallel_rank"):
        found = parsed.find(dest)
        if found and found[-1].value is not None:
            return found[-1].value.strip()
    return None if any(parsed.has(d) for d in INFERRED_DESTS) else "0"


def _judge(doc: LoadedDocument, members: list[Node], out: GuideAnalysis) -> None:
    """The hits of one deployment's node commands."""
    first: dict[str, ServeCommand] = {}
    for cmd, parsed in members:
        start = _start(parsed)
        if start is None:
            continue
        other = first.setdefault(start, cmd)
        if other is cmd:
            continue
        written = parsed.has("data_parallel_start_rank") or parsed.has("data_parallel_rank")
        out.add("GUIDE022", cmd.line,
                f"this node starts at data-parallel rank {start}"
                f"{'' if written else ' (it sets no --data-parallel-start-rank)'}, as "
                "another node of the same deployment does: both claim the same ranks and "
                "vLLM hangs at the data-parallel handshake",
                "give each node after the head `--data-parallel-start-rank` (the ranks of "
                "the nodes before it)",
                (Related(file_line(doc, other.line), "the other node's command"),))
    if all(parsed.has("headless") for _, parsed in members):
        cmd = members[0][0]
        out.add("GUIDE022", cmd.line,
                f"every node of this deployment ({len(members)} commands) is `--headless`: "
                "a headless node runs only engines, so none runs the API server and the "
                "deployment serves nothing",
                "leave `--headless` off the head node's command")
