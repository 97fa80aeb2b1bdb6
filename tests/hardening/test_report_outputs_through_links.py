"""Two report options naming one file through a link are refused before the run, also
when the file is not there yet (a link to a missing file, a path through a linked
folder): otherwise the second report replaces the first without a word."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli_in_process import run_cli

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLES = PROJECT / "examples" / "recipes"
RECIPE = "models/example-org/Example-Chat-8B.yaml"


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command in this process (:func:`tests.cli_in_process.run_cli`): the tests pin
    its exit code, message and files, not the process."""
    return run_cli(*args, cwd=cwd)


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    return root


def test_a_link_to_a_report_file_not_yet_written_is_the_same_file(tree: Path,
                                                                   tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "flink").symlink_to(out / "f.json")  # dangling: f.json is not there yet
    proc = _cli(["--no-cache", RECIPE, "--json", str(out / "f.json"),
                 "--sarif", str(out / "flink")], tree)
    assert proc.returncode == 2 and "are the same file" in proc.stderr, proc.stderr
    assert not (out / "f.json").exists()  # refused before anything is written


def _linked_out(tmp_path: Path) -> Path:
    """A folder ``out`` holding ``sub``, a link to ``out`` itself."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "sub").symlink_to(out)
    return out


def test_a_report_path_through_a_linked_folder_is_the_same_file(tree: Path,
                                                                 tmp_path: Path) -> None:
    out = _linked_out(tmp_path)
    proc = _cli(["--no-cache", RECIPE, "--json", str(out / "h.json"),
                 "--markdown", str(out / "sub" / "h.json")], tree)
    assert proc.returncode == 2 and "are the same file" in proc.stderr, proc.stderr
    assert not (out / "h.json").exists()


def test_pr_refuses_two_reports_through_a_link_to_a_missing_file(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES, repo)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    (tmp_path / "link").symlink_to(tmp_path / "r.json")
    proc = _cli(["pr", "--base", "HEAD", "--head", "HEAD", "--json", str(tmp_path / "r.json"),
                 "--sarif", str(tmp_path / "link")], repo)
    assert proc.returncode == 2 and "are the same file" in proc.stderr, proc.stderr
    assert not (tmp_path / "r.json").exists()


def test_two_different_report_files_next_to_a_link_are_both_written(tree: Path,
                                                                     tmp_path: Path) -> None:
    out = _linked_out(tmp_path)
    proc = _cli(["--no-cache", RECIPE, "--json", str(out / "a.json"),
                 "--sarif", str(out / "sub" / "b.sarif")], tree)
    assert proc.returncode in (0, 1), proc.stderr
    assert (out / "a.json").exists() and (out / "b.sarif").exists()
