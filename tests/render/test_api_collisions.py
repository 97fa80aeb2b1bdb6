"""No output of ``render --api-out`` lands on another's (issue 30, item 3): a variant
``model_id`` naming the API's own files, two inputs on one path (also when they differ
only in letter case or Unicode form) are refused naming both sources, nothing is written
and the API written before stays as it was; ``check`` reports what one recipe shows
(``REF017``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli_in_process import run_cli
from tests.render.tiny_tree import write_tree

HERE = Path(__file__).resolve().parent
"""Runs start here (the folder of runs in a process of their own before, where no
``validator`` package lies)."""
TINY = "models/acme/Tiny-1B.yaml"
BROKEN = "models/acme/Broken-1B.yaml"
NVFP4_ID = "    model_id: /models/tiny-nvfp4\n"


def run(*args: str | Path, cwd: Path = HERE) -> subprocess.CompletedProcess[str]:
    """``recipe-check ARGS`` in this process (:mod:`tests.cli_in_process`): these tests
    pin what the command writes, prints and returns, not the process."""
    return run_cli(*args, cwd=cwd)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    """The tiny tree with its nvfp4 variant promoted to an id of its own."""
    root = write_tree(tmp_path / "recipes")
    recipe = root / TINY
    recipe.write_text(recipe.read_text().replace(NVFP4_ID, '    model_id: "acme/Tiny-NV"\n'))
    return root


@pytest.fixture()
def api(tree: Path, tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """An API written from the clean tree, and its files."""
    out = tmp_path / "api"
    done = run("render", "--api-out", out, tree / "models")
    assert done.returncode == 0, done.stderr
    return out, snapshot(out)


def set_nvfp4_id(tree: Path, model_id: str) -> int:
    """Give the nvfp4 variant ``model_id``; the line it is on."""
    recipe = tree / TINY
    text = recipe.read_text().replace('    model_id: "acme/Tiny-NV"\n',
                                      f"    model_id: {json.dumps(model_id)}\n")
    recipe.write_text(text)
    return next(n for n, t in enumerate(text.splitlines(), 1) if json.dumps(model_id) in t)


def ref017_lines(tree: Path, path: str) -> list[int]:
    done = run("check", "--no-cache", "--format", "json", path, cwd=tree)
    return [f["line"] for d in json.loads(done.stdout)["documents"] for f in d["findings"]
            if f["rule"] == "REF017"]


@pytest.mark.parametrize("model_id", ["./taxonomy", "./strategies", "./Models",
                                      "strategies/single_node_tp",
                                      "kv_store/kv_mooncake_test", "quickstart/hx8"])
def test_an_id_naming_the_apis_own_files_is_refused_and_the_api_kept(
        tree: Path, api: tuple[Path, dict[str, bytes]], model_id: str) -> None:
    out, before = api
    line = set_nvfp4_id(tree, model_id)
    done = run("render", "--api-out", out, tree / "models")
    assert done.returncode == 2, done.stderr
    assert f"{TINY}:{line}: model_id {model_id!r} of variant nvfp4" in done.stderr
    assert "refused" in done.stderr and "Traceback" not in done.stderr
    assert snapshot(out) == before
    assert ref017_lines(tree, TINY) == [line]


@pytest.mark.parametrize("model_id", ["ACME/tiny-1b-fp8", "acme/Ｔiny-1B-FP8", "ACME/Tiny-1B",
                                      "acme/Tiny-1B-FP8/hw/hx8"])
def test_two_variants_of_one_recipe_on_one_path_are_refused_naming_both_lines(
        tree: Path, api: tuple[Path, dict[str, bytes]], model_id: str) -> None:
    """fp8 is promoted to acme/Tiny-1B-FP8 (line 23); the recipe is acme/Tiny-1B. An id
    that differs only in letter case or Unicode form is one file on macOS and Windows;
    one inside the other's folder is cleared by it."""
    out, before = api
    line = set_nvfp4_id(tree, model_id)
    done = run("render", "--api-out", out, tree / "models")
    assert done.returncode == 2, done.stderr
    err = done.stderr
    assert "two inputs would write one path of the API" in err, err
    assert f"variant nvfp4's model_id {model_id!r} ({TINY}:{line})" in err
    other = f"the recipe acme/Tiny-1B ({TINY})" if model_id.endswith("1B") else \
        f"variant fp8's model_id 'acme/Tiny-1B-FP8' ({TINY}:23)"
    assert other in err, err
    assert ("letter case" in err) == ("/hw/" not in model_id)
    assert snapshot(out) == before
    if "/hw/" not in model_id:  # check sees one document: ids, not the files under them
        assert ref017_lines(tree, TINY) == [line]


def test_variants_of_one_recipe_naming_the_very_same_id_share_its_page(
        tree: Path, tmp_path: Path) -> None:
    """Upstream recipes promote a checkpoint served in two precisions twice under one id;
    the site writes the later variant's files over the earlier's, and so do we."""
    set_nvfp4_id(tree, "acme/Tiny-1B-FP8")
    done = run("render", "--api-out", tmp_path / "api", tree / "models")
    assert done.returncode == 0, done.stderr
    page = json.loads((tmp_path / "api/acme/Tiny-1B-FP8.json").read_text())
    assert page["meta"]["variant"] == "nvfp4"
    assert ref017_lines(tree, TINY) == []


@pytest.mark.parametrize("model_id", ["acme/Tiny-1B-FP8", "acme/tiny-1B"])
def test_a_variant_of_another_recipe_taking_a_path_is_refused_naming_both_files(
        tree: Path, api: tuple[Path, dict[str, bytes]], model_id: str) -> None:
    out, before = api
    broken = tree / BROKEN
    broken.write_text(broken.read_text().replace(
        "    precision: bf16\n", f"    precision: bf16\n  fp8:\n    precision: fp8\n"
        f"    model_id: {model_id}\n"))
    done = run("render", "--api-out", out, tree / "models")
    assert done.returncode == 2, done.stderr
    err = done.stderr
    assert f"variant fp8's model_id {model_id!r} ({BROKEN}:14)" in err, err
    assert (f"variant fp8's model_id 'acme/Tiny-1B-FP8' ({TINY}:23)" in err
            if model_id.endswith("FP8") else f"the recipe acme/Tiny-1B ({TINY})" in err), err
    assert snapshot(out) == before
