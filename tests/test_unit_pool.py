"""Units of work on several processes (:mod:`validator.unit_pool`): results come back in
the order of the units, a worker that dies costs only time, and ``check --jobs N`` prints
what ``--jobs 1`` prints."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from validator.unit_pool import run_units

PROJECT = Path(__file__).resolve().parents[1]


def _square_in_a_worker(n: int) -> tuple[int, int]:
    return n * n, os.getpid()


_IN_A_FRESH_PROCESS = """
import json, os
from validator.unit_pool import run_units
results = run_units(lambda n: (n * n, os.getpid()), list(range(40)), jobs=2)
print(json.dumps({"squares": [r for r, _ in results],
                  "elsewhere": len({pid for _, pid in results} - {os.getpid()})}))
"""


def test_results_come_back_in_the_order_of_the_units_from_other_processes() -> None:
    # a fresh, single-threaded interpreter: a test runner's worker may run threads, and
    # the pool does not fork then (see test_a_process_with_threads_does_not_fork)
    out = subprocess.run([sys.executable, "-c", _IN_A_FRESH_PROCESS], capture_output=True,
                         text=True, check=True, cwd=PROJECT).stdout
    found = json.loads(out)
    assert found["squares"] == [n * n for n in range(40)]
    assert found["elsewhere"] >= 1  # the work was done in other processes


def test_a_worker_that_dies_leaves_its_units_to_the_parent() -> None:
    parent = os.getpid()

    def dies_on_seven(n: int) -> int:
        if n == 7 and os.getpid() != parent:
            os._exit(9)  # killed mid-unit: no result, no clean exit
        return n + 1

    assert run_units(dies_on_seven, list(range(20)), jobs=2) == list(range(1, 21))


def test_a_process_with_threads_does_not_fork() -> None:
    """A lock another thread holds at a fork stays locked in the child forever: with a
    second thread running, every unit is computed here."""
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        pids = {pid for _r, pid in run_units(_square_in_a_worker, list(range(40)), jobs=2)}
    finally:
        release.set()
        other.join()
    assert pids == {os.getpid()}


def test_one_job_or_few_units_stay_in_this_process() -> None:
    assert {pid for _r, pid in run_units(_square_in_a_worker, [1, 2, 3], jobs=1)} == {
        os.getpid()}
    assert {pid for _r, pid in run_units(_square_in_a_worker, [1], jobs=8)} == {os.getpid()}


def test_check_prints_the_same_report_on_any_number_of_jobs(tmp_path: Path) -> None:
    root = tmp_path / "recipes"
    shutil.copytree(PROJECT / "examples" / "recipes", root)
    org = root / "models" / "example-org"
    for n in range(6):  # enough units for every worker, each its own findings
        text = (org / "Example-MoE-120B.yaml").read_text()
        (org / f"Copy-{n}.yaml").write_text(text.replace("h20", f"h2{n}"))
    env = {"PYTHONPATH": str(PROJECT), "PATH": "/usr/bin:/bin"}
    outputs = []
    for jobs in ("1", "3"):
        proc = subprocess.run([sys.executable, "-m", "validator", "--offline", "--no-cache",
                               "--jobs", jobs, "--format", "json", "models/"], cwd=root,
                              capture_output=True, text=True, env=env, timeout=300)
        assert proc.returncode == 1, proc.stderr
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0].count('"path": "models/example-org/Copy-') == 6


_ONE_UNIT = """
import sys
from validator.unit_pool import run_units
print(run_units(lambda n: n + 1, [41], jobs=4), "multiprocessing" in sys.modules)
"""


def test_a_run_of_one_unit_does_not_import_multiprocessing() -> None:
    # one file, or a warm cache (no unit left to compute): nothing to fork, nothing to
    # import for it at start-up
    out = subprocess.run([sys.executable, "-c", _ONE_UNIT], capture_output=True, text=True,
                         check=True, cwd=PROJECT).stdout.split()
    assert out == ["[42]", "False"], out


NOT_FOR_ONE_FILE = ("multiprocessing", "validator.report.markdown", "html")
"""Modules checking one file with the text report never needs: the worker pool, and the
Markdown reporter (a job summary's)."""


def test_checking_one_file_does_not_import_what_it_does_not_need() -> None:
    example = PROJECT / "examples" / "recipes" / "models" / "example-org" / "Example-Chat-8B.yaml"
    code = ("import sys; from validator.cli import main; rc = main(['check', '--no-cache', "
            "sys.argv[1]]); print(rc, *(m for m in sys.argv[2:] if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(example), *NOT_FOR_ONE_FILE],
                         capture_output=True, text=True, check=True, cwd=PROJECT).stdout
    assert out.splitlines()[-1] == "0", out
