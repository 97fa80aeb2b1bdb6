"""``--fix`` never overwrites an edit made while it writes (issue 30, item 14): another
process writes the recipe in place between the "changed since read" comparison and the
rename; that write is what the file holds afterwards, and nothing is counted as fixed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main

RECIPE = "models/example-org/Example-Chat-8B.yaml"
WRITER = """
import sys
path = sys.argv[1]
for line in sys.stdin:                      # one in-place write per request
    with open(path, "r+b") as f:
        data = f.read()
        f.seek(0)
        f.truncate()
        f.write(data + b"# edited by hand\\n")
    print("written", flush=True)
"""


@pytest.fixture()
def tree(examples_tree: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = examples_tree
    monkeypatch.chdir(root)
    recipe = root / RECIPE
    recipe.write_text(recipe.read_text("utf-8").replace('"--max-model-len"',
                                                         '"--max_model_len"', 1), "utf-8")
    return root


def test_an_edit_made_while_fix_replaces_the_file_is_kept(
        tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = tree / RECIPE
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(recipe)], text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert writer.stdin is not None and writer.stdout is not None
    to_writer, from_writer = writer.stdin, writer.stdout
    replace = os.replace
    asked: list[str] = []

    def replace_after_a_write(src: Any, dst: Any, **kw: Any) -> None:
        # the rename of the fixed file: first let the other process write the old one
        if not asked and str(dst) == str(recipe) and str(src).endswith(".tmp"):
            asked.append(str(src))
            to_writer.write("go\n")
            to_writer.flush()
            assert from_writer.readline() == "written\n"
        replace(src, dst, **kw)

    monkeypatch.setattr(os, "replace", replace_after_a_write)
    try:
        main([RECIPE, "--fix"])
    finally:
        to_writer.close()
        writer.wait(timeout=30)
    err = capsys.readouterr().err
    assert asked  # the fix did reach its rename
    text = recipe.read_text("utf-8")
    assert text.endswith("# edited by hand\n")  # was: the fixed file over the edit
    assert '"--max_model_len"' in text  # the fix itself was not applied over it
    assert "changed while it was being fixed" in err
    assert "fixed 0 finding(s) with 0 fix(es) in 0 file(s)" in err  # was: "in 1 file(s)"
    assert not [p.name for p in recipe.parent.iterdir() if p.name.startswith(".")]


def test_fix_writes_when_nothing_else_does(tree: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    main([RECIPE, "--fix"])
    assert '"--max-model-len"' in (tree / RECIPE).read_text("utf-8")
    assert "fixed 1 finding(s) with 1 fix(es) in 1 file(s)" in capsys.readouterr().err
