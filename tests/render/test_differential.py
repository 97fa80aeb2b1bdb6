"""Randomized differential test: :func:`validator.render.model.render` against the site's
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
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from validator.context import Context, local_context
from validator.load import LoadedDocument, load_yaml
from validator.render import jsval
from validator.render.model import Configuration, Rendered, render, site_strategies
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
    variants = list(data.get("variants") or {}) or ["default"]
    variant = rng.choice(variants) if rng.random() > 0.03 else "no_such_variant"
    profiles = list(ctx.hardware_profiles)
    hardware = rng.choice(profiles) if rng.random() > 0.03 else "no_such_gpu"
    offered = [s for s in data.get("compatible_strategies") or [] if isinstance(s, str)]
    kv_ids = [n for n in names if n.startswith("kv_store")]
    roll = rng.random()
    strategy = rng.choice(offered or names) if roll < 0.7 else rng.choice(names)
    kv_offload: str | None = None
    if rng.random() < 0.2:
        taxonomy_kv = list(((ctx.taxonomy.data if ctx.taxonomy else {}) or {}).get(
            "kv_offload") or {})
        kv_offload = rng.choice(kv_ids + taxonomy_kv + ["no_such_kv"])
    features = list(data.get("features") or {})
    chosen = rng.sample(features, rng.randint(0, len(features))) if features else []
    if rng.random() < 0.05:
        chosen.append("no_such_feature")
    modes: dict[str, str] = {}
    for name in chosen:
        feat = (data.get("features") or {}).get(name)
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
    return {"path": path, "variant": variant, "strategy": strategy, "hardware": hardware,
            "features": chosen, "nodes": nodes, "pd_nodes": pd_nodes, "feature_modes": modes,
            "kv_offload": kv_offload, "kv_instances": kv_instances, "advanced": advanced,
            "docker": True}


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
                         case["kv_instances"], tuple(case["advanced"]))


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
    checks = [("docker_image", jsval.to_json_value(rendered.docker_image), extra["docker_image"]),
              ("picker", list(rendered.compatible_hardware), extra["picker"]),
              ("default_hardware", rendered.default_hardware, extra["default_hardware"])]
    for name, mine, theirs in checks:
        if mine != theirs:
            diffs.append(f"{name}: {mine!r} != {theirs!r}")
    from validator.render.gates import recommend_strategy

    if recommend_strategy(data, None, case["nodes"]) != extra["recommended"]:
        diffs.append("recommended strategy differs")
    return diffs


@pytest.mark.corpus
@pytest.mark.slow
def test_random_configurations_render_as_the_site_does(
        site_dir: Path, corpus_main_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed, wanted = _seed(), _cases_wanted()
    rng = random.Random(seed)
    ctx = local_context(corpus_main_tree)
    strategies = site_strategies(ctx)
    names = sorted(strategies)
    recipes = {}
    for path in sorted(ctx.recipe_paths):
        doc = load_yaml((corpus_main_tree / path).read_bytes(), path)
        if doc.ok:
            recipes[path] = doc
    assert len(recipes) > 100
    paths = sorted(recipes)
    cases = []
    for _ in range(wanted):
        path = rng.choice(paths)
        cases.append(random_case(rng, path, recipes[path].data, ctx, names))
    start = time.perf_counter()
    oracle = run_oracle(site_dir, corpus_main_tree, cases)
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
    python_seconds = time.perf_counter() - start
    with capsys.disabled():
        print(f"\n[differential] seed={seed} (RC_RENDER_SEED) configurations={len(cases)} "
              f"equal={equal} (site throws, we match: {errors_both}) node={node_seconds:.2f}s "
              f"python={python_seconds:.2f}s")
    assert not failures, (f"seed {seed}: {len(failures)} of {len(cases)} configurations "
                          "differ:\n" + "\n".join(failures[:10]))
    assert len(cases) >= 2000 or "RC_RENDER_CASES" in os.environ
