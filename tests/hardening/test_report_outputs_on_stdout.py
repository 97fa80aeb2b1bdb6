"""A report file that is standard output under another name (``/dev/stdout``,
``/dev/fd/1``, ``/proc/self/fd/1``, or the very file stdout is redirected to) is refused
beside the text report on stdout like ``-`` is; the job summary the run appends to
``$GITHUB_STEP_SUMMARY`` (``--format github``) and ``--markdown`` naming the same file
are refused like ``--summary F --markdown F`` (real shell and files, exit 2)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLES = PROJECT / "examples" / "recipes"
RECIPE = "models/example-org/Example-Chat-8B.yaml"
CHECK = [sys.executable, "-m", "validator", "check", "--offline", "--no-cache", RECIPE]


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    return root


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    return dict(env, PYTHONPATH=str(PROJECT), **extra)


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_a_name_of_stdout_beside_the_text_report_is_refused_like_dash(
        tree: Path, name: str) -> None:
    proc = subprocess.run([*CHECK, "--json", name], cwd=tree, env=_env(), capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 2, proc.stdout[-300:]
    assert f"the --format report and --json {name} both go to standard output" in proc.stderr


def test_the_file_stdout_is_redirected_to_is_refused_as_a_report_file(
        tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    proc = subprocess.run(f'{" ".join(CHECK)} --json "{out}" > "{out}"', shell=True,
                          cwd=tree, env=_env(), capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 2 and "both go to standard output" in proc.stderr, proc.stderr


def test_a_report_file_on_dev_null_or_another_file_is_still_written(
        tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    proc = subprocess.run(f'{" ".join(CHECK)} --json "{out}" --sarif /dev/null > /dev/null',
                          shell=True, cwd=tree, env=_env(), capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode in (0, 1), proc.stderr
    assert out.read_text("utf-8").startswith("{")


def test_the_step_summary_and_markdown_naming_one_file_are_refused(
        tree: Path, tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    proc = subprocess.run([*CHECK, "--format", "github", "--markdown", str(summary)], cwd=tree,
                          env=_env(GITHUB_STEP_SUMMARY=str(summary)), capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 2, proc.stderr
    assert (f"--markdown {summary} and $GITHUB_STEP_SUMMARY {summary} are the same file"
            in proc.stderr)
    assert not summary.exists()
