"""Issue 30 item 8: a recipe with thousands of hardware overrides or environment variables
is checked in work proportional to its size. Counted work, not wall time: how many
environment maps the FLAG015/FLAG016 rules walk, and how many variables they look up."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from validator.analysis import install_range
from validator.analysis.arg_layers import env_maps
from validator.analysis.env_verdicts import env_issue
from validator.analysis.stated_versions import image_sites
from validator.cli import main
from validator.findings import MAX_FINDINGS_PER_RULE
from validator.render import gates, renderer
from validator.rules.flag import combined_lists as flag_combined
from validator.rules.flag import environment_variables as flag_env

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLES = PROJECT / "examples" / "recipes"
RECIPE = "models/example-org/Example-Chat-8B.yaml"
OVERRIDES = 600


def _hostile(root: Path) -> Path:
    """Our example tree, its Chat recipe with :data:`OVERRIDES` hardware overrides, each
    with an argument list and a variable no vLLM reads."""
    shutil.copytree(EXAMPLES, root)
    (root / "models/example-org/Example-MoE-120B.yaml").unlink()
    recipe = root / RECIPE
    body = "".join(f"  hw{i:04d}:\n    extra_args: [\"--max-num-seqs\", \"{i % 64 + 1}\"]\n"
                   f"    extra_env:\n      VLLM_HOSTILE_{i:04d}: \"1\"\n"
                   for i in range(OVERRIDES))
    text = recipe.read_text("utf-8")
    recipe.write_text(text.replace("compatible_strategies:", "hardware_overrides:\n" + body
                                   + "\ncompatible_strategies:", 1), "utf-8")
    return recipe


def test_thousands_of_overrides_walk_each_environment_map_a_bounded_number_of_times(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    recipe = _hostile(tmp_path / "recipes")
    counts: Counter[str] = Counter()
    walk, look_up = env_maps, env_issue  # the functions the rules call, by name

    def counted_maps(data: Any) -> Iterator[tuple[str, str, str | None, str | None]]:
        for found in walk(data):
            counts["maps"] += 1
            yield found

    def counted_issue(name: str, plan: Any) -> Any:
        counts["lookups"] += 1
        return look_up(name, plan)

    monkeypatch.setattr(flag_combined, "env_maps", counted_maps)
    monkeypatch.setattr(flag_env, "env_maps", counted_maps)
    monkeypatch.setattr(flag_env, "env_issue", counted_issue)
    code = main([str(recipe), "--no-cache", "--jobs", "1", "--select", "FLAG015,FLAG016",
                 "--format", "json"])
    assert code == 0
    [doc] = json.loads(capsys.readouterr().out)["documents"]
    found = [f for f in doc["findings"] if f["rule"] == "FLAG016"]
    # one map per override and the base environment, walked once per rule: not once per
    # argument list (FLAG015 read every map again for each of the 600 lists)
    assert counts["maps"] <= 2 * (OVERRIDES + 1) + 10
    # the checker shows 100 findings of a rule and one line for the rest: the rule stops
    # looking variables up once it has one more than that
    assert counts["lookups"] == MAX_FINDINGS_PER_RULE + 1
    assert len(found) == MAX_FINDINGS_PER_RULE + 1
    assert found[-1]["message"] == (f"more FLAG016 findings in this file are not shown (at "
                                    f"most {MAX_FINDINGS_PER_RULE} per rule)")
    assert "VLLM_HOSTILE_0000" in found[0]["message"]


MODES = 150


def _many_modes(root: Path) -> Path:
    """Our example tree, its Chat recipe's features with a modal one of :data:`MODES`
    modes: ``render --all`` renders each mode on each hardware."""
    shutil.copytree(EXAMPLES, root)
    (root / "models/example-org/Example-MoE-120B.yaml").unlink()
    recipe = root / RECIPE
    body = "".join(f"      m{i:04d}:\n        label: \"M{i}\"\n        description: \"mode {i}\"\n"
                   f"        args: [\"--speculative-config\", "
                   f"'{{\"method\":\"ngram\",\"num_speculative_tokens\":{i % 7 + 1}}}']\n"
                   for i in range(MODES))
    feature = ("  spec_decoding:\n    description: \"speculative decoding\"\n"
               "    default_mode: m0000\n    modes:\n" + body)
    text = recipe.read_text("utf-8")
    recipe.write_text(text.replace("features:\n  tool_calling:",
                                   "features:\n" + feature + "  tool_calling:", 1), "utf-8")
    return recipe


@pytest.mark.parametrize("command", [["render", "--all"], ["--no-cache", "--jobs", "1"]])
def test_each_configuration_judges_its_own_mode_not_every_mode(
        command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The mode gates run a bounded number of times per rendered configuration: before,
    each rendering judged every mode of the feature (again in its problem check), so
    ``render --all`` of 3,000 modes judged 27 million."""
    recipe = _many_modes(tmp_path / "recipes")
    counts: Counter[str] = Counter()
    judge = gates.is_mode_supported

    def counted(mode: Any, profile: Any, hw_id: str | None) -> bool:
        counts["judged"] += 1
        return judge(mode, profile, hw_id)

    monkeypatch.setattr(gates, "is_mode_supported", counted)
    rendering = renderer.render

    def counted_rendering(*args: Any, **kwargs: Any) -> Any:
        counts["configurations"] += 1
        return rendering(*args, **kwargs)

    monkeypatch.setattr(renderer, "render", counted_rendering)
    assert main([*command, str(recipe)]) in (0, 1)
    capsys.readouterr()
    assert counts["configurations"] >= MODES  # each mode is a configuration
    assert counts["judged"] <= 6 * counts["configurations"] + MODES, dict(counts)


VARIANTS = 200


def test_many_variants_walk_the_image_sites_once_per_document(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Each variant's install range reads the document's Docker images: grouped by
    variant in one walk, not one walk per variant (2,000 variants: 2,000 walks of 2,000)."""
    shutil.copytree(EXAMPLES, tmp_path / "recipes")
    (tmp_path / "recipes/models/example-org/Example-MoE-120B.yaml").unlink()
    recipe = tmp_path / "recipes" / RECIPE
    body = "".join(f"  v{i:04d}:\n    precision: bf16\n    vram_minimum_gb: 20\n"
                   f"    description: \"variant {i}\"\n" for i in range(VARIANTS))
    recipe.write_text(recipe.read_text("utf-8").replace(
        "compatible_strategies:", body + "\ncompatible_strategies:", 1), "utf-8")
    walks: Counter[str] = Counter()
    walk = image_sites  # the walk install_range calls, by name

    def counted(doc: Any) -> Any:
        walks["image_sites"] += 1
        return walk(doc)

    monkeypatch.setattr(install_range, "image_sites", counted)
    assert main([str(recipe), "--no-cache", "--jobs", "1"]) == 0, capsys.readouterr().out
    assert 1 <= walks["image_sites"] <= 5, dict(walks)
