"""A ``VLLM_*`` variable exported by some configurations that run in an install channel
of their own (DGX Spark in the community build ``eugr/spark-vllm-b12x``) and by others
that run the recipe's release range is judged per configuration, where it runs: the
recipe-range warning only where a range configuration lacks it, naming those
configurations; the image's own verdict (the ``FLAG024`` info) for the others.

The recipes are small ones of our own, written into a copy of the real recipes tree and
run through the full pipeline (:func:`tests.analysis.test_install_range.run`)."""

from __future__ import annotations

from pathlib import Path

from tests.analysis.test_install_range import recipe, run
from tests.conftest import line_of
from tests.rules.flag.test_install_channel import spark, with_hardware
from validator.context import Settings
from validator.findings import Finding

COMMUNITY = "eugr/spark-vllm-b12x:latest"
NO_ARGS = "        extra_args: []\n"
BASE = "/model/base_env/"
RENDERED = Settings(rendered=True)
"""The check's default: every command the site renders is judged."""


def _exporting(variable: str, text: str) -> str:
    """``text`` with ``model.base_env`` exporting ``variable`` (every configuration)."""
    return text.replace("  base_env: {}", f'  base_env: {{{variable}: "1"}}')


def _at(found: list[Finding], variable: str) -> list[Finding]:
    return [f for f in found if f.pointer == BASE + variable]


def test_an_unknown_variable_is_the_range_warning_for_range_configurations_only(
        corpus_copy: Path) -> None:
    """The warning counts the configurations of the recipe's range (as many as without
    DGX Spark at all); DGX Spark's, in the community build, get the info naming it."""
    variable = "VLLM_SPARK_ONLY_SWITCH"
    text = _exporting(variable, with_hardware(recipe(), spark(COMMUNITY, NO_ARGS)))
    found, _ = run(corpus_copy, text, RENDERED)
    warning, info = sorted(_at(found, variable), key=lambda f: f.rule)
    assert (warning.rule, warning.severity.value) == ("FLAG016", "warning")
    assert (info.rule, info.severity.value) == ("FLAG024", "info")
    assert warning.line == info.line == line_of(text, "base_env:")
    without_spark = _exporting(variable, recipe().replace(
        "    h100: verified\n", "    h100: verified\n    b200: verified\n"))
    (alone,) = _at(run(corpus_copy, without_spark, RENDERED)[0], variable)
    assert warning.message == alone.message
    assert "dgx_spark_gb10" not in warning.message
    assert f"the recipe runs it in {COMMUNITY}" in info.message
    assert "on dgx_spark_gb10" in info.message and "cannot be verified" in info.message


def test_a_variable_newer_than_the_minimum_names_only_the_range_configurations(
        corpus_copy: Path) -> None:
    """``VLLM_USE_BREAKABLE_CUDAGRAPH`` is read from vLLM 0.22.0: the range (from 0.12.0)
    lacks it, the community build is judged as newer code and does not."""
    variable = "VLLM_USE_BREAKABLE_CUDAGRAPH"
    text = _exporting(variable, with_hardware(recipe(), spark(COMMUNITY, NO_ARGS)))
    (hit,) = _at(run(corpus_copy, text, RENDERED)[0], variable)
    assert hit.rule == "FLAG016"
    assert "read only from vLLM 0.22.0, but the recipe's minimum is 0.12.0" in hit.message
    without_spark = _exporting(variable, recipe().replace(
        "    h100: verified\n", "    h100: verified\n    b200: verified\n"))
    (alone,) = _at(run(corpus_copy, without_spark, RENDERED)[0], variable)
    assert hit.message == alone.message


def test_no_range_warning_when_every_range_configuration_reads_the_variable(
        corpus_copy: Path) -> None:
    """The recipe's minimum is 0.12.0, but its one variant needs 0.25.0, which reads
    ``VLLM_USE_BREAKABLE_CUDAGRAPH``; DGX Spark runs the community build: no configuration
    lacks the variable, so the recipe-wide minimum is no reason for a warning."""
    variable = "VLLM_USE_BREAKABLE_CUDAGRAPH"
    text = _exporting(variable, with_hardware(recipe(), spark(COMMUNITY, NO_ARGS))).replace(
        '    description: "Full precision BF16"\n',
        '    description: "Full precision BF16"\n    min_vllm_version: "0.25.0"\n')
    assert _at(run(corpus_copy, text, RENDERED)[0], variable) == []
