"""The worked example of ``docs/architecture.md`` ("Adding a rule") runs as written: its
code block, saved as the module it names in a copy of the package, adds a rule that
``recipe-check`` reports, with no other file touched."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLE = "examples/recipes"
RECIPE = "models/example-org/Example-Chat-8B.yaml"


def _example_block() -> tuple[str, str]:
    """(module path, code) of the first Python block of the "Adding a rule" section."""
    text = (PROJECT / "docs" / "architecture.md").read_text("utf-8")
    section = text[text.index("## Adding a rule"):]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None, "the worked example has no python block"
    first = code.group(1).splitlines()[0]
    path = re.match(r"# (validator/\S+\.py)", first)
    assert path is not None, f"the block's first line names no module: {first!r}"
    return path.group(1), code.group(1)


def _copy_project(dest: Path) -> None:
    """A checkout at ``dest``: the package copied (the example adds a module to it), the
    data it reads (schemas, pinned snapshots) linked."""
    shutil.copytree(PROJECT / "validator", dest / "validator",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("schemas", "snapshots"):
        (dest / name).symlink_to(PROJECT / name, target_is_directory=True)
    shutil.copy(PROJECT / "pyproject.toml", dest / "pyproject.toml")


def _check(project: Path, tree: Path) -> list[tuple[str, str, int]]:
    """(rule, path, line) of every finding of ``recipe-check check`` over ``tree``."""
    proc = subprocess.run(
        [sys.executable, "-m", "validator", "check", "--offline", "--no-cache",
         "--format", "json", "models/"],
        cwd=tree, env={"PYTHONPATH": str(project), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    return [(f["rule"], doc["path"], f["line"])
            for doc in report["documents"] for f in doc["findings"]]


def test_the_worked_example_adds_a_rule_by_adding_its_module(tmp_path: Path) -> None:
    module, code = _example_block()
    rule_id = re.search(r'@rule\("([A-Z]+\d{3})"', code)
    assert rule_id is not None
    project = tmp_path / "project"
    _copy_project(project)
    target = project / module
    assert not target.exists(), f"{module} exists: the example must add a new module"
    target.write_text(code, "utf-8")

    tree = tmp_path / "recipes"
    shutil.copytree(PROJECT / EXAMPLE, tree)
    recipe = tree / RECIPE
    failing = recipe.read_text("utf-8").replace(
        "  related_recipes: []", '  related_recipes: ["example-org/Example-Chat-8B"]')
    recipe.write_text(failing, "utf-8")
    line = failing.splitlines().index('  related_recipes: ["example-org/Example-Chat-8B"]') + 1

    found = [(path, at) for rule, path, at in _check(project, tree) if rule == rule_id.group(1)]
    assert found == [(RECIPE, line)]

    recipe.write_text(failing.replace('["example-org/Example-Chat-8B"]',
                                      '["example-org/Example-MoE-120B"]'), "utf-8")
    assert [f for f in _check(project, tree) if f[0] == rule_id.group(1)] == []

    listed = subprocess.run([sys.executable, "-m", "validator", "rules", "--format", "json"],
                            cwd=tmp_path, env={"PYTHONPATH": str(project)},
                            capture_output=True, text=True, timeout=300, check=True)
    modules = {e["id"]: e["module"] for e in json.loads(listed.stdout)}
    assert modules[rule_id.group(1)] == module
