"""The history cache's ``.secret`` when something else is in its place: a link to an
endless device or a FIFO is never read (it grew without bound / hung forever); a regular
file of the wrong length is replaced atomically, once, so the cache works again (every
run recomputed everything and counted one damaged entry, forever)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.history_slice import SLICE, cold_slice_cache
from validator.cache import SECRET_BYTES, SECRET_NAME, ResultCache
from validator.history.audit import AuditOptions, run_audit

PROJECT = Path(__file__).resolve().parents[2]
KEY = "ab" * 32

_PROBE = """\
import resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from validator.cache import ResultCache
cache = ResultCache(Path(sys.argv[1]))
print(cache.get(sys.argv[2]), cache.corrupt, cache.root is None)
print(*cache.notes, sep="\\n")
"""


def _probe(root: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-c", _PROBE, str(root), KEY], cwd=PROJECT,
                          capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "PYTHONPATH": str(PROJECT)})
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _warm(root: Path) -> None:
    ResultCache(root).put(KEY, {"label": {"rows": []}})
    assert ResultCache(root).get(KEY) == {"label": {"rows": []}}


@pytest.mark.parametrize("kind", ["zero-link", "fifo", "folder"])
def test_a_secret_that_is_no_regular_file_turns_the_cache_off_with_a_note(
        tmp_path: Path, kind: str) -> None:
    _warm(tmp_path)
    secret = tmp_path / SECRET_NAME
    secret.unlink()
    if kind == "zero-link":
        secret.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(secret)
    else:
        secret.mkdir()
    first, *notes = _probe(tmp_path)
    assert first == "{} 1 True"  # nothing trusted, nothing written
    says = "a symbolic link" if kind == "zero-link" else "not a regular file"
    assert notes == [f"{secret}: {says}, not a cache secret; the cache is off for this run "
                     "(remove it)"]
    assert not secret.is_file()  # left for the user: it is not ours to remove


@pytest.mark.parametrize("content", [b"", b"short", b"\x07" * 4096],
                         ids=["empty", "short", "long"])
def test_a_secret_of_the_wrong_length_is_replaced_once(tmp_path: Path,
                                                       content: bytes) -> None:
    _warm(tmp_path)
    secret = tmp_path / SECRET_NAME
    secret.write_bytes(content)
    cache = ResultCache(tmp_path)
    assert cache.get(KEY) == {}  # keyed by the old secret: recomputed
    shown = f"{len(content)} bytes" if len(content) <= SECRET_BYTES else "more than 32 bytes"
    assert cache.notes == [f"{secret}: not a cache secret ({shown}, not 32); replaced by a "
                           "new one, the entries it keyed are recomputed once"]
    assert len(secret.read_bytes()) == SECRET_BYTES and not secret.is_symlink()
    assert oct(secret.stat().st_mode & 0o777) == "0o600"
    cache.put(KEY, {"label": {"rows": []}})
    again = ResultCache(tmp_path)
    assert again.get(KEY) == {"label": {"rows": []}}
    assert (again.corrupt, again.notes) == (0, [])


@pytest.mark.corpus
def test_an_emptied_secret_in_a_real_audit_is_damage_once(
        corpus_repo: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    cache, cold = cold_slice_cache(tmp_path_factory, corpus_repo, tmp_path / "root")

    def audit() -> tuple[int, int, int, list[str]]:
        r = run_audit(AuditOptions(repo=corpus_repo, jobs=1, cache_dir=cache, paths=[SLICE]))
        return r.checked, r.cached, r.corrupt, r.cache_notes

    checked = cold.checked
    (cache / SECRET_NAME).write_bytes(b"")
    again = audit()
    assert again[0] == checked and again[2] > 0 and len(again[3]) == 1
    third = audit()
    assert third == (0, checked, 0, [])  # the cache works again
