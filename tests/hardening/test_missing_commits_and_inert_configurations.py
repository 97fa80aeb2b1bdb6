"""Hostile input of the third trial: revisions that name no commit present in the
repository (a 40-hex id that is not there, a parent a shallow clone does not hold) and
configurations that switch every rule off or are written where nothing reads them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from validator.cli import main

RECIPE = "models/example-org/Example-Chat-8B.yaml"
ABSENT = "0" * 40


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture()
def repo(examples_tree: Path) -> Path:
    """The example tree as a git repository of two commits (the second edits a recipe)."""
    _git(examples_tree, "init", "-q", "-b", "main")
    for key, value in (("user.name", "t"), ("user.email", "t@example.org")):
        _git(examples_tree, "config", key, value)
    _git(examples_tree, "add", "-A")
    _git(examples_tree, "commit", "-q", "-m", "one")
    recipe = examples_tree / RECIPE
    recipe.write_text(recipe.read_text("utf-8").replace('"32768"', '"16384"'), "utf-8")
    _git(examples_tree, "commit", "-q", "-am", "two")
    return examples_tree


@pytest.mark.parametrize("option", ["--base", "--head"])
def test_pr_with_a_full_commit_id_the_repository_lacks_is_a_usage_error(
        repo: Path, option: str, capsys: pytest.CaptureFixture[str]) -> None:
    other = "--head" if option == "--base" else "--base"
    assert main(["pr", "--offline", "--repo", str(repo), option, ABSENT, other, "HEAD"]) == 2
    err = capsys.readouterr().err
    assert f"revision '{ABSENT}' is not a commit of" in err
    assert "Traceback" not in err and "GitCommandError" not in err


def test_pr_on_a_shallow_clone_names_the_missing_parent_and_the_shallow_clone(
        repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shallow = tmp_path / "shallow"
    _git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    assert main(["pr", "--offline", "--repo", str(shallow), "--base", "HEAD~1"]) == 2
    err = capsys.readouterr().err
    assert "base revision 'HEAD~1' is not a commit of" in err
    assert "the clone is shallow" in err and "fetch-depth: 0" in err


def test_diff_of_a_full_commit_id_the_repository_lacks_is_a_usage_error(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", "--repo", str(repo), ABSENT, "HEAD", RECIPE]) == 2
    err = capsys.readouterr().err
    assert f"'{ABSENT}' is not a revision of {repo}" in err and "Traceback" not in err
    assert main(["diff", "--repo", str(repo), "HEAD~1", "HEAD", RECIPE]) == 1
    assert "--max-model-len" in capsys.readouterr().out


@pytest.mark.parametrize(("config", "shown"), [
    ("select = []\n", "select = []"),
    ('ignore = ["ALL"]\n', 'ignore = ["ALL"]'),
])
def test_a_configuration_that_selects_no_rule_says_so(
        examples_tree: Path, config: str, shown: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    (examples_tree / ".recipe-check.toml").write_text(config, "utf-8")
    assert main(["check", "--offline", str(examples_tree / "models")]) == 0
    err = capsys.readouterr().err
    assert err.count("leaves no rule selected") == 1
    assert (f"recipe-check: warning: {examples_tree / '.recipe-check.toml'}: {shown} leaves no "
            "rule selected: nothing is checked and every file passes") in err


def test_a_selection_that_keeps_a_rule_gives_no_warning(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (examples_tree / ".recipe-check.toml").write_text('select = ["REF004"]\n', "utf-8")
    assert main(["check", "--offline", str(examples_tree / "models")]) == 1
    captured = capsys.readouterr()
    assert "no rule selected" not in captured.err and "REF004" in captured.out


@pytest.mark.parametrize("table", ["recipe_check", "RecipeCheck", "recipe.check"])
def test_a_misspelt_pyproject_table_is_refused_not_ignored(
        examples_tree: Path, table: str, capsys: pytest.CaptureFixture[str]) -> None:
    name = f'"{table}"' if "." in table else table
    (examples_tree / "pyproject.toml").write_text(
        f'[project]\nname = "x"\n\n[tool.{name}]\nignore = ["REF"]\n', "utf-8")
    assert main(["check", "--offline", str(examples_tree / "models")]) == 2
    assert (f"{examples_tree / 'pyproject.toml'}:4: [tool.{table}] is not read: the table is "
            "[tool.recipe-check]") in capsys.readouterr().err


def test_a_pyproject_with_other_tools_only_is_no_configuration(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (examples_tree / "pyproject.toml").write_text('[tool.ruff]\nselect = ["E"]\n', "utf-8")
    assert main(["check", "--offline", str(examples_tree / "models")]) == 1
    assert "REF004" in capsys.readouterr().out


def _check_with_comment(tree: Path, comment: str, capsys: pytest.CaptureFixture[str]
                        ) -> list[str]:
    """The RC findings of the example's broken recipe with ``comment`` ending the line of
    its unknown hardware id ``h20`` (REF004)."""
    recipe = tree / "models/example-org/Example-MoE-120B.yaml"
    text = recipe.read_text("utf-8")
    assert text.count("    h20: verified\n") == 1
    recipe.write_text(text.replace("    h20: verified\n", f"    h20: verified  {comment}\n"),
                      "utf-8")
    main(["check", "--offline", str(recipe)])
    return [line for line in capsys.readouterr().out.splitlines() if " RC00" in line
            or " REF004 " in line]


def test_a_ruff_noqa_naming_recipe_check_rules_is_rc003_with_the_form_to_write(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = _check_with_comment(examples_tree, "# NOQA:ref004, schema", capsys)
    assert any(" error REF004 " in line for line in lines)
    (rc,) = [line for line in lines if " RC003 " in line]
    assert rc.endswith(":18:20: warning RC003 '# NOQA:ref004, schema' is the form ruff and "
                       "flake8 read, not recipe-check: write '# recipe-check: "
                       "ignore[REF004, SCHEMA]'; it suppresses nothing")


@pytest.mark.parametrize("comment", ["# noqa: E501", "# noqa", "# noqa: REF004, E501"])
def test_a_noqa_of_another_tool_is_left_alone(
        examples_tree: Path, comment: str, capsys: pytest.CaptureFixture[str]) -> None:
    lines = _check_with_comment(examples_tree, comment, capsys)
    assert not [line for line in lines if " RC00" in line]
    assert any(" REF004 " in line for line in lines)


def test_rc002_quotes_a_long_name_elided_and_explains_all(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = _check_with_comment(examples_tree, f"# recipe-check: ignore[{'A' * 5000}, ALL]",
                                capsys)
    long, every = [line for line in lines if " RC002 " in line]
    assert len(long) < 300 and "'" + "A" * 30 + "…" + "A" * 30 + "' (5000 characters)" in long
    assert "'ALL' is not a rule id or family prefix: a suppression names the rules it " \
           "silences (ALL belongs in select/ignore of the configuration)" in every


def test_history_of_a_shallow_clone_says_the_clone_is_shallow(
        repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shallow = tmp_path / "shallow"
    _git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    assert main(["history", "--repo", str(shallow), "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert "not found (the clone is shallow, so older commits are absent" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(("encoding", "bom"), [
    ("utf-16", "0xff 0xfe"), ("utf-16-be", "0xfe 0xff"), ("utf-32", "0xff 0xfe 0x00 0x00")])
def test_a_recipe_saved_as_utf16_or_utf32_is_named_so(
        examples_tree: Path, encoding: str, bom: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    recipe = examples_tree / RECIPE
    text = recipe.read_text("utf-8")
    data = text.encode(encoding)
    if not encoding.endswith(("16", "32")):
        data = "\ufeff".encode(encoding) + data
    recipe.write_bytes(data)
    assert main(["check", "--offline", str(recipe)]) == 1
    out = capsys.readouterr().out
    name = encoding[:6].upper()
    assert (f"{RECIPE}:1:1: error YAML006 file is {name} text (byte order mark {bom}), "
            "not UTF-8") in out


def test_collection_keys_are_named_as_js_yaml_names_them() -> None:
    from validator.load import load_yaml

    doc = load_yaml(b"features:\n  [a, b, null, 2.0]: 1\n  ? {c: d}\n  : 2\n  [true]: 3\n",
                    "x.yaml")
    assert doc.data == {"features": {"a,b,,2": 1, "[object Object]": 2, "true": 3}}
