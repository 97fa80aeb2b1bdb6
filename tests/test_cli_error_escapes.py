"""A usage or input error quotes command-line paths with their control characters escaped:
an ESC in a file name cannot recolour or rewrite the user's terminal, a carriage return
cannot overwrite the message."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.cli import main


@pytest.mark.parametrize("args", [
    ["check", "--offline", "models/\x1b[31mX\rY.yaml"],
    ["check", "--offline", "--config", "/nonexistent/\x1b[2Jx.toml", "models/"],
])
def test_an_error_message_escapes_control_characters_of_the_path(
        args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "models").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("recipe-check: ") and "\\u001b[" in err
    assert "\x1b" not in err and "\r" not in err
