"""Input trial 11 left unfixed: a configuration file name taken by something that is not a
file (a folder, a dangling link) was skipped in silence, so every rule ran while its author
believed them configured."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.cli import main
from validator.commands.options import config_reader
from validator.config import CONFIG_FILES, ConfigError, find_config
from validator.source.tree import LocalTree

RECIPE = "models/example-org/Example-Chat-8B.yaml"


@pytest.fixture()
def tree(examples_tree: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(examples_tree)
    return examples_tree


def _occupy(path: Path, kind: str) -> str:
    if kind == "folder":
        path.mkdir()
        return "is a directory"
    path.symlink_to(path.parent / "missing.toml")
    return "dangling symbolic link"


@pytest.mark.parametrize("name", CONFIG_FILES)
@pytest.mark.parametrize("kind", ["folder", "dangling link"])
def test_a_config_name_that_is_not_a_file_is_a_usage_error(
        tree: Path, capsys: pytest.CaptureFixture[str], name: str, kind: str) -> None:
    assert main([RECIPE]) == 0  # the clean example, before
    capsys.readouterr()
    reason = _occupy(tree / name, kind)
    assert main([RECIPE]) == 2  # was: 0, the name skipped and every rule run
    captured = capsys.readouterr()
    assert f"{tree / name}: cannot be read as a configuration file ({reason}" in captured.err
    assert "Traceback" not in captured.err and captured.out == ""


def test_history_reads_the_work_tree_config_the_same_way(tmp_path: Path) -> None:
    (tmp_path / ".recipe-check.toml").mkdir()
    with pytest.raises(ConfigError, match="cannot be read as a configuration file"):
        find_config(*config_reader(LocalTree(tmp_path)))
    (tmp_path / ".recipe-check.toml").rmdir()
    (tmp_path / "pyproject.toml").write_bytes(b'[tool.recipe-check]\nignore = ["GUIDE"]\n')
    assert find_config(*config_reader(LocalTree(tmp_path))).ignore == ("GUIDE",)
