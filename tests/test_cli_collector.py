"""The process's own run tunes the cyclic garbage collector once its command is imported
(:func:`validator.cli.tune_collector`): the imported objects frozen out of its sight, and
the young generation passed over less often; a caller's in-process run is left as the
caller set it."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from validator.cli import YOUNG_THRESHOLD, main

PROJECT = Path(__file__).resolve().parents[1]

_OWN_RUN = """
import gc, json, sys
import validator.cli
sys.argv = ["recipe-check", "rules", "--format", "json"]
code = validator.cli.main(None)
print(json.dumps([code, list(gc.get_threshold()), gc.get_freeze_count()]), file=sys.stderr)
"""


def test_own_run_passes_over_the_young_generation_every_young_threshold_allocations(
        ) -> None:
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    done = subprocess.run([sys.executable, "-c", _OWN_RUN], env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    code, threshold, frozen = json.loads(done.stderr.strip().splitlines()[-1])
    assert code == 0
    assert threshold == [YOUNG_THRESHOLD, 10, 10]  # the older generations: Python's own
    assert YOUNG_THRESHOLD > 700 and frozen > 0


def test_callers_in_process_run_keeps_the_callers_collector_settings(
        capsys: pytest.CaptureFixture[str]) -> None:
    before = gc.get_threshold()
    frozen = gc.get_freeze_count()
    assert main(["rules", "--format", "json"]) == 0
    assert gc.get_threshold() == before and gc.get_freeze_count() == frozen
