"""The vLLM CLI registries a check uses never come from the cache folder: they are shipped
in the package (:mod:`validator.vllm_cli.compact`), so a run with ``--cache-dir`` writes
no ``vllm-cli/`` part and an entry planted there, even one stamped with the folder's own
secret, changes no verdict (trial 8 #2: a re-hashed entry adding a made-up option made
FLAG001 disappear). ``cache info`` lists and ``cache clean`` removes a ``vllm-cli/`` part
an earlier version left; ``--no-cache`` writes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from validator.cache import ResultCache
from validator.cli import main

PROJECT = Path(__file__).resolve().parents[2]
RECIPE = "models/example-org/Example-Chat-8B.yaml"
PART = "vllm-cli"  # the part earlier versions kept, as the README names it
LABEL = "compact"
FAKE = "--totally-fake-flag"
_KEYS = ("strings", "dest", "takes_value", "nargs", "choices", "is_json", "negatable",
         "deprecated", "help", "default", "hidden", "json_takes_string", "parses_json")


@pytest.fixture()
def tree(examples_tree: Path) -> Path:
    """The example recipes with one recipe passing an option no vLLM release has."""
    recipe = examples_tree / RECIPE
    text = recipe.read_text("utf-8")
    recipe.write_text(text.replace('    - "32768"\n', f'    - "32768"\n    - "{FAKE}"\n'
                                   '    - "1"\n', 1), "utf-8")
    return examples_tree


def _check(tree: Path, xdg: Path, *options: str) -> list[str]:
    """The rules ``check`` of the recipe reports, in a process of its own."""
    run = subprocess.run([sys.executable, "-m", "validator", "check", "--offline", "--format",
                          "json", *options, RECIPE], cwd=tree, capture_output=True,
                         text=True, timeout=300,
                         env={"PYTHONPATH": str(PROJECT), "PATH": "/usr/bin:/bin",
                              "XDG_CACHE_HOME": str(xdg), "RECIPE_CHECK_PROGRESS": "off"})
    assert run.returncode in (0, 1), run.stderr
    return [f["rule"] for d in json.loads(run.stdout)["documents"] for f in d["findings"]]


def _plant(cache: Path) -> None:
    """An entry of the ``vllm-cli/`` part in the form earlier versions read, holding every
    vendored release with the fake option, stamped with the folder's own secret."""
    from validator.vllm_cli import registry as reg

    option = dict.fromkeys(_KEYS)
    option.update(strings=[FAKE], dest="fake", takes_value=True, is_json=False,
                  negatable=False, deprecated=False, help="x", hidden=False,
                  parses_json=False)
    pins = dict(reg._index(reg.DEFAULT_REGISTRY_DIR.resolve()))
    data = {"format": "recipe-check/vllm-cli-compact/v1", "options": [option],
            "pins": pins, "releases": {v: {"sha256": pin, "doc": {"options": [0]}}
                                       for v, pin in pins.items()}}
    ResultCache(cache / PART, owner=cache, fast=True).put("ab" * 32, {LABEL: data})


def test_a_check_with_a_cache_folder_keeps_no_cli_data_and_reads_none_planted(
        tree: Path, tmp_path: Path) -> None:
    cache, xdg = tmp_path / "cache", tmp_path / "xdg"
    assert "FLAG001" in _check(tree, xdg, "--cache-dir", str(cache))
    assert not (cache / PART).exists()  # was: the derived data, one entry
    _plant(cache)
    for other in ("results", "runs", "claims"):  # so that the registries are read again
        for entry in (cache / other).rglob("*.json"):
            entry.unlink()
    assert "FLAG001" in _check(tree, xdg, "--cache-dir", str(cache))


def test_no_cache_writes_no_cache_folder(tree: Path, tmp_path: Path) -> None:
    xdg = tmp_path / "xdg"
    _check(tree, xdg, "--no-cache", "--cache-dir", str(tmp_path / "other"))
    assert not (xdg / "recipe-check").exists() and not (tmp_path / "other").exists()


def test_cache_info_lists_and_cache_clean_removes_a_cli_part_left_by_an_earlier_version(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = tmp_path / "cache"
    _check(tree, tmp_path / "xdg", "--cache-dir", str(cache))  # tags the folder as a cache
    _plant(cache)
    assert main(["cache", "info", "--cache-dir", str(cache)]) == 0
    assert (f"{cache / PART}: vLLM CLI registries derived by an earlier version (unused), "
            in capsys.readouterr().out)
    assert main(["cache", "clean", "--cache-dir", str(cache)]) == 0
    assert f"removed {cache / PART}" in capsys.readouterr().out
    assert not (cache / PART).exists()
