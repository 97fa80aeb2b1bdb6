"""A strategy's ``env`` (``strategies/<name>.yaml``) is judged as its argument lists are:
what the file shows on its own (a name no release reads, at the file's own minimum or
the newest release) is reported once, on the file at the name's line; a recipe selecting
the strategy keeps what only its own range shows (a variable newer than its minimum),
judged per configuration where it runs (its range, or the image channel of its hardware),
on the recipe line that selects the strategy with the strategy file's line.

Real files on disk, through the full pipeline (the CLI, or
:func:`tests.analysis.test_install_range.run`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.analysis.test_install_range import recipe, run
from tests.conftest import line_of
from tests.rules.flag.test_install_channel import spark, with_hardware
from validator.cli import main
from validator.context import Settings
from validator.findings import Finding

STRATEGY = "strategies/single_node_tp.yaml"
COMMUNITY = "eugr/spark-vllm-b12x:latest"
RENDERED = Settings(rendered=True)
"""The check's default: every command the site renders is judged."""


def _with_env(root: Path, variable: str) -> str:
    """The single-node TP strategy of ``root`` exporting ``variable``; its new text."""
    path = root / STRATEGY
    text = path.read_text("utf-8") + f'env:\n  {variable}: "1"\n'
    path.write_text(text, "utf-8")
    return text


def test_a_name_no_release_reads_is_the_strategy_files_finding_once(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``check models/`` reports it on the strategy file at the name's line, and on none
    of the recipes that select the strategy."""
    text = _with_env(examples_tree, "VLLM_NOT_A_REAL_VARIABLE")
    main(["check", "--offline", "--no-cache", "--format", "json",
          str(examples_tree / "models")])
    report = json.loads(capsys.readouterr().out)
    found = [(d["path"], f["rule"], f["line"]) for d in report["documents"]
             for f in d["findings"] if "VLLM_NOT_A_REAL_VARIABLE" in f["message"]]
    assert found == [(STRATEGY, "FLAG016", line_of(text, "VLLM_NOT_A_REAL_VARIABLE"))]


def _strategy_hits(found: list[Finding]) -> list[Finding]:
    return [f for f in found if f.rule == "FLAG016" and f.pointer == "/compatible_strategies/0"]


def test_a_variable_newer_than_the_recipe_is_judged_per_configuration_where_it_runs(
        corpus_copy: Path) -> None:
    """``VLLM_USE_BREAKABLE_CUDAGRAPH`` (read from vLLM 0.22.0) is fine for the strategy
    file (judged at the newest release) but newer than the recipe's 0.12.0: the recipe's
    warning, on its ``compatible_strategies`` line with the strategy's line, naming the
    configurations of its range only -- DGX Spark's, in the community build, read it."""
    variable = "VLLM_USE_BREAKABLE_CUDAGRAPH"
    text = _with_env(corpus_copy, variable)
    on_spark = spark(COMMUNITY, "        extra_args: []\n")
    found, _ = run(corpus_copy, with_hardware(recipe(), on_spark), RENDERED)
    (hit,) = _strategy_hits(found)
    assert f"{STRATEGY} env: `{variable}` is read only from vLLM 0.22.0, but the recipe's " \
        "minimum is 0.12.0 (on " in hit.message
    assert "dgx_spark_gb10" not in hit.message
    assert [(r.path, r.line) for r in hit.related] == [(STRATEGY, line_of(text, variable))]
    without_spark = recipe().replace("    h100: verified\n",
                                     "    h100: verified\n    b200: verified\n")
    (alone,) = _strategy_hits(run(corpus_copy, without_spark, RENDERED)[0])
    assert hit.message == alone.message


def test_no_recipe_warning_when_every_configuration_of_the_strategy_reads_it(
        corpus_copy: Path) -> None:
    """The recipe's minimum is 0.12.0, but its one variant needs 0.25.0: every
    configuration that renders the strategy reads the variable."""
    _with_env(corpus_copy, "VLLM_USE_BREAKABLE_CUDAGRAPH")
    text = recipe().replace('    description: "Full precision BF16"\n',
                            '    description: "Full precision BF16"\n'
                            '    min_vllm_version: "0.25.0"\n')
    assert _strategy_hits(run(corpus_copy, text, RENDERED)[0]) == []
