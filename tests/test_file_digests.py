"""The tool digest's file hashes: each settled file read once per process, a changed
file always read again (:mod:`validator.file_digests`)."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from validator import cache, file_digests
from validator.context import Settings
from validator.file_digests import file_digest
from validator.rule_index import check_rules


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files :func:`file_digest` reads from now on."""
    reads: list[Path] = []
    read_bytes = Path.read_bytes

    def counted(self: Path) -> bytes:
        reads.append(self)
        return read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", counted)
    return reads


def test_the_tool_digest_reads_no_settled_file_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second ``check`` in one process hashes none of the sources, schemas and
    vendored files again (34 ms of CPU each time before): only a file changed in the
    last seconds, none here, would be read."""
    settings, rules = Settings(), check_rules()
    first = cache.checks_digest(settings, rules), cache.code_digest()
    reads = _count_reads(monkeypatch)
    assert (cache.checks_digest(settings, rules), cache.code_digest()) == first
    settled = time.time_ns() - file_digests.SETTLED_NS
    assert [p for p in reads if max(p.stat().st_mtime_ns, p.stat().st_ctime_ns) < settled] == []


def test_a_file_just_written_is_read_again_each_time(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Within the clock tick of a write a file's stamp may not change (where file times
    are coarse): a file changed in the last :data:`~validator.file_digests.SETTLED_NS`
    is never kept, so never taken from memory."""
    file = tmp_path / "registry.json"
    file.write_bytes(b'{"a": 1}')
    reads = _count_reads(monkeypatch)
    assert file_digest(file) == hashlib.sha256(b'{"a": 1}').digest()
    assert str(file) not in file_digests._KNOWN
    file.write_bytes(b'{"a": 2}')  # same size, maybe the same clock tick
    assert file_digest(file) == hashlib.sha256(b'{"a": 2}').digest()
    assert reads == [file, file]


def test_a_settled_file_changed_later_is_read_again(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A file hashed once settled and then rewritten (same size, its modification time
    set back) is read again: its change time moved on."""
    file = tmp_path / "schema.json"
    file.write_bytes(b"old!")
    then = file.stat().st_mtime_ns
    later = time.time_ns() + 10 * file_digests.SETTLED_NS
    monkeypatch.setattr(time, "time_ns", lambda: later)  # settled by now
    reads = _count_reads(monkeypatch)
    assert file_digest(file) == file_digest(file) == hashlib.sha256(b"old!").digest()
    assert reads == [file]
    time.sleep(0.05)  # past the clock tick of the first write
    file.write_bytes(b"new!")
    os.utime(file, ns=(then, then))
    assert file_digest(file) == hashlib.sha256(b"new!").digest()
    assert reads == [file, file]
