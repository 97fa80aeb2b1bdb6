"""``FLAG037``: a recipe value rendered after the site's own multi-node wiring of a
multi-node strategy replaces it on every node: a literal ``--data-parallel-address`` for
the site's ``$HEAD_IP``, one ``--data-parallel-start-rank`` for every node, ``--headless``
on the head."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.tiny_recipe import PATH, RECIPE, write_tiny

DEP = RECIPE.replace("compatible_strategies: [single_node_tp]\n",
                     "compatible_strategies: [single_node_tp, multi_node_dep]\n"
                     "strategy_overrides:\n  multi_node_dep:\nOVERRIDE")


def found(root: Path, override: str) -> tuple[str, list[tuple[int, str]]]:
    text = write_tiny(root, "[]", DEP.replace("OVERRIDE", override))
    return text, [(f.line, f.message) for f in check_tree(root, PATH, rendered=True)
                  if f.rule == "FLAG037"]


def test_literal_address_and_headless_head_are_errors(corpus_copy: Path) -> None:
    text, hits = found(corpus_copy, '    extra_args:\n      - "--data-parallel-address"\n'
                       '      - "10.0.0.1"\n      - "--headless"\n')
    by_line = dict(hits)
    assert len(hits) == 2 and all("multi_node_dep ×2" in m for _, m in hits)
    assert by_line[line_of(text, "--data-parallel-address")].startswith(
        "`--data-parallel-address 10.0.0.1` of strategy_overrides.multi_node_dep.extra_args "
        "replaces the site's `--data-parallel-address $HEAD_IP`")
    assert by_line[line_of(text, "--headless")].startswith("`--headless` on the head node")


def test_one_start_rank_for_every_node_is_an_error(corpus_copy: Path) -> None:
    _, hits = found(corpus_copy, '    extra_args: ["--data-parallel-start-rank", "0"]\n')
    ((_, message),) = hits
    assert "replaces the site's per-node `--data-parallel-start-rank`" in message


@pytest.mark.parametrize("override", [
    '    extra_args: ["--data-parallel-size-local", "4"]\n',
    '    extra_env:\n      VLLM_ENGINE_READY_TIMEOUT_S: "1800"\n',
], ids=["local-size-the-site-reads", "no-wiring"])
def test_what_the_site_reads_or_leaves_alone_passes(corpus_copy: Path, override: str) -> None:
    assert found(corpus_copy, override)[1] == []
