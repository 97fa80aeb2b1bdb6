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


WITHOUT_THE_LIBRARY = ("tests/schemas/test_schemas.py::test_unknown_key_becomes_a_warning_in_"
                       "the_schema_stage")
"""A test of the same package that must pass without the library (the general validator
judges the document). It imports little: the inner pytest used to run ``tests/test_errors.py``,
whose imports (the whole command line, ``requests``...) were 1.7 s of the process's 2.4 s CPU
(every inner test took under 0.05 s)."""


def test_missing_jsonschema_rs_fails_only_the_tests_that_need_it() -> None:
    done = subprocess.run(
        [sys.executable, "-c", RUN_WITHOUT_LIBRARY, "-p", "no:cacheprovider", "-o",
         "addopts=", "-q",
         "tests/schemas/test_compiled.py::test_rejected_document_still_gets_every_finding",
         "tests/schemas/test_compiled.py::test_value_it_cannot_convert_goes_to_the_general_"
         "validator", WITHOUT_THE_LIBRARY],
        cwd=PROJECT, capture_output=True, text=True, timeout=300, check=False,
        # no plugins of the environment (xdist, benchmark...): what is pinned is collection
        # without the library; loading them cost 0.8 s of the run's 4.4 s CPU
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    out = done.stdout
    assert "error during collection" not in out and "ERROR" not in out, out
    assert "2 failed, 1 passed" in out, out
    assert "no compiled schema check: jsonschema_rs" in out, out
