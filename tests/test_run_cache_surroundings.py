"""A whole ``check`` run replayed from the cache writes what the run would write now, in
the surroundings it runs in now: colour only on a terminal (a real pty) and never under
``NO_COLOR``, rule links to the Action that runs now. The run key and the reporters share
one list of the variables the reporters read
(:data:`validator.report.environment.REPORT_VARIABLES`)."""

from __future__ import annotations

import ast
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from validator.file_digests import FileDigests
from validator.report.environment import REPORT_VARIABLES
from validator.run_cache import ENVIRONMENT, plan_run

PROJECT = Path(__file__).resolve().parents[1]
RUN = """
import sys
from validator.cli import main
code = main()
sys.stdout.flush()
sys.stderr.write("<computed>" if "validator.checker" in sys.modules else "<replayed>")
raise SystemExit(code)
"""
COLOUR = "\x1b[3"  # the severities' ANSI colours (31, 33, 36)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in REPORT_VARIABLES and not k.startswith(("GITHUB_", "RECIPE_CHECK_"))}
    return {**env, "PYTHONPATH": str(PROJECT), **extra}


def _check(root: Path, cache: Path | None, *options: str, tty: bool = False,
           env: dict[str, str] | None = None) -> tuple[str, str]:
    """(stdout, how: computed/replayed) of ``check --offline models/`` in ``root``, its
    standard output a pseudo-terminal when ``tty``; ``cache=None``: ``--no-cache``."""
    where = ["--cache-dir", str(cache)] if cache is not None else ["--no-cache"]
    argv = [sys.executable, "-c", RUN, "check", "--offline", *where, *options, "models/"]
    if not tty:
        done = subprocess.run(argv, cwd=root, env=_env(**(env or {})), capture_output=True,
                              text=True, timeout=300, check=False)
        return done.stdout, done.stderr.rsplit("<", 1)[-1]
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, cwd=root, env=_env(**(env or {})), stdout=slave,
                            stderr=subprocess.PIPE)
    os.close(slave)
    out = b""
    while True:
        try:
            block = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not block:
            break
        out += block
    os.close(master)
    err = proc.communicate(timeout=300)[1].decode()
    return out.decode().replace("\r\n", "\n"), err.rsplit("<", 1)[-1]


def test_colour_recorded_on_a_terminal_is_not_replayed_into_a_file(
        examples_tree: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    on_tty, how = _check(examples_tree, cache, tty=True)
    assert COLOUR in on_tty and how == "computed>"
    assert _check(examples_tree, cache, tty=True)[1] == "replayed>"
    to_file, how = _check(examples_tree, cache)
    assert COLOUR not in to_file and how == "computed>"
    assert to_file == _check(examples_tree, None)[0]
    assert _check(examples_tree, cache) == (to_file, "replayed>")


def test_no_color_on_a_terminal_is_obeyed_by_a_replay(examples_tree: Path,
                                                      tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert COLOUR in _check(examples_tree, cache, tty=True)[0]
    plain, how = _check(examples_tree, cache, tty=True, env={"NO_COLOR": "1"})
    assert COLOUR not in plain and how == "computed>"
    assert plain == _check(examples_tree, None, tty=True, env={"NO_COLOR": "1"})[0]


def test_markdown_rule_links_name_the_action_that_runs_now(examples_tree: Path,
                                                           tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _check(examples_tree, cache, "--format", "markdown",
                   env={"GITHUB_ACTION_REPOSITORY": "first/action",
                        "GITHUB_ACTION_REF": "v1"})[0]
    assert "https://github.com/first/action/blob/v1/" in first
    second = {"GITHUB_ACTION_REPOSITORY": "second/action", "GITHUB_ACTION_REF": "v2",
              "GITHUB_SERVER_URL": "https://git.example"}
    cached, how = _check(examples_tree, cache, "--format", "markdown", env=second)
    assert how == "computed>" and "https://git.example/second/action/blob/v2/" in cached
    assert "first/action" not in cached
    assert cached == _check(examples_tree, None, "--format", "markdown", env=second)[0]


@pytest.mark.parametrize("name", REPORT_VARIABLES)
def test_the_run_key_changes_with_every_variable_a_reporter_reads(
        name: str, examples_tree: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(examples_tree)
    for other in REPORT_VARIABLES:
        monkeypatch.delenv(other, raising=False)
    args = ["--offline", "--cache-dir", str(tmp_path / "cache"), "models/"]
    unset = plan_run(args, FileDigests())
    monkeypatch.setenv(name, "1")
    one = plan_run(args, FileDigests())
    monkeypatch.setenv(name, "2")
    two = plan_run(args, FileDigests())
    assert unset is not None and one is not None and two is not None
    assert len({unset.key, one.key, two.key}) == 3
    assert name in ENVIRONMENT


def _environment_reads(tree: ast.AST) -> tuple[list[str], list[int]]:
    """(names read from an environment mapping, lines that touch ``os.environ`` or
    ``os.getenv``) in ``tree``: a constant key of ``<env>.get``, ``<env>[...]`` or
    ``... in <env>``, where ``<env>`` is a name or attribute spelled ``env``/``environ``."""
    def is_env(node: ast.AST) -> bool:
        return (isinstance(node, ast.Name) and node.id in ("env", "environ")) or \
            (isinstance(node, ast.Attribute) and node.attr in ("env", "environ"))

    names, direct = [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv") and \
                isinstance(node.value, ast.Name) and node.value.id == "os":
            direct.append(node.lineno)
        key = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "get" and is_env(node.func.value) and node.args:
            key = node.args[0]
        elif isinstance(node, ast.Subscript) and is_env(node.value):
            key = node.slice
        elif isinstance(node, ast.Compare) and any(is_env(c) for c in node.comparators):
            key = node.left
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            names.append(key.value)
    return names, direct


def test_reporters_read_only_the_declared_variables_through_one_function() -> None:
    report = PROJECT / "validator" / "report"
    undeclared, direct = [], []
    for file in sorted(report.glob("*.py")):
        if file.name == "environment.py":
            continue
        names, lines = _environment_reads(ast.parse(file.read_text("utf-8")))
        undeclared += [f"{file.name}: {n}" for n in names if n not in REPORT_VARIABLES]
        direct += [f"{file.name}:{line}" for line in lines]
    assert not direct, "read the environment with report_environment(): " + ", ".join(direct)
    assert not undeclared, "add to REPORT_VARIABLES: " + ", ".join(undeclared)
    found = _environment_reads(ast.parse((report / "markdown.py").read_text("utf-8")))[0]
    assert "GITHUB_ACTION_REF" in found  # the scan sees the reads it guards
