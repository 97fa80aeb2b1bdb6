"""Record files are derived one-to-one from their documents (issue 30, item 3): two
documents whose records would be one file where letter case is ignored are both refused
naming each other, and a document named like publish's own files (a kept older record,
a temporary file) is refused instead of hiding as one."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli_in_process import run_cli
from tests.render.tiny_tree import commit_tree, write_tree
from validator.source.snapshots import LOCK_NAME

HERE = Path(__file__).resolve().parent
"""Runs start here (the folder of runs in a process of their own before, where no
``validator`` package lies)."""
REPO = "acme/recipes"


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``recipe-check ARGS`` in this process (:mod:`tests.cli_in_process`): these tests
    pin what the command writes, prints and returns, not the process."""
    return run_cli(*args, cwd=HERE)


def published(tmp_path: Path, names: list[str]) -> tuple[subprocess.CompletedProcess[str],
                                                         Path, str]:
    """Copies of the tiny recipe under ``names`` in a git repository, fetched and
    published; the run, the output folder and the commit."""
    root = write_tree(tmp_path / "recipes")
    for name in names:
        if name != "Tiny-1B.yaml":
            shutil.copy(root / "models/acme/Tiny-1B.yaml", root / "models/acme" / name)
    commit = commit_tree(root)
    store = tmp_path / "store"
    specs = [f"{REPO}@{commit}:models/acme/{name}" for name in names]
    fetched = run("fetch", *specs, "--git-url", root, "--cache-dir", tmp_path / "cache",
                  "--store-dir", store)
    assert fetched.returncode == 0, fetched.stderr
    out = tmp_path / "out"
    return run("publish", "--lock", store / LOCK_NAME, "--out", out, "--checked-on",
               "2026-12-01"), out, commit


def test_records_one_file_apart_from_letter_case_are_both_refused(tmp_path: Path) -> None:
    done, out, commit = published(tmp_path, ["Tiny-1B.yaml", "tiny-1b.yaml"])
    assert done.returncode == 1, done.stderr
    for mine, other in (("Tiny-1B", "tiny-1b"), ("tiny-1b", "Tiny-1B")):
        assert (f"{REPO}@{commit}:models/acme/{mine}.yaml: its record file and that of "
                f"{REPO}@{commit}:models/acme/{other}.yaml (both in ") in done.stderr
    assert "letter case" in done.stderr and "2 failed" in done.stdout
    assert json.loads((out / "index.json").read_text())["records"] == []
    assert not (out / "records").exists()


@pytest.mark.parametrize(("name", "taken_for"), [
    ("Tiny-1B.yaml@recipe-check-0.1.yaml", "an older tool's kept record"),
    (".Tiny-1B.yaml", "a temporary file")])
def test_a_document_named_like_publishs_own_files_is_refused(
        tmp_path: Path, name: str, taken_for: str) -> None:
    done, out, commit = published(tmp_path, ["Tiny-1B.yaml", name])
    assert done.returncode == 1, done.stderr
    assert (f"{REPO}@{commit}:models/acme/{name}: 'models/acme/{name}': its record would "
            f"be taken for {taken_for} of publish") in done.stderr, done.stderr
    files = [e["file"] for e in json.loads((out / "index.json").read_text())["records"]]
    assert files == [f"records/{REPO}/{commit}/models/acme/Tiny-1B.yaml.json"]
    assert not list(out.rglob(f"{name}.json"))
