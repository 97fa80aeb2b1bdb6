"""``recipe-check render``: text a user pastes, JSON, ``--all``, clear errors with lines."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli_in_process import run_cli
from tests.render.conftest import SiteBuild
from tests.render.tiny_tree import TINY, write_tree

PROJECT = Path(__file__).resolve().parents[2]


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``recipe-check render ARGS``, in this process (what it prints and returns is what
    these tests pin, not the process: :mod:`tests.cli_in_process`)."""
    return run_cli("render", *args, cwd=PROJECT)


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
    done = run_cli("check", "--format", "json", *options, "models/example-org/Example-8B.yaml",
                   cwd=root)
    assert done.returncode in (0, 1), done.stderr
    (document,) = json.loads(done.stdout)["documents"]
    findings: list[dict[str, object]] = document["findings"]
    return findings


@pytest.mark.corpus
def test_check_judges_every_rendered_command_unless_as_written(corpus_copy: Path) -> None:
    # two spellings of one flag in two layers: only the fp8 command holds both, so only
    # the rendered check (the default now) sees the duplicate and names the configuration
    from tests.analysis.test_install_range import recipe

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
    for escape in ("--as-written", "--layers-only", "--no-rendered"):
        assert not [f for f in _check(corpus_copy, escape) if f["rule"] == "FLAG011"]


def _gated(tree: Path) -> Path:
    """Tiny with gates the site's page honours: the ``draft`` mode on fp8 only, ``tuning``
    under single_node_tp only, no multi_node_tp_pp, a 24-GPU floor for multi_node_dep."""
    text = (TINY.replace("      draft:\n        args:", "      draft:\n        variants: [fp8]\n"
                         "        args:")
            .replace("  tuning:\n", "  tuning:\n    strategies: [single_node_tp]\n")
            .replace("  - multi_node_tp_pp\n", "")
            .replace("strategy_overrides:\n", "strategy_min_gpus:\n  multi_node_dep: 24\n"
                     "strategy_overrides:\n"))
    assert text.count("variants: [fp8]") == 1 and "strategy_min_gpus" in text
    path = tree / "models/acme/Gated-1B.yaml"
    path.write_text(text, "utf-8")
    return path


@pytest.mark.parametrize(("recipe", "options", "says"), [
    ("Tiny-1B", ["--features", "spec", "--mode", "nope=mtp"],
     "--mode nope=mtp: models/acme/Tiny-1B.yaml: feature 'nope' is not declared under "
     "features; features with modes: spec"),
    ("Tiny-1B", ["--mode", "tool_calling=x"],
     "--mode tool_calling=x: models/acme/Tiny-1B.yaml: feature 'tool_calling' has no modes "
     "(it is only on or off); features with modes: spec"),
    ("Tiny-1B", ["--features", "spec", "--mode", "spec=bogus"],
     "feature 'spec' has no mode 'bogus'; its modes: mtp, draft"),
    ("Tiny-1B", ["--mode", "spec=draft"],  # spec is opt-in: off by default
     "--mode spec=draft: models/acme/Tiny-1B.yaml: feature 'spec' is off in this "
     "configuration, and the site applies a mode only to a feature that is on (on: "
     "tool_calling, tuning); add it to --features"),
    ("Gated-1B", ["--features", "spec", "--mode", "spec=draft"],
     "mode 'draft' of feature 'spec' is not offered on default · hx8 (its variants: fp8); "
     "the site renders mode 'mtp' instead; modes offered here: mtp"),
    ("Tiny-1B", ["--features", "spec", "--mode", "spec=mtp", "--mode", "spec=draft"],
     "--mode spec=draft: feature 'spec' already has mode 'mtp'"),
])
def test_a_mode_the_site_would_not_apply_is_a_usage_error(tree: Path, recipe: str,
                                                          options: list[str],
                                                          says: str) -> None:
    path = _gated(tree) if recipe == "Gated-1B" else tree / f"models/acme/{recipe}.yaml"
    done = cli(path, "--hardware", "hx8", *options)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("recipe-check: --mode ") and says in done.stderr
    assert done.stdout == ""


def test_the_header_names_the_mode_the_command_uses(tree: Path) -> None:
    default = cli(tree / "models/acme/Tiny-1B.yaml", "--hardware", "hx8", "--features", "spec")
    assert default.returncode == 0, default.stderr
    assert default.stdout.startswith("# models/acme/Tiny-1B.yaml · hx8 · default · "
                                     "single_node_tp · 1 node · features: spec (mode mtp)\n")
    assert """--speculative-config '{"method":"mtp"}'""" in default.stdout
    draft = cli(tree / "models/acme/Tiny-1B.yaml", "--hardware", "hx8", "--features", "spec",
                "--mode", "spec=draft")
    assert draft.returncode == 0, draft.stderr
    assert "· features: spec (mode draft)\n" in draft.stdout
    assert """--speculative-config '{"method":"draft","n":2}'""" in draft.stdout
    gated = _gated(tree)
    left_out = cli(gated, "--hardware", "hx8", "--strategy", "single_node_dep",
                   "--features", "tool_calling,tuning")
    assert left_out.returncode == 0, left_out.stderr
    assert "features: tool_calling, tuning (left out: not for single_node_dep)\n" in \
        left_out.stdout
    assert "--max-num-seqs 128" not in left_out.stdout


@pytest.mark.parametrize(("recipe", "options", "note"), [
    ("Tiny-1B", ["--hardware", "tpux4"],
     "tpux4 is not in the site's hardware picker for variant default (it is a restricted "
     "profile and meta.hardware does not declare it); the picker offers: hx8, bx8, gbx4, "
     "amx8, box1"),
    ("Tiny-1B", ["--hardware", "hx8", "--variant", "nvfp4"],
     "hx8 is not in the site's hardware picker for variant nvfp4 (variant nvfp4's precision "
     "nvfp4 needs NVIDIA blackwell hardware); the picker offers: bx8, gbx4, box1"),
    ("Voice-1B", ["--hardware", "tpux4"],
     "tpux4 is not in the site's hardware picker for variant default (it is a restricted "
     "profile"),
    ("Tiny-1B", ["--hardware", "hx8", "--strategy", "multi_node_tp", "--nodes", "1"],
     "multi_node_tp at 1 node: the site offers a multi-node strategy at 2 nodes or more (at "
     "1 node it renders a single-node command); pass --nodes 2"),
    ("Tiny-1B", ["--hardware", "hx8", "--strategy", "single_node_tp", "--nodes", "2"],
     "single_node_tp is a single-node strategy: the site renders it at 1 node only (at 2 "
     "nodes it picks a multi-node strategy)"),
    ("Tiny-1B", ["--hardware", "hx8", "--strategy", "multi_node_tp", "--nodes", "17"],
     "17 nodes: the site's Nodes row stops at 16"),
    ("Tiny-1B", ["--hardware", "box1", "--strategy", "multi_node_tp", "--nodes", "2"],
     "the site does not offer 'multi_node_tp' on box1 for this recipe: box1 does not scale "
     "out (scalable: false); offered: single_node_tp, single_node_dep; rendered anyway"),
    ("Tiny-1B", ["--hardware", "box1", "--variant", "fp8"],
     "variant fp8 needs 700 GB, more than one box1 (96 GB), which does not scale out "
     "(scalable: false); the site shows variant default instead"),
    ("Gated-1B", ["--hardware", "hx8", "--strategy", "multi_node_tp_pp", "--nodes", "2"],
     "the site does not offer 'multi_node_tp_pp' on hx8 for this recipe: it is not in "
     "compatible_strategies"),
    ("Gated-1B", ["--hardware", "hx8", "--strategy", "multi_node_dep", "--nodes", "2"],
     "multi_node_dep at 2 nodes: its strategy_min_gpus floor needs 3 nodes of hx8; pass "
     "--nodes 3"),
])
def test_a_configuration_the_site_does_not_offer_renders_with_a_note(
        tree: Path, recipe: str, options: list[str], note: str) -> None:
    path = _gated(tree) if recipe == "Gated-1B" else tree / f"models/acme/{recipe}.yaml"
    text = cli(path, *options)
    assert text.returncode == 0, text.stderr
    header, first_note = text.stdout.splitlines()[:2]
    assert header.startswith(f"# models/acme/{recipe}.yaml · ")
    assert first_note.startswith("# note: ")
    assert f"# note: {note}" in text.stdout
    assert "\nvllm serve " in text.stdout  # still the command the builder would produce
    assert "not-offered" not in text.stderr  # said once, in the block a user pastes
    done = cli(path, *options, "--format", "json")
    assert done.returncode == 0, done.stderr
    [item] = json.loads(done.stdout)
    assert item["offered"] is False
    assert any(reason.startswith(note) for reason in item["reasons"]), item["reasons"]


def test_what_the_site_offers_has_no_note(tree: Path) -> None:
    for options in (["--hardware", "hx8"], ["--hardware", "box1"],
                    ["--hardware", "hx8", "--strategy", "multi_node_tp", "--nodes", "3"],
                    ["--hardware", "hx8", "--strategy", "kv_mooncake_test"]):
        done = cli(tree / "models/acme/Tiny-1B.yaml", *options, "--format", "json")
        assert done.returncode == 0, done.stderr
        [item] = json.loads(done.stdout)
        assert (item["offered"], item["reasons"]) == (True, []), options
        text = cli(tree / "models/acme/Tiny-1B.yaml", *options)
        assert "# note:" not in text.stdout, options


def test_all_lists_only_what_the_site_offers(tree: Path) -> None:
    done = cli(_gated(tree), "--all", "--format", "json")
    assert done.returncode == 0, done.stderr
    items = json.loads(done.stdout)
    assert items and all(i["offered"] and i["reasons"] == [] for i in items)
    drafts = {i["config"]["variant"] for i in items
              if ["spec", "draft"] in i["config"]["feature_modes"]}
    assert drafts == {"fp8"}  # the page offers the draft mode on fp8 only
    assert {i["config"]["hardware"] for i in items} <= {"hx8", "bx8", "gbx4", "amx8", "box1"}
    text = cli(_gated(tree), "--all")
    assert text.returncode == 0 and "# note:" not in text.stdout


def test_an_omni_task_the_recipe_does_not_list_is_a_usage_error(tree: Path) -> None:
    done = cli(tree / "models/acme/Voice-1B.yaml", "--task", "nope")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("recipe-check: --task: models/acme/Voice-1B.yaml: no "
                                  "omni.tasks entry has the id 'nope'; known: t2s, clone")
    known = cli(tree / "models/acme/Voice-1B.yaml", "--task", "clone")
    assert known.returncode == 0, known.stderr
    assert "· vLLM-Omni · task clone\n" in known.stdout


@pytest.mark.parametrize("count", ["99999999999", "10000000", "257"])
def test_a_node_count_past_the_bound_is_a_usage_error_naming_it(tree: Path, count: str) -> None:
    # was a MemoryError traceback (99999999999), a hang (10000000), 88 MB of text (100000):
    # every follower node prints its own command
    done = cli(tree / "models/acme/Tiny-1B.yaml", "--hardware", "hx8", "--strategy",
               "multi_node_tp", "--nodes", count)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert (f"argument --nodes: at most 256 nodes are rendered (the site's Nodes row stops "
            f"at 16), got {count}") in done.stderr
    assert "Traceback" not in done.stderr


def test_the_bound_itself_renders_with_a_note(tree: Path) -> None:
    done = cli(tree / "models/acme/Tiny-1B.yaml", "--hardware", "hx8", "--strategy",
               "multi_node_tp", "--nodes", "256")
    assert done.returncode == 0, done.stderr
    assert "# note: 256 nodes: the site's Nodes row stops at 16" in done.stdout
    assert "NODE_RANK=255" in done.stdout or "--node-rank 255" in done.stdout


def test_a_floor_past_the_bound_does_not_advise_a_count_render_refuses(tree: Path) -> None:
    text = TINY.replace("strategy_overrides:\n",
                        "strategy_min_gpus:\n  multi_node_tp: 80000\nstrategy_overrides:\n")
    path = tree / "models/acme/Floor-1B.yaml"
    path.write_text(text, "utf-8")
    done = cli(path, "--hardware", "hx8", "--strategy", "multi_node_tp")
    assert done.returncode == 0, done.stderr
    assert ("multi_node_tp at 1 node: the site offers a multi-node strategy at 2 nodes or "
            "more (at 1 node it renders a single-node command); more than the 256 --nodes "
            "accepts") in done.stdout
    assert "pass --nodes 10000" not in done.stdout
