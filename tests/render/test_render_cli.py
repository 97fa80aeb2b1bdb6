"""``recipe-check render``: text a user pastes, JSON, ``--all``, clear errors with lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.render.conftest import SiteBuild
from tests.render.tiny_tree import write_tree

PROJECT = Path(__file__).resolve().parents[2]


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "validator", "render", *map(str, args)],
                          cwd=PROJECT, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tree(tmp_path_factory.mktemp("tiny-cli") / "recipes")


def test_text_output_is_what_a_user_pastes(tree: Path) -> None:
    done = cli(tree / "models/acme/Tiny-1B.yaml", "--hardware", "hx8", "--features",
               "tool_calling,quoted")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "# models/acme/Tiny-1B.yaml · hx8 · default · single_node_tp · 1 node" in out
    assert "uv pip install -U vllm --torch-backend auto" in out
    assert "docker pull vllm/vllm-openai:v0.20.0" in out
    assert "export TINY_MODE=fast" in out
    assert ("vllm serve acme/Tiny-1B \\\n  --max-model-len 4096 \\\n  --max-num-seqs 64 \\\n"
            "  --tensor-parallel-size 1 \\\n  --enable-auto-tool-choice \\\n"
            "  --tool-call-parser tiny \\\n  --chat-template 'it'\\''s here' \\\n"
            "  --served-model-name $SERVED_NAME\n") in out
    assert "docker run --gpus all \\\n  --privileged --ipc=host -p 8000:8000" in out
    assert done.stderr == ""


def test_json_output_carries_tokens_with_pointers(tree: Path) -> None:
    done = cli(tree / "models/acme/Tiny-1B.yaml", "--hardware", "bx8", "--variant", "fp8",
               "--format", "json")
    assert done.returncode == 0, done.stderr
    [item] = json.loads(done.stdout)
    assert item["ok"] and item["config"]["variant"] == "fp8"
    tokens = item["processes"][0]["tokens"]
    quant = next(t for t in tokens if t["text"] == "--quantization")
    assert quant == {"text": "--quantization", "layer": "variants.fp8.extra_args",
                     "pointer": "/variants/fp8/extra_args/0",
                     "document": "models/acme/Tiny-1B.yaml"}
    assert item["env_sources"]["FP8_ON_B"]["pointer"] == \
        "/variants/fp8/hardware_overrides/bx8/extra_env/FP8_ON_B"
    assert item["argv"][:3] == ["vllm", "serve", "acme/Tiny-1B-FP8"]


def test_all_renders_every_configuration(tree: Path) -> None:
    done = cli(tree / "models/acme/Tiny-1B.yaml", "--all", "--format", "json")
    assert done.returncode == 0, done.stderr
    items = json.loads(done.stdout)
    assert len(items) > 50
    assert len({json.dumps(i["config"], sort_keys=True) for i in items}) == len(items)
    assert cli(tree / "models/acme/Tiny-1B.yaml", "--all", "--hardware", "hx8").returncode == 2


def test_what_the_site_cannot_render_is_a_message_with_a_line(tree: Path) -> None:
    broken = cli(tree / "models/acme/Broken-1B.yaml", "--hardware", "hx8", "--strategy",
                 "single_node_tp")
    assert broken.returncode == 1
    assert "models/acme/Broken-1B.yaml:8:7: error: the site cannot render" in broken.stderr
    assert "Traceback" not in broken.stderr
    not_recipe = cli(tree / "taxonomy.yaml")
    assert not_recipe.returncode == 2 and "taxonomy.yaml: not a recipe" in not_recipe.stderr
    missing = cli(tree / "models/acme/Nope.yaml")
    assert missing.returncode == 2 and "no such file" in missing.stderr
    bad_yaml = tree / "models/acme/Bad.yaml"
    bad_yaml.write_text("model: [unclosed\n", "utf-8")
    bad = cli(bad_yaml)
    assert bad.returncode == 1 and "models/acme/Bad.yaml:" in bad.stderr
    assert "[YAML001]" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.parametrize(("option", "value", "says"), [
    ("--hardware", "h999", "hardware 'h999' is not a profile of taxonomy.yaml"),
    ("--variant", "q", "variant 'q' is not declared under variants"),
    ("--strategy", "nope_tp", "strategy 'nope_tp' has no file under strategies/"),
    ("--features", "tool_calling,nope", "feature 'nope' is not declared under features"),
    ("--task", "t2i", "is not a vLLM-Omni recipe"),
])
def test_a_name_the_recipe_does_not_know_is_a_usage_error(tree: Path, option: str, value: str,
                                                        says: str) -> None:
    done = cli(tree / "models/acme/Tiny-1B.yaml", option, value)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"recipe-check: {option}") and says in done.stderr
    assert done.stdout == ""


@pytest.mark.corpus
def test_glm_on_b300_prints_the_sites_commands(corpus_main_tree: Path,
                                                site_main_build: SiteBuild) -> None:
    done = cli(corpus_main_tree / "models/zai-org/GLM-5.2.yaml", "--hardware", "b300")
    assert done.returncode == 0, done.stderr
    site = json.loads((site_main_build.public / "zai-org/GLM-5.2/hw/b300.json").read_text())
    assert f"{site['command']}\n" in done.stdout
    assert f"{site['docker_command']}\n" in done.stdout
    rendered = json.loads(cli(corpus_main_tree / "models/zai-org/GLM-5.2.yaml", "--hardware",
                              "b300", "--format", "json").stdout)[0]
    for key in ("argv", "docker_argv", "env", "docker_image", "node_count", "deploy_type"):
        assert rendered[key] == site[key], key


@pytest.mark.corpus
def test_a_pinned_spec_renders_like_the_checkout(corpus_repo: Path, corpus_main_tree: Path,
                                                 tmp_path: Path) -> None:
    rev = subprocess.run(["git", "rev-parse", "main"], cwd=corpus_repo, capture_output=True,
                         text=True, check=True).stdout.strip()
    spec = cli(f"vllm-project/recipes@{rev}:models/zai-org/GLM-5.2.yaml", "--git-url",
               corpus_repo, "--cache-dir", tmp_path / "cache", "--hardware", "mi355x",
               "--strategy", "pd_cluster")
    local = cli(corpus_main_tree / "models/zai-org/GLM-5.2.yaml", "--hardware", "mi355x",
                "--strategy", "pd_cluster")
    assert spec.returncode == 0, spec.stderr
    assert spec.stdout == local.stdout
    assert "# --- prefill: vllm serve ---" in spec.stdout and "vllm-router" in spec.stdout


def _check(root: Path, *options: str) -> list[dict[str, object]]:
    done = subprocess.run([sys.executable, "-m", "validator", "check", "--format", "json",
                           *options, "models/example-org/Example-8B.yaml"], cwd=root,
                          env={**os.environ, "PYTHONPATH": str(PROJECT)},
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode in (0, 1), done.stderr
    (document,) = json.loads(done.stdout)["documents"]
    findings: list[dict[str, object]] = document["findings"]
    return findings


@pytest.mark.corpus
def test_check_judges_every_rendered_command_unless_layers_only(corpus_copy: Path) -> None:
    # two spellings of one flag in two layers: only the fp8 command holds both, so only
    # the rendered check (the default now) sees the duplicate and names the configuration
    from tests.checks.test_install_range import recipe

    fp8 = ('  fp8:\n    precision: fp8\n    vram_minimum_gb: 10\n    description: "FP8"\n'
           '    extra_args:\n      - "--max_model_len"\n      - "8192"\n')
    text = recipe('["--max-model-len", "4096"]').replace(
        "\ncompatible_strategies:", fp8 + "\ncompatible_strategies:")
    target = corpus_copy / "models/example-org/Example-8B.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    rendered = [f for f in _check(corpus_copy) if f["rule"] == "FLAG011"]
    assert len(rendered) == 1 and "fp8" in str(rendered[0]["message"])
    assert rendered[0]["pointer"] == "/variants/fp8/extra_args/0"
    assert rendered == [f for f in _check(corpus_copy, "--rendered") if f["rule"] == "FLAG011"]
    for escape in ("--layers-only", "--no-rendered"):
        assert not [f for f in _check(corpus_copy, escape) if f["rule"] == "FLAG011"]
