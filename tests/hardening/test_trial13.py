"""Input trial 13: small usage errors that were silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.cli import main


@pytest.mark.parametrize("empty", ["", " "])
def test_an_empty_path_is_a_usage_error(empty: str, examples_tree: Path,
                                        monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """``recipe-check "$UNSET"`` checked the whole current folder (``Path("")`` is ``.``)."""
    monkeypatch.chdir(examples_tree)
    assert main([empty]) == 2
    captured = capsys.readouterr()
    assert "is empty: name a recipe file or folder" in captured.err
    assert "file(s) checked" not in captured.out
    # a real path beside it does not make the empty one harmless
    assert main(["models/", empty]) == 2
