"""Without ``jsonschema_rs`` the compiled-check tests fail one by one, each saying why,
and the suite still collects and runs everything else (the module used to assert at
import time, so one missing library stopped the whole run at collection)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
RUN_WITHOUT_LIBRARY = (
    "import sys; sys.modules['jsonschema_rs'] = None; import pytest; "
    "sys.exit(pytest.main(sys.argv[1:]))")


def test_missing_jsonschema_rs_fails_only_the_tests_that_need_it() -> None:
    done = subprocess.run(
        [sys.executable, "-c", RUN_WITHOUT_LIBRARY, "-p", "no:cacheprovider", "-o",
         "addopts=", "-q",
         "tests/schemas/test_compiled.py::test_rejected_document_still_gets_every_finding",
         "tests/schemas/test_compiled.py::test_value_it_cannot_convert_goes_to_the_general_"
         "validator", "tests/test_errors.py"],
        cwd=PROJECT, capture_output=True, text=True, timeout=300, check=False,
        # no plugins of the environment (xdist, benchmark...): what is pinned is collection
        # without the library; loading them cost 0.8 s of the run's 4.4 s CPU
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    out = done.stdout
    assert "error during collection" not in out and "ERROR" not in out, out
    assert "2 failed" in out and " passed" in out, out
    assert "no compiled schema check: jsonschema_rs" in out, out
