"""A configuration file nested a thousand levels deep (arrays, inline tables) is a usage
error naming the file and line, exit 2 -- in ``check``, ``pr`` and ``history``, as
``.recipe-check.toml`` or inside ``pyproject.toml`` -- never a ``RecursionError``
traceback; run through the CLI (its main, in the test process) on a real git repository."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_in_process import run_cli
from validator.config import MAX_TOML_NESTING, parse_config

PROJECT = Path(__file__).resolve().parents[1]
EXAMPLES = PROJECT / "examples" / "recipes"
DEEP = "x = " + "[" * 1000 + "]" * 1000 + "\n"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=True).stdout.strip()


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command in this process (:func:`tests.cli_in_process.run_cli`): what is pinned
    is its exit code and message, not the process; an uncaught ``RecursionError`` would
    fail the test as it is raised."""
    return run_cli(*args, cwd=cwd)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    dest = tmp_path / "repo"
    shutil.copytree(EXAMPLES, dest)
    _git(tmp_path, "init", "-q", "-b", "main", str(dest))
    _git(dest, "add", "-A")
    _git(dest, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q",
         "-m", "base")
    return dest


@pytest.mark.parametrize(("name", "text"), [
    (".recipe-check.toml", DEEP),
    ("pyproject.toml", "[tool.other]\n" + DEEP),
    ("pyproject.toml", "[tool.recipe-check]\nselect = " + "{a = " * 500 + "1" + "}" * 500 + "\n"),
], ids=["recipe-check.toml", "pyproject-other-table", "pyproject-inline-tables"])
def test_a_deeply_nested_config_is_a_usage_error_in_check_pr_and_history(
        repo: Path, name: str, text: str) -> None:
    (repo / name).write_text(text, "utf-8")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q",
         "-m", "deep config")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q",
         "--allow-empty", "-m", "a change on top (pr reads the base's configuration)")
    for args in (["check", "--offline", "models/"],
                 ["pr", "--offline", "--base", "HEAD~1", "--head", "HEAD"],
                 ["history"]):
        done = _cli(*args, cwd=repo)
        assert done.returncode == 2, (args, done.stdout, done.stderr[-2000:])
        assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
        assert name in done.stderr and f"nested deeper than {MAX_TOML_NESTING}" in \
            done.stderr, (args, done.stderr[-2000:])


def test_the_bound_is_the_same_whatever_the_recursion_limit() -> None:
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(100_000)
        with pytest.raises(Exception, match="nested deeper than"):
            parse_config(DEEP.encode(), ".recipe-check.toml")
    finally:
        sys.setrecursionlimit(limit)
    ok = parse_config(b'[tool.recipe-check]\nselect = ["REF", "FLAG"]  # [[[\n'
                      b'[tool.other]\nv = "{{{[[["\n', "pyproject.toml")
    assert ok is not None and ok.select == ("REF", "FLAG")


@pytest.mark.parametrize("text", ['[tool.recipe-check]\nselect = [""]\n',
                                  '[tool.recipe-check]\nignore = ["REF018", " "]\n'])
def test_an_empty_rule_id_in_a_config_is_named_empty(text: str) -> None:
    with pytest.raises(Exception, match="an empty rule id") as caught:
        parse_config(text.encode(), "pyproject.toml")
    assert "unknown rule or family" not in str(caught.value)
