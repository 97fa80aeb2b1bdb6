"""The import stubs of the registry introspection keep what they were told to stub in
the finder they install, not in a module global changed at run time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

STUBS_DIR = Path(__file__).resolve().parents[2] / "validator" / "vllm_cli"

SCRIPT = """
import sys
sys.path.insert(0, sys.argv[1])
import _stubs
before = _stubs.FORCE_STUB
_stubs.install(["zz_extra_forced"])
_stubs.install(["zz_more_forced"])  # a second install adds to the same finder
import zz_extra_forced, zz_more_forced
assert isinstance(zz_extra_forced, _stubs.StubModule), zz_extra_forced
assert isinstance(zz_more_forced, _stubs.StubModule), zz_more_forced
assert _stubs.FORCE_STUB == before, "FORCE_STUB changed"
assert sum(isinstance(f, _stubs._ForcedStubFinder) for f in sys.meta_path) == 1
print("ok")
"""


def test_extra_forced_stubs_live_in_the_installed_finder() -> None:
    # a fresh interpreter: installing the finders changes how it imports from then on
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(STUBS_DIR)], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
