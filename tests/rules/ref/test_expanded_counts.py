"""A count a context file gives and the site expands into one entry each -- a kv-store
deployment's ``default_instances`` (one ``--backend-url`` per instance), a hardware
profile's ``gpu_count`` (one id per GPU in a PD pool's ``CUDA_VISIBLE_DEVICES``) -- is
bounded: past the bound, or when it is no number, the context file gets ``REF014`` at its
own line and the configurations that would expand it are refused with that reason (never a
run that eats the machine's memory, an internal error, or a silent drop)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import line_of
from tests.context_files import KV_STORE, kv_store_text
from tests.render.tiny_tree import taxonomy_with_profiles, write_tree
from validator.cli import main
from validator.context import local_context
from validator.load import load_yaml
from validator.render.configuration import Configuration
from validator.render.counts import COUNT_REFUSED, MAX_EXPANDED
from validator.render.renderer import render, render_each, site_strategies

CHAT = "models/example-org/Example-Chat-8B.yaml"
TINY = "models/acme/Tiny-1B.yaml"


def _findings(root: Path, capsys: pytest.CaptureFixture[str], *paths: str
              ) -> tuple[int, list[tuple[str, str, int]]]:
    code = main(["check", "--offline", "--no-cache", "--format", "json",
                 *(str(root / p) for p in paths)])
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, [(d["path"], f["rule"], f["line"]) for d in doc["documents"]
                  for f in d["findings"]]


def _render_kv(root: Path) -> Any:
    ctx = local_context(root)
    recipe = load_yaml((root / CHAT).read_bytes(), CHAT)
    config = Configuration("h200", strategy="single_node_tp", kv_offload="kv_store_example")
    return render(recipe, ctx.taxonomy, site_strategies(ctx), config)


def _with_instances(root: Path, value: str) -> str:
    (root / "kv_store").mkdir()
    text = kv_store_text() + f"default_instances: {value}\n"
    (root / KV_STORE).write_text(text)
    return text


@pytest.mark.parametrize("value", [str(MAX_EXPANDED + 1), "100000", '"2;touch pwned"'])
def test_an_instance_count_past_the_bound_or_no_number_is_ref014_on_the_kv_store(
        examples_tree: Path, capsys: pytest.CaptureFixture[str], value: str) -> None:
    text = _with_instances(examples_tree, value)
    code, found = _findings(examples_tree, capsys, KV_STORE)
    assert code == 1
    assert (KV_STORE, "REF014", line_of(text, "default_instances")) in found
    rendered = _render_kv(examples_tree)
    assert not rendered.ok
    refused = [p for p in rendered.problems if p.code == COUNT_REFUSED]
    assert [(p.document, p.pointer) for p in refused] == [(KV_STORE, "/default_instances")]
    assert "default_instances" in refused[0].message
    assert not [p for p in rendered.problems if p.code == "internal-error"]


def test_a_checked_recipe_with_it_keeps_its_own_findings_only(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The recipe's configurations that expand the count are not rendered; the finding is
    the kv store's, once, not a copy per recipe."""
    text = _with_instances(examples_tree, "100000")
    _code, found = _findings(examples_tree, capsys, ".")
    ref014 = [f for f in found if f[1] == "REF014"]
    assert ref014 == [(KV_STORE, "REF014", line_of(text, "default_instances"))]


@pytest.mark.parametrize("value", ["1", str(MAX_EXPANDED), '"3"'])
def test_an_instance_count_within_the_bound_renders_one_backend_each(
        examples_tree: Path, capsys: pytest.CaptureFixture[str], value: str) -> None:
    _with_instances(examples_tree, value)
    _code, found = _findings(examples_tree, capsys, KV_STORE)
    assert "REF014" not in [rule for _p, rule, _l in found]
    rendered = _render_kv(examples_tree)
    assert rendered.ok
    router = rendered.site.get("router") or {}
    count = int(json.loads(value) if value.startswith('"') else value)
    assert str(router.get("command", "")).count("--backend-url") == (count if count > 1
                                                                     else 0)


def test_a_gpu_count_past_the_bound_is_ref014_on_the_taxonomy(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taxonomy = examples_tree / "taxonomy.yaml"
    text = taxonomy.read_text()
    start = text.index("  h100:")
    at = text.index("gpu_count: 8", start)
    text = text[:at] + "gpu_count: 100000" + text[at + len("gpu_count: 8"):]
    taxonomy.write_text(text)
    code, found = _findings(examples_tree, capsys, "taxonomy.yaml")
    assert code == 1
    assert ("taxonomy.yaml", "REF014", line_of(text, "gpu_count: 100000")) in found


def test_a_pd_configuration_on_a_profile_of_too_many_gpus_is_refused(tmp_path: Path) -> None:
    """A PD pool pins one id per GPU: past the bound the configuration is refused, at
    the profile's ``gpu_count``; a configuration that does not expand it still renders."""
    root = write_tree(tmp_path / "tiny")
    ctx = local_context(root)
    huge = taxonomy_with_profiles(ctx, {"hx8": {"brand": "NVIDIA", "generation": "hopper",
                                               "gpu_count": 100000, "vram_gb": 640}})
    recipe = load_yaml((root / TINY).read_bytes(), TINY)
    pd, single = render_each(recipe, huge, site_strategies(ctx), [
        Configuration("hx8", strategy="pd_cluster"),
        Configuration("hx8", strategy="single_node_tp")])
    assert not pd.ok
    assert [(p.code, p.document, p.pointer) for p in pd.problems
            if p.code == COUNT_REFUSED] == [
        (COUNT_REFUSED, "taxonomy.yaml", "/hardware_profiles/hx8/gpu_count")]
    assert single.ok
