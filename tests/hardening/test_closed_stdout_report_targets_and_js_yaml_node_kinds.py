"""Hostile input found by trial 10 (a new user's run, then input no earlier hardening test
tried): each was a traceback, a silent pass of a file the recipes site refuses, or a
report lost without a word; each is now a finding or a usage error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_in_process import run_cli
from validator.cli import main
from validator.load import load_yaml

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLES = PROJECT / "examples" / "recipes"
RECIPE = "models/example-org/Example-Chat-8B.yaml"


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    return root


def _cli(args: list[str], cwd: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """``python -m validator ARGS`` as a process of its own, for the tests about the
    process (its closed stdout); the others run the command in this process
    (:func:`tests.cli_in_process.run_cli`)."""
    env = dict(os.environ, PYTHONPATH=str(PROJECT))
    kwargs.setdefault("stdout", subprocess.PIPE)
    proc: subprocess.CompletedProcess[str] = subprocess.run(
        [sys.executable, "-m", "validator", *args], cwd=cwd, env=env, stderr=subprocess.PIPE,
        text=True, timeout=120, check=False, **kwargs)  # type: ignore[call-overload]
    return proc


@pytest.mark.parametrize("args", [[RECIPE], ["render", RECIPE], ["rules"], ["--version"]])
def test_a_closed_stdout_is_a_usage_error_not_a_traceback(tree: Path, args: list[str]) -> None:
    # ``recipe-check ... >&-``: the interpreter starts with sys.stdout None
    proc = _cli(args, tree, stdout=subprocess.DEVNULL, preexec_fn=lambda: os.close(1))
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 2
    assert "standard output is closed" in proc.stderr


def test_a_closed_stdout_does_not_stop_a_run_writing_to_a_file(tree: Path) -> None:
    out = tree / "findings.json"
    proc = _cli([RECIPE, "--format", "json", "--output", str(out)], tree,
                stdout=subprocess.DEVNULL, preexec_fn=lambda: os.close(1))
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 0 and '"documents"' in out.read_text()


@pytest.mark.parametrize(("text", "column"), [
    ("a: !!str {}\n", 4), ("a: !!str {A: b}\n", 4), ("a: !!seq {A: b}\n", 4),
    ("a: !!map []\n", 4), ("a: !!map bf16\n", 4), ("a: !!seq bf16\n", 4),
    ("a: !!str\n  - x\n", 4), ("a: !!set [a]\n", 4), ("a: !!omap {a: 1}\n", 4),
    ("a: !!int {}\n", 4), ("!!str\na: 1\n", 1), ("a: {!!merge x: 1}\n", 5),
    ("a: !!merge x\n", 4), ("a: {<<: x, b: 1}\n", 9), ("a: {<<: [x], b: 1}\n", 10),
    ("a: {<<: [{c: 1}, 5], b: 1}\n", 18), ("a: {<<: null, b: 1}\n", 9),
])
def test_what_js_yaml_refuses_for_its_node_kind_is_yaml008(text: str, column: int) -> None:
    # each of these makes js-yaml 4 throw ("unknown tag", "cannot merge mappings",
    # "cannot resolve a node with !<...merge> explicit tag"): the site cannot build the file
    doc = load_yaml(text.encode(), "x.yaml")
    assert [(f.rule, f.line, f.column) for f in doc.findings] == [("YAML008", 1, column)]


@pytest.mark.parametrize("text", [
    "a: ! bf16\n", "a: ! {A: '1'}\n", "a: !<tag:yaml.org,2002:str> bf16\n",
    "a: !!set {x, y}\n", "a: !!omap [{a: 1}]\n", "a: !!merge <<\n",
    "a: {!!merge <<: {c: 1}}\n", "b: &b {x: 1}\nc: {<<: [*b, {y: 2}]}\n",
    "a: {<<: 2024-01-01}\n",
])
def test_tags_and_merges_js_yaml_accepts_are_not_findings(text: str) -> None:
    assert load_yaml(text.encode(), "x.yaml").findings == []


def test_a_wrong_kind_tag_in_a_recipe_fails_the_check(tree: Path) -> None:
    file = tree / RECIPE
    file.write_text(file.read_text().replace("base_env: {}", "base_env: !!str {}", 1))
    proc = run_cli(RECIPE, cwd=tree)
    assert proc.returncode == 1, proc.stdout
    assert f"{RECIPE}:27:13: error YAML008 `!!str` on a mapping" in proc.stdout


def test_a_file_named_twice_is_checked_and_counted_once(tree: Path) -> None:
    moe = "models/example-org/Example-MoE-120B.yaml"
    once = run_cli("models/", cwd=tree)
    for args in ([moe, moe], ["models/", moe], ["models/", f"./{moe}", str(tree / moe)]):
        proc = run_cli(*args, cwd=tree)
        assert proc.returncode == 1
        last = proc.stdout.strip().splitlines()[-1]
        if args[0] == "models/":
            assert last == once.stdout.strip().splitlines()[-1], args
        else:
            assert last.startswith("1 file(s) checked:"), (args, last)
        assert proc.stdout.count("error REF004 hardware id 'h20'") == 1, args


@pytest.mark.parametrize("options", [
    ["--format", "json", "--output", "x.out", "--sarif", "x.out"],
    ["--sarif", "x.out", "--json", "./x.out"],
    ["--json", "x.json", "--summary", "{tree}/x.json"],
])
def test_two_reports_into_one_file_is_a_usage_error(tree: Path, options: list[str]) -> None:
    proc = run_cli(RECIPE, *(o.format(tree=tree) for o in options), cwd=tree)
    assert proc.returncode == 2 and "are the same file" in proc.stderr, proc.stderr
    assert not list(tree.glob("x.*"))  # refused before anything is written


@pytest.mark.parametrize(("value", "says"), [
    ("newdir/", "ends with '/', so it names a folder"), ("", "an empty file name")])
def test_a_report_file_that_names_a_folder_is_a_usage_error(tree: Path, value: str,
                                                            says: str) -> None:
    proc = run_cli(RECIPE, "--output", value, cwd=tree)
    assert proc.returncode == 2 and says in proc.stderr, proc.stderr
    assert not (tree / "newdir").exists()  # was: a file 'newdir' holding the report


def test_configurations_past_the_limit_are_not_rendered_and_are_yaml007(
        tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # variants x hardware x strategies x feature modes grows without bound (30 profiles,
    # 30 variants, 4 features of 10 modes: 83,886 configurations, 44 s, before); the
    # example recipe renders 3 configurations, so a limit of 2 shows the bound
    monkeypatch.setattr("validator.render.renderer.MAX_CONFIGURATIONS", 2)
    monkeypatch.chdir(tree)
    assert main([RECIPE]) == 1
    out = capsys.readouterr().out
    assert (f"{RECIPE}:1:1: error YAML007 the site renders more than 2 configurations of "
            "this recipe") in out
    assert "recipe-check renders and judges the first 2 only" in out
    assert main(["render", "--all", RECIPE]) == 1
    captured = capsys.readouterr()
    assert captured.out.count("\n# models/") + captured.out.startswith("# models/") == 2
    assert "more than 2 configurations" in captured.err and "Traceback" not in captured.err
    assert main([RECIPE, "--ignore", "YAML007"]) == 0  # governed by ignore like any rule


def test_a_recipe_under_the_limit_has_no_yaml007(tree: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("validator.render.renderer.MAX_CONFIGURATIONS", 3)
    monkeypatch.chdir(tree)
    assert main([RECIPE]) == 0 and "YAML007" not in capsys.readouterr().out
