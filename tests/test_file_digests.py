"""The tool digest's file hashes: each settled file read once per run (the run's
:class:`~validator.file_digests.FileDigests`, handed down from its driver), and once per
cache folder (kept there for the next run), a changed file always read again
(:mod:`validator.file_digests`)."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from validator import cache, file_digests
from validator.cache import RUNS, ResultCache
from validator.context import Settings
from validator.file_digests import FileDigests
from validator.rule_index import check_rules
from validator.unit_cache import UnitCache


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files :func:`file_digest` reads from now on."""
    reads: list[Path] = []
    read_bytes = Path.read_bytes

    def counted(self: Path) -> bytes:
        reads.append(self)
        return read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", counted)
    return reads


def _settled_reads(reads: list[Path]) -> list[Path]:
    settled = time.time_ns() - file_digests.SETTLED_NS
    return [p for p in reads if max(p.stat().st_mtime_ns, p.stat().st_ctime_ns) < settled]


def test_the_tool_digest_reads_no_settled_file_again_in_one_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A second tool digest of one run (the run cache's stamp, then the check's digest)
    hashes none of the sources, schemas and vendored files again (34 ms of CPU each
    time before): only a file changed in the last seconds, none here, would be read."""
    settings, rules, digests = Settings(), check_rules(), FileDigests()
    first = cache.checks_digest(settings, rules, digests), cache.code_digest(digests)
    reads = _count_reads(monkeypatch)
    assert (cache.checks_digest(settings, rules, digests), cache.code_digest(digests)) == first
    assert _settled_reads(reads) == []


def test_the_process_keeps_no_digest_from_one_run_to_the_next(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The digests are the run's (given by its driver), not the process's: another run
    without a cache folder hashes the tool's files again, to the same digest."""
    settings, rules = Settings(), check_rules()
    first = cache.checks_digest(settings, rules, FileDigests())
    reads = _count_reads(monkeypatch)
    assert cache.checks_digest(settings, rules, FileDigests()) == first
    assert len(_settled_reads(reads)) > 400


def test_a_file_just_written_is_read_again_each_time(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Within the clock tick of a write a file's stamp may not change (where file times
    are coarse): a file changed in the last :data:`~validator.file_digests.SETTLED_NS`
    is never kept, so never taken from memory."""
    file = tmp_path / "registry.json"
    file.write_bytes(b'{"a": 1}')
    reads, digests = _count_reads(monkeypatch), FileDigests()
    assert digests.digest(file) == hashlib.sha256(b'{"a": 1}').digest()
    assert str(file) not in digests.known
    file.write_bytes(b'{"a": 2}')  # same size, maybe the same clock tick
    assert digests.digest(file) == hashlib.sha256(b'{"a": 2}').digest()
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
    reads, digests = _count_reads(monkeypatch), FileDigests()
    assert digests.digest(file) == digests.digest(file) == hashlib.sha256(b"old!").digest()
    assert reads == [file]
    time.sleep(0.05)  # past the clock tick of the first write
    file.write_bytes(b"new!")
    os.utime(file, ns=(then, then))
    assert digests.digest(file) == hashlib.sha256(b"new!").digest()
    assert reads == [file, file]


def test_a_new_run_takes_the_kept_digests_and_reads_no_settled_tool_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first run with a cache folder hashes the tool's files (17 MB, about 27 ms
    of CPU) and keeps their digests there; the next (digests of its own) reads them back
    and hashes none (about 9 ms for the whole tool digest), to the same digest."""
    settings, rules = Settings(), check_rules()
    first = UnitCache(tmp_path, settings, rules, FileDigests()).tool
    kept = ResultCache(tmp_path / RUNS).get(file_digests.KEPT_KEY)
    assert len(kept) > 400 and all(p.startswith(tuple(map(str, cache.tool_folders())))
                                   for p in kept)
    reads = _count_reads(monkeypatch)
    assert UnitCache(tmp_path, settings, rules, FileDigests()).tool == first
    assert _settled_reads(reads) == []
    other = UnitCache(tmp_path / "other", settings, rules, FileDigests())
    assert other.tool == first and len(_settled_reads(reads)) > 400  # hashed afresh


def _settled(monkeypatch: pytest.MonkeyPatch) -> None:
    later = time.time_ns() + 10 * file_digests.SETTLED_NS
    monkeypatch.setattr(time, "time_ns", lambda: later)


def test_a_file_changed_after_its_digest_was_kept_is_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kept digest is taken only for the stamp it was kept with: a file rewritten
    since (same size, same inode, its modification time set back) is read again and
    changes the tool digest; an unchanged one is not read."""
    tool, store = tmp_path / "tool", ResultCache(tmp_path / "cache" / RUNS)
    tool.mkdir()
    changed, same = tool / "rule.py", tool / "schema.json"
    changed.write_bytes(b"old!")
    same.write_bytes(b"same")
    then, inode = changed.stat().st_mtime_ns, changed.stat().st_ino
    _settled(monkeypatch)
    digests = FileDigests()
    assert digests.digest(changed) == hashlib.sha256(b"old!").digest()
    digests.digest(same)
    digests.keep(store, [tool])
    digests = FileDigests()  # the next run
    time.sleep(0.05)  # past the clock tick of the first write
    with changed.open("r+b") as stream:  # in place: the same inode
        stream.write(b"new!")
    os.utime(changed, ns=(then, then))
    assert changed.stat().st_ino == inode and changed.stat().st_mtime_ns == then
    reads = _count_reads(monkeypatch)
    digests.recall(store)
    assert digests.digest(same) == hashlib.sha256(b"same").digest()
    assert digests.digest(changed) == hashlib.sha256(b"new!").digest()
    assert reads == [changed]


def test_a_forged_kept_digest_is_not_taken(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The kept digests are an entry of the result cache: edited without the cache's
    secret, the entry fails its MAC and every file is read again."""
    tool, store = tmp_path / "tool", ResultCache(tmp_path / "cache" / RUNS)
    tool.mkdir()
    file = tool / "rule.py"
    file.write_bytes(b"code")
    _settled(monkeypatch)
    digests = FileDigests()
    digests.digest(file)
    digests.keep(store, [tool])
    entry_path = next((tmp_path / "cache" / RUNS).rglob("*.json"))
    entry = json.loads(entry_path.read_text())
    entry["results"][str(file)][4] = hashlib.sha256(b"forged").hexdigest()
    entry_path.write_text(json.dumps(entry))
    digests = FileDigests()  # the next run
    reads = _count_reads(monkeypatch)
    digests.recall(ResultCache(tmp_path / "cache" / RUNS))
    assert digests.digest(file) == hashlib.sha256(b"code").digest()
    assert reads == [file]
