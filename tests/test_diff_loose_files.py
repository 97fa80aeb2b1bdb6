"""``recipe-check diff`` of recipe files that lie in no recipes root (a copy in /tmp, an
attachment): each renders with the taxonomy and strategies of ``--root DIR``, or of the
other side's tree; with neither, a usage error says what is missing."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.test_diff import CHAT, change_recipe, copy_tree
from validator.cli import main


def _changes(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The change lines of a text diff (its ``OLD → NEW`` header left out)."""
    return [ln.strip() for ln in capsys.readouterr().out.splitlines()[1:]]


def _loose_pair(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """Two trees (``old/``, ``new/`` with the recipe changed) and loose copies of their
    recipe in a folder that is no recipes root."""
    old, new = copy_tree(tmp_path / "old"), copy_tree(tmp_path / "new")
    change_recipe(new)
    loose = tmp_path / "loose"
    loose.mkdir()
    shutil.copyfile(old / CHAT, loose / "before.yaml")
    shutil.copyfile(new / CHAT, loose / "after.yaml")
    return old, new, loose / "before.yaml", loose / "after.yaml"


def test_two_loose_files_render_with_the_root_given(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new, before, after = _loose_pair(tmp_path)
    assert main(["diff", str(old / CHAT), str(new / CHAT)]) == 1
    in_trees = _changes(capsys)
    assert main(["diff", "--root", str(old), str(before), str(after)]) == 1
    assert _changes(capsys) == in_trees  # the same changes, rendered with old/'s context
    assert "minimum vLLM: 0.12.0 → 0.13.0" in in_trees


def test_a_loose_file_renders_with_the_other_side_s_tree(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new, _before, after = _loose_pair(tmp_path)
    assert main(["diff", str(old / CHAT), str(new / CHAT)]) == 1
    in_trees = _changes(capsys)
    assert main(["diff", str(old / CHAT), str(after)]) == 1
    assert _changes(capsys) == in_trees
    assert main(["diff", str(after), str(after)]) == 2  # two loose files, no --root
    err = capsys.readouterr().err
    assert "lie in no recipes root" in err and "--root DIR" in err


def test_a_loose_file_that_is_not_a_regular_file_is_refused_not_waited_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, _new, before, _after = _loose_pair(tmp_path)
    fifo = before.with_name("pipe.yaml")
    os.mkfifo(fifo)
    assert main(["diff", "--root", str(old), str(before), str(fifo)]) == 2
    err = capsys.readouterr().err
    assert "pipe.yaml: not a regular file" in err, err
