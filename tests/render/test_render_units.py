"""The tricky parts of the site's command synthesis, on a recipes tree of our own
(``tiny_tree.py``): layer order and overrides, last-wins de-duplication, shell quoting,
``docker run`` argv, TP sizing, node ranks, PD pools, KV composition, provenance, and what
happens where the site cannot render. The last test renders the same grid under the site's
own JavaScript and requires equality."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.render.test_differential import ORACLE, compare
from validator.context import Context, local_context
from validator.load import LoadedDocument, load_yaml
from validator.render.args import Arg, dedupe, shell_quote
from validator.render.renderer import Configuration, Rendered, render, render_all, site_strategies

TINY = "models/acme/Tiny-1B.yaml"
BROKEN = "models/acme/Broken-1B.yaml"


def doc(tree: Path, path: str = TINY) -> LoadedDocument:
    return load_yaml((tree / path).read_bytes(), path)


def go(tree: Path, ctx: Context, config: Configuration, path: str = TINY) -> Rendered:
    return render(doc(tree, path), ctx.taxonomy, site_strategies(ctx), config)


def flags(r: Rendered, role: str | None = None) -> list[str]:
    proc = next(p for p in r.processes if role is None or p.role == role)
    return [str(a) for a in proc.argv[3:]]


def test_dedupe_keeps_the_last_flag_with_its_value_and_every_positional() -> None:
    args = [Arg(v, "l", "d", f"/{i}") for i, v in enumerate(
        ["--a", "1", "pos", "--b", "--a", "2", "--b", "--c", "x"])]
    out = dedupe(args)
    assert [a.value for a in out] == ["pos", "--a", "2", "--b", "--c", "x"]
    assert [a.pointer for a in out][:3] == ["/2", "/4", "/5"]


@pytest.mark.parametrize(("value", "quoted"), [
    ("plain-value_1.2:3", "plain-value_1.2:3"), ("$SERVED_NAME", "$SERVED_NAME"),
    ('{"mode":"max"}', "'{\"mode\":\"max\"}'"), ("it's here", "'it'\\''s here'"),
    ("$lower", "'$lower'"), ("", ""),
])
def test_shell_quote(value: str, quoted: str) -> None:
    assert shell_quote(value) == quoted


def test_feature_hardware_override_replaces_its_args_and_renders_after_base_args(
        tree: Path, ctx: Context) -> None:
    hopper = go(tree, ctx, Configuration("hx8", features=("tuning",)))
    blackwell = go(tree, ctx, Configuration("bx8", features=("tuning",)))
    # the feature's --max-num-seqs wins over base_args' 64 (features render last) ...
    assert flags(hopper) == ["--max-model-len", "4096", "--tensor-parallel-size", "1",
                             "--max-num-seqs", "128", "--compilation-config", '{"mode":"max"}']
    # ... and on Blackwell its override REPLACES the feature's args (no compilation config)
    assert flags(blackwell) == ["--max-model-len", "4096", "--tensor-parallel-size", "1",
                                "--async-scheduling", "--max-num-seqs", "256"]
    token = next(t for t in blackwell.tokens if t.text == "256")
    assert (token.layer, token.pointer) == ("features.tuning.hardware_overrides.blackwell.args",
                                            "/features/tuning/hardware_overrides/blackwell/args/1")
    assert "--compilation-config '{\"mode\":\"max\"}'" in (hopper.command or "")


def test_strategy_generation_override_replaces_recipe_and_variant_overrides(
        tree: Path, ctx: Context) -> None:
    r = go(tree, ctx, Configuration("bx8", "fp8", "single_node_dep"))
    assert "--async-scheduling" not in flags(r)  # recipe blackwell override replaced
    assert flags(r)[-2:] == ["--all2all-backend", "deepep"]
    assert "--kv-cache-dtype" in flags(r)  # exact-GPU variant override still applies
    assert "BW_ENV" not in r.env and r.env["FP8_ON_B"] == "1"


def test_feature_order_follows_the_selection_and_modes_pick_one_config(
        tree: Path, ctx: Context) -> None:
    r = go(tree, ctx, Configuration("hx8", features=("spec", "tool_calling"),
                                    feature_modes=(("spec", "draft"),)))
    assert flags(r)[-5:] == ["--speculative-config", '{"method":"draft","n":2}',
                             "--enable-auto-tool-choice", "--tool-call-parser", "tiny"]
    default_mode = go(tree, ctx, Configuration("bx8", features=("spec",)))
    assert flags(default_mode)[-2:] == ["--speculative-config", '{"method":"mtp"}']


def test_tp_auto_fit_and_declared_tp(tree: Path, ctx: Context) -> None:
    def tp(config: Configuration) -> str:
        args = flags(go(tree, ctx, config))
        return args[args.index("--tensor-parallel-size") + 1]

    assert tp(Configuration("hx8")) == "1"  # 60 GB fits one 80 GB GPU
    assert tp(Configuration("hx8", "fp8")) == "8"  # 700 GB does not: the whole node
    assert tp(Configuration("hx8", "pinned")) == "2"  # variant tp map: generation key
    assert tp(Configuration("bx8", "pinned")) == "4"  # ... default key
    pinned = go(tree, ctx, Configuration("hx8", "pinned"))
    value = next(t for t in pinned.tokens if t.text == "2")
    assert value.pointer == "/variants/pinned/tp/hopper"
    line, _ = pinned_doc_line(tree, value.pointer)
    assert line == (tree / TINY).read_text().splitlines().index("      hopper: 2") + 1


def pinned_doc_line(tree: Path, pointer: str) -> tuple[int, int]:
    return doc(tree).source_map.position(pointer)


def test_multi_node_ranks_and_dep_start_rank(tree: Path, ctx: Context) -> None:
    tp = go(tree, ctx, Configuration("hx8", strategy="multi_node_tp", nodes=3))
    assert [p.role for p in tp.processes] == ["head", "worker 1", "worker 2"]
    assert flags(tp, "worker 2")[4:] == ["--tensor-parallel-size", "24", "--nnodes", "3",
                                         "--node-rank", "2", "--master-addr", "$HEAD_IP",
                                         "--headless"]
    assert "--headless" not in flags(tp, "head")
    dep = go(tree, ctx, Configuration("hx8", strategy="multi_node_dep", nodes=3))
    worker = flags(dep, "worker 2")
    # start rank = rank x the recipe's --data-parallel-size-local (2), not x gpu_count
    assert worker[worker.index("--data-parallel-start-rank") + 1] == "4"
    assert worker[worker.index("--data-parallel-size") + 1] == "24"
    pp = go(tree, ctx, Configuration("hx8", strategy="multi_node_tp_pp", nodes=2))
    assert flags(pp, "head")[4:8] == ["--tensor-parallel-size", "8",
                                      "--pipeline-parallel-size", "2"]


def test_pd_pools_and_dep_rank_rebinding(tree: Path, ctx: Context) -> None:
    r = go(tree, ctx, Configuration("hx8", strategy="pd_cluster", nodes=1, pd_nodes=(
        ("prefill", {"nodes": 2, "rank": 1, "parallelism": "dep"}), ("decode", 1))))
    prefill = r.processes[0]
    assert prefill.env["SIDE_HOST"] == "$PREFILL_NODE_2"
    assert "UCX_NET_DEVICES" not in prefill.env  # NVL4-only, dropped off GB200/GB300
    assert flags(r, "prefill")[6:10] == ["--data-parallel-size", "16",
                                         "--data-parallel-size-local", "8"]
    assert r.site is not None and "--prefill http://$PREFILL_NODE_2:8001" in \
        r.site["router"]["command"]
    assert r.processes[1].docker_argv is not None and "8002:8002" in r.processes[1].docker_argv


def test_docker_argv_mounts_local_model_and_config_paths(tree: Path, ctx: Context) -> None:
    local = go(tree, ctx, Configuration("bx8", "nvfp4"))
    assert local.docker_argv[:4] == ("docker", "run", "--gpus", "all")
    assert "/models/tiny-nvfp4:/models/tiny-nvfp4:ro" in local.docker_argv
    assert (local.docker_command or "").startswith("# /models/tiny-nvfp4 must already exist")
    kv = go(tree, ctx, Configuration("amx8", kv_offload="kv_mooncake_test"))
    argv = list(kv.docker_argv)
    assert argv[2:4] == ["--device=/dev/kfd", "--device=/dev/dri"]
    assert argv[argv.index("/etc/store.json:/etc/store.json:ro") - 1] == "-v"
    assert kv.docker_image == "vllm/vllm-openai-rocm:latest"
    assert kv.site is not None and kv.site["vllm_install"] == "uv pip install store-rocm"
    assert flags(kv)[-2:] == ["--kv-transfer-config", '{"kv_connector":"StoreConnector"}']


def test_taxonomy_kv_offload_option_and_picker(tree: Path, ctx: Context) -> None:
    r = go(tree, ctx, Configuration("hx8", kv_offload="cpu_tier"))
    token = r.tokens[-1]
    assert (token.layer, token.document, token.pointer) == (
        "taxonomy:kv_offload.cpu_tier", "taxonomy.yaml", "/kv_offload/cpu_tier/args/1")
    assert r.env["TIER_HASH_SEED"] == "7"
    # restricted profiles only where declared: box1 (declared) yes, tpux4 no
    assert r.compatible_hardware == ("hx8", "bx8", "gbx4", "amx8", "box1")
    fp4 = go(tree, ctx, Configuration("bx8", "nvfp4"))
    assert fp4.compatible_hardware == ("bx8", "gbx4", "box1")


def test_unrenderable_recipe_gives_problems_with_lines_not_exceptions(
        tree: Path, ctx: Context) -> None:
    config = Configuration.defaults(doc(tree, BROKEN), ctx.taxonomy, site_strategies(ctx))
    assert config.strategy == "multi_node_nope"  # default_strategy is taken as written
    r = go(tree, ctx, config, BROKEN)
    assert not r.ok
    codes = {p.code: p for p in r.problems}
    assert codes["unknown-strategy"].pointer == "/compatible_strategies/1"
    throw = codes["synthesis-error"]
    assert throw.pointer == "/model/base_args/1" and "4096" in throw.message
    unknown = go(tree, ctx, Configuration("no_gpu", "nope"))
    assert {p.code for p in unknown.problems} >= {"unknown-hardware", "unknown-variant"}
    assert unknown.ok  # the site renders it (a 1-GPU profile, variant default)


def test_render_all_covers_variants_hardware_strategies_and_feature_sets(
        tree: Path, ctx: Context) -> None:
    rendered = render_all(doc(tree), ctx.taxonomy, site_strategies(ctx))
    configs = {r.config for r in rendered}
    assert all(r.ok for r in rendered)
    assert {c.variant for c in configs} == {"default", "fp8", "pinned", "nvfp4"}
    assert {c.key for c in configs} >= {"single_node_tp", "multi_node_tp", "pd_cluster",
                                        "kv_mooncake_test"}
    assert any("quoted" in c.features for c in configs)  # opt-in feature switched on
    assert any(dict(c.feature_modes).get("spec") == "draft" for c in configs)
    assert not any(c.hardware == "tpux4" for c in configs)
    assert len(configs) == len(rendered)


GRID = [Configuration(hw, v, s, f, n, pd, modes, kv)
        for hw in ("hx8", "bx8", "gbx4", "amx8", "box1", "no_gpu")
        for v in ("default", "fp8", "pinned", "nvfp4")
        for s, n, pd, kv in (("single_node_tp", 1, None, None), ("single_node_dep", 1, None, None),
                             ("multi_node_tp", 3, None, None), ("multi_node_dep", 2, None, None),
                             ("multi_node_tp_pp", 2, None, None), ("pd_cluster", 1, None, None),
                             ("pd_cluster", 2, (("prefill", {"nodes": 2, "rank": 1,
                                                             "parallelism": "dep"}),
                                                ("decode", 2)), None),
                             ("single_node_tp", 1, None, "kv_mooncake_test"),
                             ("multi_node_tp", 2, None, "kv_mooncake_test"),
                             ("single_node_tp", 1, None, "cpu_tier"))
        for f, modes in (((), ()), (("tuning", "spec", "quoted"), (("spec", "draft"),)))]


def test_the_grid_renders_as_the_site_renders_it(site_dir: Path, tree: Path,
                                                 ctx: Context) -> None:
    cases = [{"path": TINY, "variant": c.variant, "strategy": c.strategy,
              "hardware": c.hardware, "features": list(c.features), "nodes": c.nodes,
              "pd_nodes": dict(c.pd_nodes) if c.pd_nodes else None,
              "feature_modes": dict(c.feature_modes), "kv_offload": c.kv_offload,
              "kv_instances": None, "advanced": [], "docker": True} for c in GRID]
    cases.append({**cases[0], "path": BROKEN})
    done = subprocess.run(["node", str(ORACLE)], input=json.dumps(
        {"site": str(site_dir), "root": str(tree), "cases": cases}), capture_output=True,
        text=True, timeout=300, check=True)
    oracle = json.loads(done.stdout)
    strategies = site_strategies(ctx)
    failures = []
    for config, case, want in zip([*GRID, GRID[0]], cases, oracle, strict=True):
        d = doc(tree, str(case["path"]))
        diffs = compare(case, want, d.data, ctx, strategies, render(d, ctx.taxonomy,
                                                                    strategies, config))
        if diffs:
            failures.append(f"{config.label()}: {diffs}")
    assert "error" in oracle[-1]  # the site throws on Broken-1B's numeric argument
    assert not failures, "\n".join(failures[:10])


def test_configuration_defaults_follow_the_site(tree: Path, ctx: Context) -> None:
    strategies = site_strategies(ctx)
    tiny = doc(tree)

    def defaults(**given: Any) -> Configuration:
        return Configuration.defaults(tiny, ctx.taxonomy, strategies, **given)

    plain = defaults(hardware="hx8")
    assert (plain.variant, plain.strategy, plain.nodes, plain.features) == (
        "default", "single_node_tp", 1, ("tool_calling", "tuning"))  # opt-in features off
    # 700 GB does not fit one 640 GB node: the site recommends multi-node at 2 nodes
    big = defaults(hardware="hx8", variant="fp8")
    assert (big.strategy, big.nodes) == ("multi_node_tp", 2)
    assert defaults(hardware="hx8", nodes=3).strategy == "multi_node_tp"
    kv = defaults(hardware="amx8", strategy="kv_mooncake_test")
    assert (kv.kv_offload, kv.strategy, kv.key) == ("kv_mooncake_test", "single_node_tp",
                                                    "kv_mooncake_test")
    # the landing hardware: no h200 here, so NVIDIA first, then by name (box1 is declared)
    assert defaults().hardware == "box1"


def test_omni_recipe_renders_the_omni_command_as_the_site(site_dir: Path, tree: Path,
                                                          ctx: Context) -> None:
    voice = "models/acme/Voice-1B.yaml"
    plain = go(tree, ctx, Configuration("hx8"), voice)
    # default variant's own extra_args are not used; nvidia override; omni.port beats
    # base_args' --port (last wins); --omni last
    assert plain.command == ("vllm serve acme/Voice-1B \\\n  --trust-remote-code \\\n"
                             "  --enforce-eager \\\n  --port 8091 \\\n  --omni")
    assert plain.deploy_type == "omni" and plain.site is None
    clone = go(tree, ctx, Configuration("amx8", "large", omni_task="clone"), voice)
    assert flags(clone) == ["--trust-remote-code", "--max-num-seqs", "4",
                            "--stage-configs-path", "clone.yaml", "--port", "8091", "--omni"]
    assert clone.argv[2] == "acme/Voice-Clone-1B" and clone.env == {"VOICE": "1", "LARGE": "yes"}
    assert clone.tokens[2].pointer == "/omni/tasks/1/model_id"
    # 2 variants x 4 picker profiles (no restricted one declared) x (no task, clone)
    assert len(render_all(doc(tree, voice), ctx.taxonomy, site_strategies(ctx))) == 2 * 4 * 2
    cases = [{"path": voice, "omni": True, "variant": v, "hardware": hw,
              "task": {"modelId": "acme/Voice-Clone-1B",
                       "extraArgs": ["--stage-configs-path", "clone.yaml"]} if t else None}
             for v in ("default", "large") for hw in ("hx8", "amx8", "tpux4") for t in (0, 1)]
    done = subprocess.run(["node", str(ORACLE)], input=json.dumps(
        {"site": str(site_dir), "root": str(tree), "cases": cases}), capture_output=True,
        text=True, timeout=300, check=True)
    for case, want in zip(cases, json.loads(done.stdout), strict=True):
        config = Configuration(str(case["hardware"]), str(case["variant"]), "omni",
                               omni_task="clone" if case["task"] else None)
        rendered = go(tree, ctx, config, voice)
        assert (rendered.command, dict(rendered.env)) == (want["ok"]["command"],
                                                          want["ok"]["env"]), case


def test_omni_command_renders_when_only_the_picker_fails(site_dir: Path, tree: Path,
                                                         tmp_path: Path) -> None:
    """``resolveOmniCommand`` never reads ``meta.hardware``: a value the picker cannot
    search (a number) costs the page its hardware list, not the command."""

    root = tmp_path / "tree"
    shutil.copytree(tree, root)
    voice = root / "models" / "acme" / "Voice-1B.yaml"
    voice.write_text(voice.read_text().replace("meta:\n", "meta:\n  hardware: 1e+21\n", 1))
    local = local_context(root)
    rendered = go(root, local, Configuration("hx8"), "models/acme/Voice-1B.yaml")
    assert rendered.ok and rendered.command and rendered.command.endswith("--omni")
    assert rendered.compatible_hardware == ()
    [problem] = [p for p in rendered.problems if p.code == "synthesis-error"]
    assert "cannot list the hardware" in problem.message and problem.pointer == "/meta/hardware"
    case = {"path": "models/acme/Voice-1B.yaml", "omni": True, "variant": "default",
            "hardware": "hx8", "task": None}
    done = subprocess.run(["node", str(ORACLE)], input=json.dumps(
        {"site": str(site_dir), "root": str(root), "cases": [case]}), capture_output=True,
        text=True, timeout=300, check=True)
    assert json.loads(done.stdout)[0]["ok"]["command"] == rendered.command
