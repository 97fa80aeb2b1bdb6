"""A taxonomy KV offload option the site offers a recipe (its KV Offload row shows it
beside some configuration: the strategy, recipe and brand gates open) adds its ``args``
and ``env`` to that recipe's commands, so ``check`` judges them at the recipe's release
range -- also an option the recipe does not list (no ``requires_opt_in``: the site offers
it to every recipe that does not opt out), without rendering the KV-offload
configurations. An option the gates close for the recipe adds nothing and is not judged
there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from validator.cli import main
from validator.findings import Finding, Severity

CHAT = "models/example-org/Example-Chat-8B.yaml"  # minimum 0.12.0, single_node_tp, NVIDIA
NEWER_FLAG = "--linear-backend"  # a vLLM option from 0.22.0
NEWER_VAR = "VLLM_USE_BREAKABLE_CUDAGRAPH"  # read from vLLM 0.22.0


def _option(gate: str = "") -> str:
    return f"""
kv_offload:
  example_tier:
    display_name: "Example tier"
{gate}    args: ["{NEWER_FLAG}", "auto"]
    env:
      {NEWER_VAR}: "1"
"""


def _found(root: Path) -> list[Finding]:
    return [f for f in check_tree(root, CHAT) if f.rule in ("FLAG002", "FLAG016")
            and "example_tier" in f.message]


def test_an_unlisted_option_the_site_offers_is_judged_at_the_recipes_range(
        examples_tree: Path) -> None:
    taxonomy = examples_tree / "taxonomy.yaml"
    text = taxonomy.read_text() + _option()
    taxonomy.write_text(text)
    found = sorted(_found(examples_tree), key=lambda f: f.rule)
    recipe_text = (examples_tree / CHAT).read_text()
    # the flag newer than the minimum: at the minimum, the line its first fix raises
    assert [(f.rule, f.line) for f in found] == [
        ("FLAG002", line_of(recipe_text, "min_vllm_version")), ("FLAG016", 1)]
    flag, var = found
    # the recipe names no line of it: true of the commands shown, not a recipe error
    assert flag.severity is Severity.WARNING
    assert flag.hint is not None and flag.hint.endswith(
        "or opt the recipe out: kv_offload_support: {example_tier: unsupported}")
    assert f"`{NEWER_FLAG}` exists only from vLLM 0.22.0" in flag.message
    assert "taxonomy.yaml kv_offload.example_tier.args" in flag.message
    assert (flag.related[0].path, flag.related[0].line) == (
        "taxonomy.yaml", line_of(text, NEWER_FLAG))
    assert var.message.startswith("taxonomy.yaml kv_offload.example_tier.env: ")
    assert NEWER_VAR in var.message and "0.22.0" in var.message
    assert (var.related[0].path, var.related[0].line) == (
        "taxonomy.yaml", line_of(text, f"{NEWER_VAR}:"))


def test_a_listed_option_is_reported_at_the_recipe_line_that_lists_it(
        examples_tree: Path) -> None:
    taxonomy = examples_tree / "taxonomy.yaml"
    taxonomy.write_text(taxonomy.read_text() + _option("    requires_opt_in: true\n"))
    recipe = examples_tree / CHAT
    text = recipe.read_text() + "kv_offload_support:\n  example_tier: verified\n"
    recipe.write_text(text)
    found = _found(examples_tree)
    assert {(f.rule, f.line) for f in found} == {
        ("FLAG002", line_of(text, "example_tier:")), ("FLAG016", line_of(text, "example_tier:"))}
    assert {f.severity for f in found if f.rule == "FLAG002"} == {Severity.ERROR}


@pytest.mark.parametrize("gate", [
    "    requires_opt_in: true\n",  # fail-closed, and the recipe does not list it
    "    brands: [Google]\n",  # none of the recipe's hardware
    "    strategies: [multi_node_tp]\n",  # the recipe offers single_node_tp only
])
def test_an_option_the_gates_close_for_the_recipe_is_not_judged_there(
        examples_tree: Path, gate: str) -> None:
    taxonomy = examples_tree / "taxonomy.yaml"
    taxonomy.write_text(taxonomy.read_text() + _option(gate))
    assert _found(examples_tree) == []


def test_an_option_the_recipe_opts_out_of_is_not_judged_there(examples_tree: Path) -> None:
    taxonomy = examples_tree / "taxonomy.yaml"
    taxonomy.write_text(taxonomy.read_text() + _option())
    recipe = examples_tree / CHAT
    recipe.write_text(recipe.read_text() + "kv_offload_support:\n  example_tier: unsupported\n")
    assert _found(examples_tree) == []


def test_an_unlisted_options_newer_flag_moves_onto_the_taxonomy_when_it_is_checked(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Reported at the recipe's ``min_vllm_version``, the finding is still the option's:
    a run that checks the taxonomy too shows it there, at the flag's own line."""
    taxonomy = examples_tree / "taxonomy.yaml"
    text = taxonomy.read_text() + _option()
    taxonomy.write_text(text)
    main(["check", "--offline", "--no-cache", "--format", "json", "--select", "FLAG002",
          str(examples_tree / CHAT), str(taxonomy)])
    doc = json.loads(capsys.readouterr().out)
    found = [(d["path"], f["line"]) for d in doc["documents"] for f in d["findings"]
             if "example_tier" in f["message"]]
    assert found == [("taxonomy.yaml", line_of(text, NEWER_FLAG))]
    (moved,) = [f for d in doc["documents"] for f in d["findings"]
                if "example_tier" in f["message"]]
    recipe = (examples_tree / CHAT).read_text()
    assert {"path": moved["related"][0]["path"], "line": moved["related"][0]["line"],
            "message": moved["related"][0]["message"]} == {
        "path": CHAT,
        "line": line_of(recipe, "min_vllm_version:"),
        "message": "the recipe's minimum vLLM version, older than these flags"}
