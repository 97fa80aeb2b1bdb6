"""GUIDE011 compares a guide command with the rendered command of the configuration its
section targets (hardware, variant, strategy the section names), not with a guess over
the layers. Own small recipes in the shape of real ones (a hardware override that swaps
the tool-call parser on AMD; a variant with its own model)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from tests.shared_context import shared_context
from validator.checker import Checker, RunResult
from validator.context import Settings
from validator.findings import Finding
from validator.rule_index import check_rules
from validator.schema import SchemaValidator
from validator.source.provenance import Provenance

PROJECT = Path(__file__).resolve().parents[3]
BASE = PROJECT / "examples/recipes/models/example-org/Example-Chat-8B.yaml"
RECIPE = "models/example-org/Example-Chat-8B.yaml"

SERVE = "vllm serve {model} --tool-call-parser {parser}"


def guide(*sections: tuple[str, str, str]) -> str:
    """A guide of ``(heading, model, parser)`` sections, one command each."""
    return "".join(f"## {head}\n\nLaunch it:\n\n```bash\n"
                   f"{SERVE.format(model=model, parser=parser)}\n```\n\n"
                   for head, model, parser in sections)


@pytest.fixture
def tree(corpus_repo: Path, tmp_path: Path) -> Path:
    root = tmp_path / "recipes"
    root.mkdir()
    shutil.copy(corpus_repo / "taxonomy.yaml", root / "taxonomy.yaml")
    for folder in ("strategies", "kv_store"):
        if (corpus_repo / folder).is_dir():
            shutil.copytree(corpus_repo / folder, root / folder)
    (root / RECIPE).parent.mkdir(parents=True)
    return root


def check(root: Path, data: dict[str, object]) -> list[Finding]:
    text = yaml.safe_dump(data, sort_keys=False).encode("utf-8")
    (root / RECIPE).write_bytes(text)
    ctx = shared_context(root, Settings(offline=True))
    result = RunResult()
    rules = [r for r in check_rules() if r.id == "GUIDE011"]
    Checker(ctx, rules, SchemaValidator()).check_recipe(
        RECIPE, text, Provenance.of_bytes(RECIPE, text), result)
    assert not result.internal_errors, result.internal_errors
    return [f for d in result.documents for f in d.findings if f.rule == "GUIDE011"]


def amd_override() -> dict[str, object]:
    data: dict[str, object] = yaml.safe_load(BASE.read_text(encoding="utf-8"))
    meta = data["meta"]
    assert isinstance(meta, dict)
    meta["hardware"] = {"h200": "verified", "mi300x": "verified"}
    model = data["model"]
    assert isinstance(model, dict)
    model["base_args"] = ["--max-model-len", "32768", "--tool-call-parser", "hermes"]
    data["features"] = {"tool_calling": {"description": "Tool calls",
                                         "args": ["--enable-auto-tool-choice"]}}
    variants = data["variants"]
    assert isinstance(variants, dict)
    variants["default"]["hardware_overrides"] = {
        "mi300x": {"extra_args": ["--tool-call-parser", "mistral"]}}
    return data


MODEL = "example-org/Example-Chat-8B"


def test_a_section_naming_the_hardware_is_compared_with_that_hardware_command(
        tree: Path) -> None:
    data = amd_override()
    data["guide"] = guide(("AMD MI300X", MODEL, "mistral"), ("NVIDIA H200", MODEL, "hermes"))
    assert check(tree, data) == []


def test_the_other_hardware_value_in_a_section_is_reported_with_its_configuration(
        tree: Path) -> None:
    data = amd_override()
    data["guide"] = guide(("AMD MI300X", MODEL, "mistral"), ("NVIDIA H200", MODEL, "mistral"))
    (found,) = check(tree, data)
    text = str(data["guide"])
    assert found.line - 1 - text.splitlines().index("## NVIDIA H200") > 0
    assert "`--tool-call-parser mistral`" in found.message and "`hermes`" in found.message
    assert "on h200" in found.message
    # the related line is the YAML line of the base args that render `hermes`
    recipe = (tree / RECIPE).read_text(encoding="utf-8").splitlines()
    assert found.related and "tool-call-parser" in recipe[found.related[0].line - 1]


def test_the_one_line_message_names_the_yaml_line_of_the_rendered_value(tree: Path) -> None:
    """The YAML may hold the wrong value, not the guide: the message itself (the one line
    a report without related locations shows) names the line the rendered value comes
    from."""
    data = amd_override()
    data["guide"] = guide(("NVIDIA H200", MODEL, "mistral"))
    (found,) = check(tree, data)
    assert found.related
    assert f"`hermes` from YAML line {found.related[0].line} (on h200" in found.message


def test_a_section_naming_no_hardware_accepts_any_rendered_value(tree: Path) -> None:
    data = amd_override()
    data["guide"] = guide(("Launching the server", MODEL, "mistral"))
    assert check(tree, data) == []
    data["guide"] = guide(("Launching the server", MODEL, "llama3_json"))
    (found,) = check(tree, data)
    assert "`hermes`" in found.message and "`mistral`" in found.message


def test_a_command_serving_a_variant_model_is_compared_with_that_variant(tree: Path) -> None:
    data = amd_override()
    variants = data["variants"]
    assert isinstance(variants, dict)
    del variants["default"]["hardware_overrides"]
    variants["fp8"] = {"precision": "fp8", "vram_minimum_gb": 12, "description": "FP8",
                       "model_id": "example-org/Example-Chat-8B-FP8",
                       "extra_args": ["--tool-call-parser", "mistral"]}
    data["guide"] = guide(("FP8", "example-org/Example-Chat-8B-FP8", "mistral"))
    assert check(tree, data) == []
    data["guide"] = guide(("BF16", MODEL, "mistral"))
    (found,) = check(tree, data)
    assert "`hermes`" in found.message and "fp8" not in found.message
