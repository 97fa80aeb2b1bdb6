"""The install range: every token is checked at every vendored release a recipe claims
(FLAG023/GUIDE017), unreleased-only flags are info (FLAG024), ``--as-of`` and ``--vllm``.

Each test writes a small recipe of our own, shaped like the corpus's, into a copy of the
real recipes tree (its taxonomy and strategies), and runs the full pipeline on it.
"""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from tests.cli_in_process import run_cli
from tests.conftest import PROJECT, line_of
from tests.shared_context import shared_context
from validator.analysis.cli_plan import versions
from validator.analysis.install_range import (
    InstallPath,
    classify_command,
    install_range,
    top_of,
)
from validator.checker import Checker, RunResult
from validator.cli import main
from validator.context import Settings, local_context
from validator.findings import Finding
from validator.load import load_yaml
from validator.rule_index import check_rules
from validator.schema import SchemaValidator
from validator.vllm_cli.data_source import CliRegistries, Window

PATH = "models/example-org/Example-8B.yaml"


def recipe(base_args: str = "[]", *, minimum: str = "0.12.0", model_extra: str = "",
           guide_cmd: str = "vllm serve example-org/Example-8B --tensor-parallel-size 1") -> str:
    """A small dense recipe like the corpus's 8B ones."""
    return f"""meta:
  title: "Example-8B"
  slug: "example-8b"
  provider: "Example"
  description: "A small dense test model"
  date_added: 2025-10-15
  difficulty: beginner
  tasks:
    - text
  hardware:
    h100: verified

model:
  model_id: "example-org/Example-8B"
  min_vllm_version: "{minimum}"
  architecture: dense
  parameter_count: "8B"
  active_parameters: "8B"
  context_length: 131072
  base_args: {base_args}
  base_env: {{}}
{model_extra}
variants:
  default:
    precision: bf16
    vram_minimum_gb: 20
    description: "Full precision BF16"

compatible_strategies:
  - single_node_tp

guide: |
  ## Serve

  ```bash
  {guide_cmd}
  ```
"""


def run(root: Path, text: str, settings: Settings | None = None) -> tuple[list[Finding],
                                                                          RunResult]:
    target = root / PATH
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, "utf-8")
    ctx = shared_context(root, settings or Settings())
    result = RunResult()
    data = target.read_bytes()
    Checker(ctx, check_rules(), SchemaValidator()).check_recipe(
        PATH, data, ctx.tree.provenance(PATH, data), result)
    assert not result.internal_errors, result.internal_errors
    return result.all_findings(), result


def of(found: list[Finding], rule: str) -> list[Finding]:
    return [f for f in found if f.rule == rule]


def test_flag_absent_from_middle_releases_is_an_error(corpus_copy: Path) -> None:
    # --disable-log-requests: up to 0.16.x, absent from 0.17.0 to 0.32.0, back in 0.33.0
    text = recipe('["--disable-log-requests"]')
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "FLAG023")
    assert hit.severity.value == "error" and hit.pointer == "/model/base_args/0"
    assert hit.line == line_of(text, "base_args:")
    assert "rejected by vLLM 0.17.0–0.32.0, 24 releases (not an option there)" in hit.message
    assert "install range 0.12.0–0.33.0" in hit.message
    assert hit.hint is not None and "accepted again from vLLM 0.33.0" in hit.hint
    assert not of(found, "FLAG001") and not of(found, "FLAG002")


def test_flag_every_release_accepts_passes(corpus_copy: Path) -> None:
    found, _ = run(corpus_copy, recipe('["--disable-log-stats"]'))
    assert not of(found, "FLAG023") and not [f for f in found if f.rule.startswith("FLAG")
                                            and f.severity.value == "error"]


def test_guide_command_checked_at_every_release(corpus_copy: Path) -> None:
    text = recipe(guide_cmd="vllm serve example-org/Example-8B --disable-log-requests")
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "GUIDE017")
    assert hit.line == line_of(text, "--disable-log-requests")
    assert "0.17.0–0.32.0, 24 releases" in hit.message
    passing, _ = run(corpus_copy, recipe(
        guide_cmd="vllm serve example-org/Example-8B --disable-log-stats"))
    assert not of(passing, "GUIDE017")


def test_pinned_install_paths_bound_the_range(corpus_copy: Path) -> None:
    # every install path pins 0.16.0: releases after it are not claimed
    pinned = ('  docker_image: "vllm/vllm-openai:v0.16.0"\n'
              '  install:\n    pip:\n      command: "uv pip install vllm==0.16.0"\n')
    text = recipe('["--disable-log-requests"]', model_extra=pinned)
    found, _ = run(corpus_copy, text)
    assert not of(found, "FLAG023")
    ctx = local_context(corpus_copy)
    reach = install_range(load_yaml(text.encode(), PATH), ctx)
    assert reach.top == "0.16.0" and not reach.unreleased
    assert reach.plan.checked[-1] == "0.16.0"


def test_install_ranges_in_json_output(corpus_copy: Path) -> None:
    (corpus_copy / PATH).parent.mkdir(parents=True, exist_ok=True)
    (corpus_copy / PATH).write_text(recipe(), "utf-8")
    out = run_cli("--format", "json", str(corpus_copy / PATH), cwd=PROJECT)
    doc = json.loads(out.stdout)
    (default, variant) = doc["context"]["install_ranges"][PATH]
    assert default["variant"] is None and variant["variant"] == "default"
    assert default["min_vllm_version"] == "0.12.0"
    assert {p["kind"] for p in default["install_paths"]} == {"latest"}
    assert default["releases_checked"]["first"] == "0.12.0"
    assert default["releases_checked"]["last"] == str(versions(CliRegistries())[-1])


def test_install_ranges_do_not_depend_on_the_rules_selected(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``context.install_ranges`` is a field of the report: the same with ``--ignore
    FLAG`` (the rules that used to record it as a side effect), with only GUIDE rules,
    and with every rule."""
    root = tmp_path / "recipes"
    shutil.copytree(PROJECT / "examples" / "recipes", root)
    target = root / "models/example-org/Example-Chat-8B.yaml"

    def ranges(*selection: str) -> Any:
        main(["check", "--offline", "--no-cache", "--format", "json", *selection,
              str(target)])
        return json.loads(capsys.readouterr().out)["context"].get("install_ranges")

    every = ranges()
    assert every["models/example-org/Example-Chat-8B.yaml"][0]["min_vllm_version"] == "0.12.0"
    assert ranges("--ignore", "FLAG") == every
    assert ranges("--select", "GUIDE") == every


def test_as_of_judges_with_the_releases_of_that_date(corpus_copy: Path) -> None:
    # 0.17.0 was uploaded in 2026; on 2026-01-01 the newest release accepts the flag
    settings = Settings(as_of=date(2026, 1, 1))
    found, _ = run(corpus_copy, recipe('["--disable-log-requests"]'), settings)
    assert not of(found, "FLAG023")
    newest = versions(CliRegistries(window=Window(as_of=date(2026, 1, 1))))[-1]
    assert newest < versions(CliRegistries())[-1]
    from validator.releases import load_vendored
    uploaded = {str(r.version): r.uploaded.date() for r in load_vendored().releases}
    assert uploaded[str(newest)] <= date(2026, 1, 1) < uploaded["0.17.0"]


def test_vllm_option_checks_one_release(corpus_copy: Path) -> None:
    found, _ = run(corpus_copy, recipe('["--disable-log-requests"]'),
                   Settings(vllm="0.20.0"))
    (hit,) = of(found, "FLAG023")
    assert "rejected by vLLM 0.20.0, 1 release" in hit.message
    passing, _ = run(corpus_copy, recipe('["--disable-log-requests"]'),
                     Settings(vllm="0.33.0"))
    assert not of(passing, "FLAG023")


def test_vllm_option_refuses_a_release_without_registry() -> None:
    out = run_cli("--vllm", "9.9.9", "models/", cwd=PROJECT)
    assert out.returncode == 2
    assert "recipe-check data vllm-cli 9.9.9" in out.stderr


def test_abbreviation_made_ambiguous_later_says_ambiguous(corpus_copy: Path) -> None:
    # `--kv-cache-dty` is unique in 0.16.0; 0.19.0 adds --kv-cache-dtype-skip-layers
    found, _ = run(corpus_copy, recipe('["--kv-cache-dty", "fp8"]', minimum="0.16.0"))
    (hit,) = of(found, "FLAG023")
    assert "ambiguous abbreviation" in hit.message and "removed" not in hit.message
    assert "0.19.0–" in hit.message
    assert of(found, "FLAG014")  # the abbreviation itself, at the minimum
    passing, _ = run(corpus_copy, recipe('["--kv-cache-dtype", "fp8"]', minimum="0.16.0"))
    assert not of(passing, "FLAG023") and not of(passing, "FLAG014")


def test_flag_only_in_unreleased_code_is_info_for_a_nightly_recipe(corpus_copy: Path) -> None:
    nightly = "  nightly_required: true\n"
    # a released minimum installed as nightly (a minimum no release has yet is a launch-day
    # recipe: one info for the whole recipe, tests/analysis/test_launch_day.py)
    found, _ = run(corpus_copy, recipe('["--brand-new-serving-flag"]', minimum="0.20.0",
                                       model_extra=nightly))
    (hit,) = of(found, "FLAG024")
    assert hit.severity.value == "info" and not of(found, "FLAG001")
    released, _ = run(corpus_copy, recipe('["--brand-new-serving-flag"]', minimum="0.20.0"))
    assert of(released, "FLAG001") and not of(released, "FLAG024")


def test_install_commands_are_classified() -> None:
    cases = {
        "uv pip install -U vllm --torch-backend auto": ("latest", None),
        "pip install vllm==0.11.2": ("pinned", "0.11.2"),
        "uv pip install -U vllm --pre --extra-index-url https://wheels.vllm.ai/nightly":
            ("nightly", None),
        "git clone https://github.com/vllm-project/vllm-omni.git": ("source", None),
        "docker pull vllm/vllm-openai:v0.23.0": ("pinned", "0.23.0"),
        "docker pull vllm/vllm-openai:glm5": ("custom", None),
    }
    for text, (kind, version) in cases.items():
        found = classify_command(text, "/guide")
        assert found is not None and (found.kind, found.version) == (kind, version), text
    assert classify_command("uv pip install vllm-router", "/guide") is None
    assert top_of((InstallPath("pinned", "a", "x", "0.16.0"),
                   InstallPath("pinned", "b", "y", "0.18.0"))) == ("0.18.0", False)
    assert top_of((InstallPath("pinned", "a", "x", "0.16.0"),
                   InstallPath("nightly", "b", "y"))) == (None, True)


def test_plain_string_for_a_json_only_flag_is_an_error(corpus_copy: Path) -> None:
    # --limit-mm-per-prompt parses with json.loads from 0.8.5 on (0.8.0 took key=value)
    text = recipe('["--limit-mm-per-prompt", "image=4,audio=1"]', minimum="0.12.0")
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "FLAG007")
    assert hit.pointer == "/model/base_args/1"  # the value, not the flag
    assert "takes no plain string" in hit.message
    passing, _ = run(corpus_copy, recipe('["--limit-mm-per-prompt", \'{"image": 4}\']',
                                         minimum="0.12.0"))
    assert not of(passing, "FLAG007") and not of(passing, "FLAG023")


def test_dict_or_string_flag_takes_a_plain_string(corpus_copy: Path) -> None:
    # --hf-overrides is a dict-or-string union (a plain string names a function)
    found, _ = run(corpus_copy, recipe('["--hf-overrides", "my_overrides"]', minimum="0.12.0"))
    assert not of(found, "FLAG007") and not of(found, "FLAG023")


def test_old_custom_json_type_is_checked_as_json(corpus_copy: Path) -> None:
    # --compilation-config of 0.9.0/0.9.1 takes a level or JSON (its own type, which the
    # registry's is_json misses; parses_json records it)
    bad = recipe('["--compilation-config", \'{"level": 3,}\']', minimum="0.9.0")
    found, _ = run(corpus_copy, bad)
    assert [f.pointer for f in of(found, "FLAG007")] == ["/model/base_args/1"]
    level, _ = run(corpus_copy, recipe('["--compilation-config", "3"]', minimum="0.9.0"))
    assert not of(level, "FLAG007")


def test_rendered_commands_name_the_configurations(corpus_copy: Path) -> None:
    text = recipe('["--disable-log-requests"]')
    found, _ = run(corpus_copy, text, Settings(rendered=True))
    (hit,) = of(found, "FLAG023")
    assert hit.pointer == "/model/base_args/0"
    # every picker hardware renders it; the site's landing hardware comes first
    assert "(on h200 · default · single_node_tp and 26 more)" in hit.message
    plain, _ = run(corpus_copy, text)
    assert "(on " not in of(plain, "FLAG023")[0].message


def test_rendered_command_finds_what_no_single_layer_shows(corpus_copy: Path) -> None:
    # two spellings of one flag in two layers: the site de-duplicates by literal text, so
    # the fp8 command carries both; no single list has it twice
    fp8 = ('  fp8:\n    precision: fp8\n    vram_minimum_gb: 10\n    description: "FP8"\n'
           '    extra_args:\n      - "--max_model_len"\n      - "8192"\n')
    text = recipe('["--max-model-len", "4096"]').replace(
        "\ncompatible_strategies:", fp8 + "\ncompatible_strategies:")
    found, _ = run(corpus_copy, text, Settings(rendered=True))
    (hit,) = of(found, "FLAG011")
    assert hit.message.startswith("rendered command: ") and "fp8" in hit.message
    assert hit.pointer == "/variants/fp8/extra_args/0"
    assert not of(run(corpus_copy, text)[0], "FLAG011")  # the layers alone do not show it


def test_layer_the_site_never_renders_is_said_so(corpus_copy: Path) -> None:
    extra = ('\nhardware_overrides:\n  h100:\n    extra_args:\n'
             '      - "--enable-auto-tool-choice"\n')
    text = recipe().replace("\ncompatible_strategies:", extra + "\ncompatible_strategies:")
    (hit,) = of(run(corpus_copy, text, Settings(rendered=True))[0], "FLAG010")
    assert hit.message.endswith("(in no command the site renders)")


def test_as_of_hides_later_releases_from_the_ver_rules(corpus_copy: Path) -> None:
    from validator.releases import load_vendored

    uploaded = {str(r.version): r.uploaded.date() for r in load_vendored().releases}
    text = recipe(minimum="0.33.0")
    assert not of(run(corpus_copy, text)[0], "VER005")  # 0.33.0 is released today
    before = date.fromordinal(uploaded["0.33.0"].toordinal() - 1)
    (hit,) = of(run(corpus_copy, text, Settings(as_of=before))[0], "VER005")
    assert "0.33.0 is not released" in hit.message
