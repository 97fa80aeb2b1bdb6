"""``.pre-commit-hooks.yaml``: the hook's file filter and its entry on real recipes (run as
pre-commit runs it: from the repository root, staged file names as arguments)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import PROJECT


def hook() -> dict[str, object]:
    (only,) = yaml.safe_load((PROJECT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert isinstance(only, dict)
    return only


def test_hook_definition() -> None:
    h = hook()
    assert (h["id"], h["language"], h["files"]) == ("recipe-check", "python",
                                                    r"^models/.*\.ya?ml$")
    pattern = re.compile(str(h["files"]))
    assert pattern.search("models/zai-org/GLM-5.2.yaml")
    assert pattern.search("models/a/b.yml")
    for other in ("taxonomy.yaml", "strategies/single_node_tp.yaml", "models/README.md",
                  "docs/models/x.yaml"):
        assert not pattern.search(other)


@pytest.mark.corpus
def test_hook_entry_checks_the_staged_recipes(corpus_copy: Path) -> None:
    files = ["models/thinkingmachines/Inkling.yaml", "models/Qwen/Qwen3-8B.yaml"]
    proc = subprocess.run([*shlex.split(str(hook()["entry"])), *files], cwd=corpus_copy,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert ("models/thinkingmachines/Inkling.yaml:21:13: error REF001 model_id "
            "'thinkingmachines/Inkling-NVFP4' does not match the file path") in proc.stdout
    assert "2 file(s) checked" in proc.stdout


@pytest.mark.corpus
@pytest.mark.slow
def test_hook_works_when_installed_as_pre_commit_installs_it(corpus_copy: Path,
                                                             tmp_path: Path) -> None:
    src = tmp_path / "hook-repo"
    shutil.copytree(PROJECT, src, ignore=shutil.ignore_patterns(
        ".git", "tests", "*.egg-info", "__pycache__", ".*_cache", "build", "dist", ".venv"))
    venv = tmp_path / "env"
    # without a pip of its own (ensurepip installing one cost 3.6 s of the test's 10 s CPU):
    # the interpreter's pip, seen through the system site-packages, installs into the venv
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                    str(venv)], check=True)
    # a regular (non-editable) install, as pre-commit makes it
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                    "--disable-pip-version-check", str(src)], check=True, timeout=600)
    entry = shlex.split(str(hook()["entry"]))
    proc = subprocess.run([str(venv / "bin" / entry[0]), *entry[1:],
                           "models/thinkingmachines/Inkling.yaml"], cwd=corpus_copy,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "error REF001" in proc.stdout
