"""The site's build (Node, the oracle) writes ``quickstart/*.yaml`` to
``quickstart/<hardware_profile>.json`` with ``..`` honoured: over corpus ``main``'s context
files and one of its recipes with quickstart files added, it replaces ``models.json`` and
the recipe's page and writes outside its output folder. ``check`` reports each such file
(``REF028``) and ``render --api-out`` refuses the tree; a file of a hardware id is
written by both builds alike."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import PROJECT, TREE_PARTS, run_site_build

pytestmark = [pytest.mark.corpus, pytest.mark.slow]

BAD = {"a.yaml": "../models", "b.yaml": "../zai-org/GLM-5.2", "c.yaml": "../../ESCAPED"}
RECIPE = "models/zai-org/GLM-5.2.yaml"
"""The one recipe of the tree: a quickstart file writes where the site reads it from its
own path, whatever else the tree holds, so the builds run over the context files and this
recipe (a second each) rather than the whole corpus (some 20 s of Node and of ours)."""


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    return subprocess.run([sys.executable, "-m", "validator", *args], cwd=PROJECT, env=env,
                          capture_output=True, text=True, timeout=900, check=False)


def _tree(corpus_main_tree: Path, dest: Path, files: dict[str, str]) -> Path:
    for part in (*TREE_PARTS, RECIPE):
        source, target = corpus_main_tree / part, dest / part
        if part != "models":
            target.parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if source.is_dir() else shutil.copy2)(source, target)
    (dest / "quickstart").mkdir()
    for name, profile in files.items():
        (dest / "quickstart" / name).write_text(f'hardware_profile: "{profile}"\n'
                                                'note: "from a quickstart file"\n')
    return dest


def test_the_site_writes_quickstart_files_onto_other_outputs_and_both_of_ours_refuse(
        site_dir: Path, corpus_main_tree: Path, tmp_path: Path) -> None:
    tree = _tree(corpus_main_tree, tmp_path / "tree", BAD)
    site = run_site_build(site_dir, tree)
    assert site.ok, site.stderr
    for where in (site.public / "models.json", site.public / "zai-org/GLM-5.2.json",
                  tree / "ESCAPED.json"):  # the oracle: each replaced, or outside public/
        assert json.loads(where.read_text())["note"] == "from a quickstart file", where
    check = _cli("check", "--offline", "--no-cache", "--format", "json", "--select", "REF028",
                 str(tree / "models"))
    assert check.returncode == 1, check.stderr
    found = sorted((d["path"], f["line"]) for d in json.loads(check.stdout)["documents"]
                   for f in d["findings"] if f["rule"] == "REF028")
    assert found == [(f"quickstart/{name}", 1) for name in sorted(BAD)]
    ours = _cli("render", "--api-out", str(tmp_path / "api"), str(tree))
    assert ours.returncode == 2 and "REF028" in ours.stderr, ours.stderr
    assert not (tmp_path / "api").exists()


def test_a_quickstart_file_of_a_hardware_id_is_written_alike_and_passes(
        site_dir: Path, corpus_main_tree: Path, tmp_path: Path) -> None:
    tree = _tree(corpus_main_tree, tmp_path / "tree", {"h100.yaml": "h100"})
    site = run_site_build(site_dir, tree)
    assert site.ok, site.stderr
    ours = _cli("render", "--api-out", str(tmp_path / "api"), str(tree))
    assert ours.returncode == 0, ours.stderr
    assert (tmp_path / "api/quickstart/h100.json").read_bytes() == (
        site.public / "quickstart/h100.json").read_bytes()
    check = _cli("check", "--offline", "--no-cache", "--format", "json", "--select",
                 "REF028,REF029", str(tree / "quickstart/h100.yaml"))
    assert check.returncode == 0, check.stdout
