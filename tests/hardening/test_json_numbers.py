"""Numbers JSON cannot hold (issue 30, items 13 and 15): ``.nan``, ``.inf`` and an integer
past the largest double are ``YAML014`` at their line; ``record``, ``publish`` and
``render --api-out`` write strict JSON (``null`` for them), never ``NaN`` or
``Infinity``, and never a traceback."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cli_in_process import run_cli
from tests.render.tiny_tree import commit_tree, write_tree
from validator.source.snapshots import LOCK_NAME

HERE = Path(__file__).resolve().parent
"""Runs start here (the folder of runs in a process of their own before, where no
``validator`` package lies)."""
REPO = "acme/recipes"
RECIPE = "models/acme/Tiny-1B.yaml"
HUGE = "1" + "0" * 400


def run(*args: str | Path, cwd: Path = HERE) -> subprocess.CompletedProcess[str]:
    """``recipe-check ARGS`` in this process (:mod:`tests.cli_in_process`): these tests
    pin what the command writes, prints and returns, not the process."""
    return run_cli(*args, cwd=cwd)


def strict(text: str) -> Any:
    """``text`` parsed as strict JSON: ``NaN``, ``Infinity`` and ``-Infinity`` refused."""
    def refuse(name: str) -> None:
        raise ValueError(f"not JSON: {name}")
    return json.loads(text, parse_constant=refuse)


def hostile_tree(root: Path) -> tuple[Path, dict[str, int]]:
    """The tiny tree with a NaN, an infinity and a 401-digit integer in its recipe; the
    line of each."""
    write_tree(root)
    recipe = root / RECIPE
    text = recipe.read_text()
    for old, new in (("    vram_minimum_gb: 60\n", "    vram_minimum_gb: .nan\n"),
                     ("    vram_minimum_gb: 700\n", f"    vram_minimum_gb: {HUGE}\n"),
                     ("  title: Tiny\n", "  title: Tiny\n  rating: -.inf\n"),
                     ("model_id: /models/tiny-nvfp4", "model_id: acme/Tiny-1B-NVFP4")):
        assert old in text
        text = text.replace(old, new, 1)
    recipe.write_text(text)
    lines = text.splitlines()
    at = {name: next(n for n, t in enumerate(lines, 1) if t.endswith(value))
          for name, value in (("nan", ": .nan"), ("huge", HUGE), ("inf", ": -.inf"))}
    return root, at


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int], str]:
    root, at = hostile_tree(tmp_path_factory.mktemp("t") / "recipes")
    return root, at, commit_tree(root)


def test_check_reports_each_number_json_cannot_hold_at_its_line(
        tree: tuple[Path, dict[str, int], str]) -> None:
    root, at, _ = tree
    done = run("check", "--no-cache", "--format", "json", RECIPE, cwd=root)
    report = strict(done.stdout)
    found = {(f["line"], f["message"].split(";")[0]) for d in report["documents"]
             for f in d["findings"] if f["rule"] == "YAML014"}
    assert found == {
        (at["nan"], "`.nan` is NaN"), (at["inf"], "`-.inf` is -Infinity"),
        (at["huge"], "`100000000000…000000` (401 characters) is beyond the largest "
                     "double: js-yaml (the recipes site) reads it as Infinity")}, found


@pytest.mark.parametrize("attestation", [False, True])
def test_record_is_strict_json_with_null_and_the_finding_at_the_line(
        tree: tuple[Path, dict[str, int], str], tmp_path: Path, attestation: bool) -> None:
    root, at, commit = tree
    done = run("record", f"{REPO}@{commit}:{RECIPE}", "--git-url", root, "--cache-dir",
               tmp_path / "cache", "--checked-on", "2026-12-01",
               *(["--attestation"] if attestation else []))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    record = strict(done.stdout)
    record = record["predicate"] if attestation else record
    options = {o["variant"]: o["declared_planning_minimum_gb"]
               for o in record["deployment_options"]}
    assert options["default"] is None and options["fp8"] is None
    lines = {f["line"] for f in record["validation"]["findings"] if f["rule"] == "YAML014"}
    assert lines == set(at.values())
    assert not [f for f in record["facts"] if f["pointer"].endswith("/vram_minimum_gb")]


def test_publish_writes_strict_json_and_no_traceback(
        tree: tuple[Path, dict[str, int], str], tmp_path: Path) -> None:
    root, _, commit = tree
    store = tmp_path / "store"
    fetched = run("fetch", f"{REPO}@{commit}:{RECIPE}", "--git-url", root, "--cache-dir",
                  tmp_path / "cache", "--snapshot-dir", store)
    assert fetched.returncode == 0, fetched.stderr
    out = tmp_path / "out"
    done = run("publish", "--lock", store / LOCK_NAME, "--out", out, "--checked-on",
               "2026-12-01", "--attestation")
    assert done.returncode == 0, done.stderr
    assert "1 written" in done.stdout and "Traceback" not in done.stderr
    written = [p for p in out.rglob("*.json") if p.is_file()]
    assert len(written) >= 4  # record, statement, schema, index
    for file in written:
        strict(file.read_text())


def test_api_out_writes_an_integer_past_the_largest_double_as_null(
        tree: tuple[Path, dict[str, int], str], tmp_path: Path) -> None:
    """js-yaml reads it as Infinity and JSON.stringify writes null: so do we."""
    root, _, _ = tree
    out = tmp_path / "api"
    done = run("render", "--api-out", out, root / "models")
    assert done.returncode == 0, done.stderr
    recipe = strict((out / "acme/Tiny-1B.json").read_text())
    assert recipe["variants"]["fp8"]["vram_minimum_gb"] is None
    assert recipe["variants"]["default"]["vram_minimum_gb"] is None


def test_record_of_a_nan_alone_is_strict_json(tmp_path: Path) -> None:
    """``.nan`` (no overflow on the way): the record once held a bare ``NaN``."""
    root = write_tree(tmp_path / "recipes")
    recipe = root / RECIPE
    recipe.write_text(recipe.read_text().replace("    vram_minimum_gb: 60\n",
                                                 "    vram_minimum_gb: .nan\n", 1))
    commit_tree(root)
    done = run("record", f"{REPO}@HEAD:{RECIPE}", "--git-url", root, "--cache-dir",
               tmp_path / "cache", "--checked-on", "2026-12-01")
    assert done.returncode == 0, done.stderr
    record = strict(done.stdout)
    assert [o["declared_planning_minimum_gb"] for o in record["deployment_options"]
            if o["variant"] == "default"] == [None]
