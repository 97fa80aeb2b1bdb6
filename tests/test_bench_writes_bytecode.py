"""The benchmark measures the tool as installed, with its modules' bytecode written: a
caller's ``PYTHONDONTWRITEBYTECODE`` would make every measured run compile every module
it imports (the one-file check and its imports alike), which hides their ratio."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench.py"


def test_the_measured_runs_write_bytecode_whatever_the_callers_setting(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("bench_under_test", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, bench)  # its dataclasses look it up
    spec.loader.exec_module(bench)
    code = tmp_path / "code"
    (code / "frozen_tool").mkdir(parents=True)
    (code / "frozen_tool" / "__init__.py").write_text("VALUE = 1\n")
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)  # the suite's: written elsewhere
    env = bench.child_env(code, tmp_path / "xdg")
    assert env["PYTHONPATH"] == str(code) and env["XDG_CACHE_HOME"] == str(tmp_path / "xdg")
    subprocess.run([sys.executable, "-c", "import frozen_tool"], env=env, check=True,
                   timeout=60)
    assert list((code / "frozen_tool" / "__pycache__").glob("__init__.*.pyc"))
