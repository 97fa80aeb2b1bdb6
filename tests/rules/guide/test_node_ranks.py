"""``GUIDE022``: the per-node commands of one data-parallel deployment in the guide claim
the same ranks (a headless node without ``--data-parallel-start-rank`` starts at the head's
rank 0), or every node is ``--headless`` (none runs the API server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree
from tests.tiny_recipe import PATH, RECIPE, write_tiny

HEAD = ("  vllm serve org/Tiny-1B --data-parallel-size 16 --data-parallel-size-local 8 \\\n"
        "    --data-parallel-address 10.0.0.1\n")
NODE = ("  vllm serve org/Tiny-1B --data-parallel-size 16 --data-parallel-size-local 8 \\\n"
        "    --data-parallel-address 10.0.0.1 --headless{rank}\n")


def found(root: Path, *commands: str) -> list[str]:
    guide = "  ```bash\n" + "".join(commands) + "  ```\n"
    write_tiny(root, "[]", RECIPE.replace("  Serve it.\n", guide))
    return [f.message for f in check_tree(root, PATH) if f.rule == "GUIDE022"]


def test_headless_node_without_start_rank_claims_the_heads_ranks(corpus_copy: Path) -> None:
    (message,) = found(corpus_copy, HEAD, NODE.format(rank=""))
    assert message.startswith("this node starts at data-parallel rank 0 (it sets no "
                              "--data-parallel-start-rank), as another node")


def test_the_heads_rank_written_on_another_node_clashes(corpus_copy: Path) -> None:
    (message,) = found(corpus_copy, HEAD, NODE.format(rank=" --data-parallel-start-rank 0"))
    assert message.startswith("this node starts at data-parallel rank 0, as another node")


def test_every_node_headless_serves_nothing(corpus_copy: Path) -> None:
    head = HEAD.replace("10.0.0.1\n", "10.0.0.1 --headless\n")
    (message,) = found(corpus_copy, head, NODE.format(rank=" --data-parallel-start-rank 8"))
    assert message.startswith("every node of this deployment (2 commands) is `--headless`")


@pytest.mark.parametrize("commands", [
    (HEAD, NODE.format(rank=" --data-parallel-start-rank 8")),
    (HEAD, NODE.format(rank=" --data-parallel-start-rank 8"),
     HEAD.replace("size 16", "size 8"), NODE.format(rank=" --data-parallel-start-rank 4")
     .replace("size 16", "size 8")),
    (HEAD.replace("10.0.0.1\n", "10.0.0.1 --nnodes 2 --node-rank 0\n"),
     NODE.format(rank=" --nnodes 2 --node-rank 1")),
], ids=["start-rank", "two-deployments-in-one-section", "rank-from-node-rank"])
def test_wired_nodes_pass(corpus_copy: Path, commands: tuple[str, ...]) -> None:
    assert found(corpus_copy, *commands) == []
