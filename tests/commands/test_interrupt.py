"""Ctrl-C during ``check``: the run ends with 130 (128 + SIGINT, as a shell reports it)
and the recipes already checked are in the cache, so the next run starts from them --
a real process, a real SIGINT."""

from __future__ import annotations

import importlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from validator import cli

PROJECT = Path(__file__).resolve().parents[2]
CHAT = "models/example-org/Example-Chat-8B.yaml"
COPIES = 400
"""Enough that the run is still going well after its third unit is kept (the copies share
every memo: each costs a few milliseconds)."""


def _as_from_a_terminal() -> None:
    """The child's Ctrl-C as a terminal leaves it: a test run started in the background of
    a non-interactive shell (``sh -c 'pytest … &'``) ignores SIGINT, and a child inherits
    that, so Python would never raise KeyboardInterrupt in it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _entries(cache: Path) -> int:
    results = cache / "results"
    return len(list(results.glob("??/*.json"))) if results.is_dir() else 0


def test_an_interrupted_check_exits_130_and_keeps_the_units_it_finished(
        tmp_path: Path) -> None:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    text = (root / CHAT).read_text(encoding="utf-8")
    for i in range(COPIES):
        (root / f"models/example-org/Copy-{i}.yaml").write_text(text, encoding="utf-8")
    cache = tmp_path / "cache"
    proc = subprocess.Popen(
        [sys.executable, "-m", "validator", "check", "--offline", "--jobs", "2",
         "--cache-dir", str(cache), str(root / "models")],
        cwd=PROJECT, preexec_fn=_as_from_a_terminal, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(PROJECT)})
    deadline = time.monotonic() + 600
    while _entries(cache) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before any unit was kept: nothing to interrupt"
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    kept = _entries(cache)
    assert 3 <= kept < COPIES + 2  # what was finished, not the whole run



def test_ctrl_c_while_the_command_is_imported_exits_130_without_a_traceback(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A SIGINT while the command's modules are still being imported (before any command
    runs: the first second or two) ends the run the same way: one line, 130."""
    def interrupted(name: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib, "import_module", interrupted)
    assert cli.main(["check", "--offline", str(EXAMPLES / "models")]) == 130
    assert capsys.readouterr().err == "recipe-check: interrupted\n"
