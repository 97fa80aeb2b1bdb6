"""Randomized differential test: :func:`validator.render.renderer.render` against the site's
own ``resolveCommand`` under Node, on the recipes of corpus ``main``.

Every run draws ``RC_RENDER_CASES`` (default 2,500) random configurations -- recipe,
variant (sometimes an undeclared one), hardware (sometimes unknown), strategy or kv-store
deployment or taxonomy KV-offload option, a random feature subset in random order with
random modes, node count, PD pool sizes/ranks/parallelism, Mooncake instance counts,
advanced args -- from a seed printed in the output and taken from ``RC_RENDER_SEED`` when
set. One ``node`` process renders the whole batch (``tests/render/oracle/resolve.mjs``).
Compared per configuration: the whole ``resolveCommand`` result, every process's command,
argv, env, ``docker run`` command and argv, the Docker image, the picker's hardware list,
the default hardware and the recommended strategy; and every argv token's provenance
resolves to a YAML node holding that very token.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from validator.context import Context, local_context
from validator.load import LoadedDocument, load_yaml
from validator.render import jsval
from validator.render.gates import recommend_strategy
from validator.render.omni import is_omni, resolve_omni_command
from validator.render.renderer import Configuration, Rendered, omni_task, render, site_strategies
from validator.render.synthesis import resolve_command
from validator.sourcemap import split_pointer

ORACLE = Path(__file__).parent / "oracle" / "resolve.mjs"
DEFAULT_CASES = 2500
ADVANCED = [["--max-model-len", "8192"], ["--enforce-eager"], ["--tensor-parallel-size", "2"],
            ["--gpu-memory-utilization", "0.85", "--enforce-eager"]]


def _seed() -> int:
    text = os.environ.get("RC_RENDER_SEED")
    return int(text) if text else random.SystemRandom().randrange(2**32)


def _cases_wanted() -> int:
    return int(os.environ.get("RC_RENDER_CASES", DEFAULT_CASES))


def random_case(rng: random.Random, path: str, data: dict[str, Any], ctx: Context,
                names: list[str]) -> dict[str, Any]:
    """One random configuration of recipe ``data`` (JSON for the oracle)."""
    def names_of(value: Any) -> list[str]:
        return [k for k in value if isinstance(k, str)] if isinstance(value, dict) else []

    variants = names_of(data.get("variants")) or ["default"]
    variant = rng.choice(variants) if rng.random() > 0.03 else "no_such_variant"
    profiles = list(ctx.hardware_profiles)
    hardware = rng.choice(profiles) if rng.random() > 0.03 else "no_such_gpu"
    listed = data.get("compatible_strategies")
    offered = [s for s in listed if isinstance(s, str)] if isinstance(listed, list) else []
    kv_ids = [n for n in names if n.startswith("kv_store")]
    roll = rng.random()
    strategy = rng.choice(offered or names) if roll < 0.7 else rng.choice(names)
    kv_offload: str | None = None
    if rng.random() < 0.2:
        taxonomy_kv = list(((ctx.taxonomy.data if ctx.taxonomy else {}) or {}).get(
            "kv_offload") or {})
        kv_offload = rng.choice(kv_ids + taxonomy_kv + ["no_such_kv"])
    features = names_of(data.get("features"))
    chosen = rng.sample(features, rng.randint(0, len(features))) if features else []
    if rng.random() < 0.05:
        chosen.append("no_such_feature")
    modes: dict[str, str] = {}
    for name in chosen:
        feat = data["features"].get(name) if isinstance(data.get("features"), dict) else None
        if isinstance(feat, dict) and isinstance(feat.get("modes"), dict) and rng.random() < .6:
            modes[name] = rng.choice([*feat["modes"], "no_such_mode"])
    nodes = rng.choice([1, 1, 1, 2, 2, 3, 4, 5])
    pd_nodes: Any = None
    if strategy == "pd_cluster" and rng.random() < 0.7:
        pd_nodes = {}
        for role in ("prefill", "decode"):
            pick = rng.random()
            if pick < 0.3:
                pd_nodes[role] = rng.randint(0, 4)
            elif pick < 0.8:
                pd_nodes[role] = {"nodes": rng.randint(0, 4), "rank": rng.randint(0, 3),
                                  "parallelism": rng.choice(["tp", "tep", "dep", None])}
    kv_instances: Any = rng.choice([None, None, 1, 3, {"count": 3, "current": rng.randint(0, 4)}])
    advanced = rng.choice([[], [], [], *ADVANCED])
    omni: dict[str, Any] = {}
    if is_omni(data):
        listed = (data.get("omni") or {}).get("tasks") if isinstance(data.get("omni"),
                                                                       dict) else None
        ids = [t.get("id") for t in listed if isinstance(t, dict)] if isinstance(
            listed, list) else []
        task_id = rng.choice([None, *ids])
        omni = {"omni": True, "task_id": task_id, "task": omni_task(data, task_id)[0]}
    return {**omni, "path": path, "variant": variant, "strategy": strategy,
            "hardware": hardware, "features": chosen, "nodes": nodes, "pd_nodes": pd_nodes,
            "feature_modes": modes,
            "kv_offload": kv_offload, "kv_instances": kv_instances, "advanced": advanced,
            "docker": True}


_ODD_VALUES: list[Any] = [0, 1, 1.5, -1, True, False, None, "", "--x", "a b", [], {}, ["--y"],
                          {"k": "v"}, 1e21, "4"]


_RENDERED_KEYS = ("model", "variants", "features", "strategy_overrides", "hardware_overrides",
                  "compatible_strategies", "opt_in_features", "default_strategy", "meta",
                  "strategy_hardware", "strategy_min_gpus", "hardware_opt_in_features")


def _mutable_nodes(data: Any, pointer: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every node of a recipe under the keys the renderer reads."""
    out = [pointer]
    if isinstance(data, dict):
        for key, value in data.items():
            read = pointer or key in _RENDERED_KEYS
            if read and key not in ("description", "guide", "title", "label"):
                out += _mutable_nodes(value, (*pointer, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            out += _mutable_nodes(value, (*pointer, index))
    return out


def mutate(rng: random.Random, data: dict[str, Any], count: int) -> dict[str, Any]:
    """A copy of a recipe with ``count`` nodes replaced by odd values (numbers among the
    arguments, strings where lists belong, null env values, empty mappings ...)."""
    copy: dict[str, Any] = json.loads(json.dumps(data))
    nodes = [n for n in _mutable_nodes(copy) if n]
    for path in rng.sample(nodes, min(count, len(nodes))):
        parent: Any = copy
        try:
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = json.loads(json.dumps(rng.choice(_ODD_VALUES)))
        except (KeyError, IndexError, TypeError):
            continue
    return copy


def run_oracle(site: Path, root: Path, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One node process for the whole batch."""
    done = subprocess.run(["node", str(ORACLE)], input=json.dumps(
        {"site": str(site), "root": str(root), "cases": cases}), capture_output=True, text=True,
        timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    out: list[dict[str, Any]] = json.loads(done.stdout)
    assert len(out) == len(cases)
    return out


def _config(case: dict[str, Any]) -> Configuration:
    pd = case["pd_nodes"]
    return Configuration(case["hardware"], case["variant"], case["strategy"],
                         tuple(case["features"]), case["nodes"],
                         tuple(pd.items()) if isinstance(pd, dict) else None,
                         tuple(case["feature_modes"].items()), case["kv_offload"],
                         case["kv_instances"], tuple(case["advanced"]), case.get("task_id"))


def _at(data: Any, pointer: str) -> Any:
    for token in split_pointer(pointer):
        data = data[int(token)] if isinstance(data, list) else data[token]
    return data


def provenance_errors(rendered: Rendered, docs: dict[str, LoadedDocument]) -> list[str]:
    """Tokens whose pointer does not lead to a YAML node holding that token."""
    errors = []
    for proc in rendered.processes:
        for token, value in zip(proc.tokens, proc.argv, strict=True):
            if token.text != jsval.js_str(value):
                errors.append(f"token text {token.text!r} != argv {value!r}")
            if not token.pointer or not split_pointer(token.pointer)[-1].isdigit():
                continue  # synthesized (parallelism, TP size) or a spread string
            doc = docs.get(token.document)
            if doc is None:
                errors.append(f"{token}: unknown document")
                continue
            try:
                held = _at(doc.data, token.pointer)
            except (KeyError, IndexError, TypeError, ValueError):
                errors.append(f"{token}: pointer does not resolve")
                continue
            if held != value:
                errors.append(f"{token}: the node holds {held!r}")
            elif doc.source_map.span(token.pointer) is None:
                errors.append(f"{token}: no line")
    return errors


def compare(case: dict[str, Any], want: dict[str, Any], data: Any, ctx: Context,
            strategies: dict[str, Any], rendered: Rendered) -> list[str]:
    """Every difference between our rendering and the oracle's for one case."""
    diffs: list[str] = []
    if any(p.code == "internal-error" for p in rendered.problems):
        return [f"internal error: {rendered.problems}"]
    if "error" in want:
        if rendered.ok:
            diffs.append(f"site throws ({want['error']}) but we render")
        return diffs
    if not rendered.ok:
        return [f"we fail ({rendered.problems}) but the site renders"]
    tax = ctx.taxonomy.data if ctx.taxonomy else {}
    if case.get("omni"):
        profile = (tax.get("hardware_profiles") or {}).get(case["hardware"]) or {}
        ours = jsval.to_json_value(resolve_omni_command(data, case["variant"], case["task"],
                                                        profile, case["hardware"]))
        seen = {"command": rendered.command, "env": jsval.to_json_value(dict(rendered.env)),
                "modelId": jsval.to_json_value(rendered.argv[2])}
        return [f"omni {name} differs: {value!r} != {want['ok'].get(name)!r}"
                for name, value in [*ours.items(), *seen.items()]
                if value != want["ok"].get(name)]
    plain = {k: v.data for k, v in strategies.items()}
    ours = jsval.to_json_value(resolve_command(
        data, case["variant"], case["strategy"], case["hardware"], case["features"], plain, tax,
        case["advanced"], case["nodes"], case["pd_nodes"], case["feature_modes"],
        case["kv_offload"], case["kv_instances"]))
    if json.dumps(ours, sort_keys=True) != json.dumps(want["ok"], sort_keys=True):
        keys = sorted(k for k in set(ours) | set(want["ok"]) if ours.get(k) != want["ok"].get(k))
        diffs.append(f"resolveCommand differs on {keys}")
    extra = want["extra"]
    procs = {p.role: p for p in rendered.processes}
    if sorted(procs) != sorted(extra["processes"]):
        diffs.append(f"processes {sorted(procs)} != {sorted(extra['processes'])}")
    for role, theirs in extra["processes"].items():
        proc = procs.get(role)
        if proc is None:
            continue
        for field in ("docker_command", "docker_argv"):
            mine = jsval.to_json_value(list(getattr(proc, field) or ()) if field.endswith(
                "argv") else getattr(proc, field))
            if mine != theirs[field]:
                diffs.append(f"{role} {field}: {mine!r} != {theirs[field]!r}")
    if jsval.to_json_value(rendered.docker_image) != extra["docker_image"]:
        diffs.append(f"docker_image: {rendered.docker_image!r} != {extra['docker_image']!r}")
    picker_failed = any("cannot list the hardware" in p.message for p in rendered.problems)
    picker = ({"error": ""} if picker_failed else
              {"ok": list(rendered.compatible_hardware)})
    default = {"error": ""} if picker_failed else {"ok": rendered.default_hardware}
    try:
        recommended: dict[str, Any] = {"ok": recommend_strategy(data, None, case["nodes"])}
    except jsval.JsTypeError:
        recommended = {"error": ""}
    for name, mine in (("picker", picker), ("default_hardware", default),
                       ("recommended", recommended)):
        theirs = extra[name]
        if ("error" in theirs) != ("error" in mine) or mine.get("ok") != theirs.get("ok"):
            diffs.append(f"{name}: {mine!r} != {theirs!r}")
    return diffs


def _differential(site: Path, root: Path, wanted: int, seed: int,
                  recipe_filter: str = "") -> tuple[str, int, list[str], float, float]:
    rng = random.Random(seed)
    ctx = local_context(root)
    strategies = site_strategies(ctx)
    names = sorted(strategies)
    recipes = {}
    for path in sorted(ctx.recipe_paths):
        if recipe_filter in path:
            doc = load_yaml((root / path).read_bytes(), path)
            if doc.ok:
                recipes[path] = doc
    paths = sorted(recipes)
    cases = []
    for _ in range(wanted):
        path = rng.choice(paths)
        cases.append(random_case(rng, path, recipes[path].data, ctx, names))
    start = time.perf_counter()
    oracle = run_oracle(site, root, cases)
    node_seconds = time.perf_counter() - start
    docs = {d.path: d for d in [*ctx.context_documents(), *recipes.values()]}
    failures: list[str] = []
    equal = errors_both = 0
    start = time.perf_counter()
    for case, want in zip(cases, oracle, strict=True):
        doc = recipes[case["path"]]
        rendered = render(doc, ctx.taxonomy, strategies, _config(case))
        diffs = compare(case, want, doc.data, ctx, strategies, rendered)
        diffs += provenance_errors(rendered, docs) if rendered.ok else []
        if diffs:
            failures.append(f"{json.dumps(case)}\n    " + "\n    ".join(diffs[:5]))
        else:
            equal += 1
            errors_both += "error" in want
    omni = sum(1 for c in cases if c.get("omni"))
    summary = (f"configurations={len(cases)} equal={equal} (site throws, we match: "
               f"{errors_both}; vLLM-Omni commands: {omni})")
    return summary, errors_both, failures, node_seconds, time.perf_counter() - start


@pytest.mark.corpus
@pytest.mark.slow
def test_mutated_recipes_render_as_the_site_does(
        site_dir: Path, corpus_main_tree: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Recipes of main with odd values injected (written as JSON, which is YAML 1.2): the
    JS semantics of the port (truthiness, spreading strings, numbers among arguments,
    ``String()`` of numbers and objects, throws) against the real thing."""
    seed = _seed()
    rng = random.Random(seed ^ 0x5EED)
    root = tmp_path / "tree"
    shutil.copytree(corpus_main_tree, root)
    sources = sorted((root / "models").rglob("*.yaml"))
    (root / "models" / "fuzz").mkdir()
    for index in range(150):
        original = load_yaml(rng.choice(sources).read_bytes(), "x").data
        mutated = mutate(rng, original, rng.randint(1, 3))
        (root / "models" / "fuzz" / f"m{index:03}.yaml").write_text(json.dumps(mutated))
    total = int(os.environ.get("RC_RENDER_MUTATED_CASES", 1000))
    summary, both, failures, node_s, py_s = _differential(site_dir, root, total, seed,
                                                          "fuzz/")
    with capsys.disabled():
        print(f"\n[differential, mutated recipes] seed={seed} {summary} node={node_s:.2f}s "
              f"python={py_s:.2f}s")
    assert not failures, (f"seed {seed}: {len(failures)} of {total} configurations "
                          "differ:\n" + "\n".join(failures[:10]))
    assert both > 0  # the mutations do reach the renderer's throws


@pytest.mark.corpus
@pytest.mark.slow
def test_random_configurations_render_as_the_site_does(
        site_dir: Path, corpus_main_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed, wanted = _seed(), _cases_wanted()
    summary, _, failures, node_seconds, python_seconds = _differential(
        site_dir, corpus_main_tree, wanted, seed)
    with capsys.disabled():
        print(f"\n[differential] seed={seed} (RC_RENDER_SEED) {summary} "
              f"node={node_seconds:.2f}s python={python_seconds:.2f}s")
    assert not failures, (f"seed {seed}: {len(failures)} of {wanted} configurations "
                          "differ:\n" + "\n".join(failures[:10]))
    assert wanted >= 2000 or "RC_RENDER_CASES" in os.environ
