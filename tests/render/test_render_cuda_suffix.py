"""The CUDA build the recipes site's record page lets a reader pick applies to every NVIDIA
image, not only to a CUDA map: a plain tag takes ``-cu129`` (an upstream ``:nightly``
becomes ``:cu129-nightly``), the nightly wheels of the install take that build, and
``render --cuda`` works with ``--all`` and ``--api-out``.

The parity test runs the page's own step (the docker-image memo of the site's
``CommandBuilder.jsx``, taken from the file as written, over the site's
``computeDockerMeta``) under Node. That file is not part of ``../shared/corpus/site`` (which
holds the site's build and command synthesis only): the test reads it there, or from a
checkout of ``vllm-project/recipes`` at upstream ``8959cf64`` named by
``$RECIPES_SITE_SOURCE``, and is skipped, saying so, when neither has it."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli_in_process import run_cli
from tests.render.conftest import SITE
from validator.render.docker import compute_docker_meta, cuda_choice, cuda_tag, synthesize_install

PAGE = Path("src") / "components" / "recipes" / "CommandBuilder.jsx"
PAGE_SHA256 = "311b24e8268412196b8cfe9baae23875bbec28893a1ef0d1c6a859ab77c01623"
"""``CommandBuilder.jsx`` at upstream ``8959cf64189c71d36e11c6a30335f923f261b1f7``, the
commit the corpus bundle's ``main`` and the site oracle's two files are from."""
ORACLE = Path(__file__).parent / "oracle" / "cuda_toggle.mjs"

PROFILES: dict[str, dict[str, Any]] = {
    "hx8": {"brand": "NVIDIA", "generation": "hopper", "gpu_count": 8},
    "amx8": {"brand": "AMD", "generation": "amd", "gpu_count": 8},
    "tpux4": {"brand": "Google", "generation": "tpu", "gpu_count": 4},
    "xpux8": {"brand": "Intel", "generation": "xpu", "gpu_count": 8},
    "cpu1": {"brand": "Intel", "generation": "cpu", "gpu_count": 1},
}
IMAGES: list[Any] = [
    None, "vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:nightly", "vllm/vllm-openai-rocm:nightly",
    "vllm/vllm-tpu:nightly", "vllm/vllm-openai:myrelease-nightly", "vllm/vllm-openai:nightly\n",
    "vllm/vllm-openai:nightly-abc123", "", 5, {}, {"nvidia": "acme/serve:1", "amd": "acme/rocm:1"},
    {"amd": "acme/rocm:1"}, {"cu129": "acme/a:cu129", "cu130": "acme/a:cu130"},
    {"cu130": "acme/a:only"}, {"cu129": ""}, {"nvidia": {"cu129": "n:9", "cu130": "n:13"}},
]
"""``model.docker_image`` values: none, plain tags (release, upstream nightlies of each
brand, look-alikes, a trailing line break), not a tag, brand maps and CUDA maps."""


def _recipes() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for image in IMAGES:
        for nightly in (False, True):
            model: dict[str, Any] = {"model_id": "acme/Mini", "nightly_required": nightly}
            if image is not None:
                model["docker_image"] = image
            out.append({"model": model, "variants": {"default": {}}})
    out.append({"model": {"docker_image": "acme/model:1"}, "variants": {"default": {
        "docker_image": {"amd": "acme/rocm:2"},
        "hardware_overrides": {"hx8": {"docker_image": "acme/exact:3"}}}}})
    out.append({"model": {}, "variants": {"default": {"docker_image": "acme/variant:4"}}})
    return out


def _cases(recipes: list[dict[str, Any]], profiles: dict[str, Any]) -> list[dict[str, Any]]:
    cases = []
    for recipe in recipes:
        variants = recipe.get("variants") if isinstance(recipe.get("variants"), dict) else {}
        for key in variants or {"default": None}:
            variant = (variants or {}).get(key) or (variants or {}).get("default") or {}
            for hw, profile in profiles.items():
                cases += [{"recipe": recipe, "variant": variant, "hwProfile": profile,
                           "hwId": hw, "toggle": toggle} for toggle in ("default", "cu129")]
    return cases


def _ours(case: dict[str, Any]) -> Any:
    cuda = "cu130" if case["toggle"] == "default" else case["toggle"]
    return compute_docker_meta(case["recipe"], case["variant"], case["hwProfile"],
                               case["hwId"], cuda).image


def _site_page() -> str:
    """The site's record-page component, checked against :data:`PAGE_SHA256`."""
    folders = [SITE, *([Path(os.environ["RECIPES_SITE_SOURCE"])]
                       if os.environ.get("RECIPES_SITE_SOURCE") else [])]
    for folder in folders:
        path = folder / PAGE
        if path.is_file():
            data = path.read_bytes()
            assert hashlib.sha256(data).hexdigest() == PAGE_SHA256, f"{path}: another version"
            return data.decode("utf-8")
    pytest.skip(f"the site's {PAGE} is in neither {SITE} nor $RECIPES_SITE_SOURCE: the "
                "CUDA toggle's parity with the site's page is not checked")


def _site_images(site_dir: Path, page: str, cases: list[dict[str, Any]]) -> list[Any]:
    done = subprocess.run(["node", str(ORACLE)], input=json.dumps(
        {"site": str(site_dir), "page": page, "cases": cases}, default=str),
        capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return [r.get("ok", r.get("error")) for r in json.loads(done.stdout)]


def _corpus(tree: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    recipes = [yaml.safe_load(p.read_text("utf-8")) for p in sorted(tree.glob("models/*/*.yaml"))]
    profiles = yaml.safe_load((tree / "taxonomy.yaml").read_text("utf-8"))["hardware_profiles"]
    return [r for r in recipes if isinstance(r, dict)], profiles


def test_the_image_of_each_build_is_the_site_page_s(site_dir: Path,
                                                     corpus_main_tree: Path) -> None:
    """Every ``docker_image`` shape above on every kind of hardware, and every variant of
    every corpus recipe on every hardware profile of its taxonomy, with the toggle on
    ``default`` and on ``cu129``: the image we render is the one the site's page shows."""
    page = _site_page()
    recipes, profiles = _corpus(corpus_main_tree)
    cases = _cases(_recipes(), PROFILES) + _cases(recipes, profiles)
    want = _site_images(site_dir, page, cases)
    got = [_ours(json.loads(json.dumps(c, default=str))) for c in cases]
    wrong = [(c["recipe"].get("model"), c["hwId"], c["toggle"], w, g)
             for c, w, g in zip(cases, want, got, strict=True) if w != g]
    assert wrong == []
    assert sum(1 for c, g in zip(cases, got, strict=True)
               if c["toggle"] == "cu129" and str(g).endswith("-cu129")) > 1000


@pytest.mark.parametrize("image,cu129", [
    ("vllm/vllm-openai:latest", "vllm/vllm-openai:latest-cu129"),
    ("vllm/vllm-openai:v0.23.0", "vllm/vllm-openai:v0.23.0-cu129"),
    ("vllm/vllm-openai:nightly", "vllm/vllm-openai:cu129-nightly"),
    ("vllm/vllm-openai-rocm:nightly", "vllm/vllm-openai-rocm:cu129-nightly"),
    ("vllm/vllm-openai:myrelease-nightly", "vllm/vllm-openai:myrelease-nightly-cu129"),
    ("vllm/vllm-openai:nightly\n", "vllm/vllm-openai:nightly\n-cu129"),
])
def test_a_plain_tag_takes_the_build_as_the_site_page_writes_it(image: str,
                                                                 cu129: str) -> None:
    assert cuda_tag(image, "cu129") == cu129 and cuda_tag(image, "cu130") == image


def test_nightly_wheels_and_the_pull_follow_the_build() -> None:
    nightly = {"model": {"min_vllm_version": "0.30.0", "nightly_required": True}}
    base, alt = synthesize_install(nightly), synthesize_install(nightly, "cu129")
    assert base and alt
    assert "nightly/cu130" in base["pip"]["command"] and "whl/cu130" in base["pip"]["command"]
    assert alt["pip"]["command"] == base["pip"]["command"].replace("cu130", "cu129")
    assert base["docker"]["command"] == "docker pull vllm/vllm-openai:latest"
    assert alt["docker"]["command"] == "docker pull vllm/vllm-openai:latest-cu129"
    only = {"model": {**nightly["model"], "docker_image": {"cu130": "acme/a:only"}}}
    pinned = synthesize_install(only, "cu129")
    assert pinned and "nightly/cu130" in pinned["pip"]["command"]  # its one build
    assert pinned["docker"]["command"] == "docker pull acme/a:only"


def _render(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("render", *args, cwd=root)


GLM = "models/zai-org/GLM-5.2.yaml"


def test_render_all_takes_cuda(corpus_main_tree: Path) -> None:
    base = json.loads(_render(corpus_main_tree, GLM, "--all", "--format", "json").stdout)
    done = _render(corpus_main_tree, GLM, "--all", "--cuda", "cu129", "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    alt = json.loads(done.stdout)
    assert [d["config"] for d in alt] == [d["config"] for d in base] and len(base) > 1000
    nvidia = 0
    for was, now in zip(base, alt, strict=True):
        if now["docker_image"] != was["docker_image"]:
            nvidia += 1
            assert now["docker_image"] == cuda_tag(was["docker_image"], "cu129")
            assert now["docker_command"] == was["docker_command"].replace(
                f" {was['docker_image']} ", f" {now['docker_image']} ")
        else:  # AMD and others: unchanged but the install (the NVIDIA image's)
            assert {**now, "install": None} == {**was, "install": None}
        assert now["install"]["docker"]["command"] == (
            f"docker pull {cuda_tag('vllm/vllm-openai:v0.23.0', 'cu129')}")
    assert nvidia > 500


def _pair_images(was: Any, now: Any, out: list[tuple[str, str]]) -> None:
    """The ``docker_image`` pairs at the same places of two API files."""
    if isinstance(was, dict) and isinstance(now, dict):
        if isinstance(was.get("docker_image"), str):
            out.append((was["docker_image"], now["docker_image"]))
        for key in was.keys() & now.keys():
            _pair_images(was[key], now[key], out)
    elif isinstance(was, list) and isinstance(now, list):
        for one, other in zip(was, now, strict=False):
            _pair_images(one, other, out)


def test_api_out_takes_cuda(corpus_main_tree: Path, tmp_path: Path) -> None:
    for cuda in ("cu130", "cu129"):
        done = _render(corpus_main_tree, GLM, "--cuda", cuda, "--api-out",
                       str(tmp_path / cuda))
        assert done.returncode == 0, done.stderr
    files = sorted(p.relative_to(tmp_path / "cu130")
                   for p in (tmp_path / "cu130").rglob("*.json"))
    assert files == sorted(p.relative_to(tmp_path / "cu129")
                           for p in (tmp_path / "cu129").rglob("*.json"))
    images: list[tuple[str, str]] = []
    for rel in files:
        _pair_images(json.loads((tmp_path / "cu130" / rel).read_text("utf-8")),
                     json.loads((tmp_path / "cu129" / rel).read_text("utf-8")), images)
    assert all(now in (was, cuda_tag(was, "cu129")) for was, now in images)
    assert sum(1 for was, now in images if now != was) > 100
    hw = json.loads((tmp_path / "cu129" / "zai-org" / "GLM-5.2" / "hw" / "h200.json")
                    .read_text("utf-8"))
    assert hw["docker_image"] == "vllm/vllm-openai:v0.23.0-cu129"
    amd = json.loads((tmp_path / "cu129" / "zai-org" / "GLM-5.2" / "hw" / "mi355x.json")
                     .read_text("utf-8"))
    assert amd["docker_image"].startswith("vllm/vllm-openai-rocm:nightly-")


@pytest.mark.parametrize("model,hw,offered", [
    ({}, "hx8", True), ({"docker_image": "acme/a:1"}, "hx8", True),
    ({"docker_image": {"cu129": "a:9", "cu130": "a:13"}}, "hx8", True),
    ({"docker_image": {"cu130": "a:13"}}, "hx8", False),  # one build: pinned to it
    ({"install": {"docker": {"command": "docker pull acme/a:1"}}}, "hx8", False),
    ({}, "amx8", False), ({}, "xpux8", False), ({}, "tpux4", False),
])
def test_the_build_is_offered_where_the_site_page_shows_its_toggle(
        model: dict[str, Any], hw: str, offered: bool) -> None:
    recipe = {"model": model}
    meta = compute_docker_meta(recipe, {}, PROFILES[hw], hw)
    assert cuda_choice(recipe, meta) is offered
