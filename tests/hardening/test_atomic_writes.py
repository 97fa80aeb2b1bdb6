"""Faults: writers of the snapshot store and of published records SIGKILLed at random
points leave every file old or new (never partial); concurrent writers do not corrupt
the store; a damaged snapshot object is detected."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from validator.source.provenance import Provenance

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "source"))
from _util import one_file_commit  # type: ignore[import-not-found]  # found on sys.path above

COMMIT = "c" * 40

# Each writer adds files 0, 1, 2, ... (one add per file, so the lock file is rewritten
# every time) with large bodies so that a kill often lands in the middle of a write.
SNAPSHOT_WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    sys.path.insert(0, "TESTS_SOURCE")
    from _util import one_file_commit
    from validator.source.provenance import Provenance
    from validator.source.snapshots import SnapshotStore

    store = SnapshotStore(Path(sys.argv[1]))
    tag = sys.argv[2]
    print("ready", flush=True)
    for i in range(int(sys.argv[3])):
        data = (f"# writer {tag} file {i}\\n" + "x: " + "y" * 200_000 + "\\n").encode()
        commit, objects = one_file_commit(f"models/{tag}/r{i}.yaml", data)
        prov = Provenance.of_bytes(f"models/{tag}/r{i}.yaml", data,
                                   repository="org/recipes", commit=commit)
        store.add([(prov, data)], objects=objects)
    print("done", flush=True)
""").replace("TESTS_SOURCE", str(Path(__file__).resolve().parents[1] / "source"))


def _spawn(code: str, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _kill_while_writing(proc: subprocess.Popen[bytes], delay: float) -> bool:
    """Wait until the writer has imported everything, let it write for ``delay`` seconds,
    then SIGKILL it; whether it was still running."""
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"ready\n", proc.stderr.read() if proc.stderr else ""
    time.sleep(delay)
    if proc.poll() is not None:
        return False
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    return True


def _store_is_consistent(root: Path) -> int:
    from validator.source.snapshots import SnapshotStore

    store = SnapshotStore(root)
    store.load()  # raises on a torn lock file
    checked, problems = store.verify()
    assert problems == [], problems
    return checked


def test_snapshot_writer_killed_at_random_points(tmp_path: Path) -> None:
    root = tmp_path / "store"
    rng = random.Random(88)
    seen = 0
    killed = 0
    for round_ in range(6):
        proc = _spawn(SNAPSHOT_WRITER, str(root), f"w{round_}", "1000")
        killed += _kill_while_writing(proc, rng.uniform(0.02, 0.4))
        _out, err = proc.communicate(timeout=120)
        assert proc.returncode in (0, -signal.SIGKILL), err.decode()[-800:]
        count = _store_is_consistent(root)
        assert count >= seen  # entries are only ever added
        seen = count
    assert killed >= 3 and seen > 0
    lock = json.loads((root / "recipes.lock.json").read_text())
    # the files of each writer form a prefix 0..k-1: a later add never lands without the
    # earlier ones
    by_writer: dict[str, list[int]] = {}
    for entry in lock["files"]:
        writer, name = entry["path"].split("/")[1:]
        by_writer.setdefault(writer, []).append(int(name[1:-5]))
    for numbers in by_writer.values():
        assert sorted(numbers) == list(range(len(numbers)))


def test_concurrent_snapshot_writers_do_not_lose_entries(tmp_path: Path) -> None:
    root = tmp_path / "store"
    procs = [_spawn(SNAPSHOT_WRITER, str(root), f"c{i}", "6") for i in range(3)]
    for p in procs:
        _out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()[-800:]
    assert _store_is_consistent(root) == 18


def test_damaged_snapshot_object_is_detected(tmp_path: Path) -> None:
    from validator.source.snapshots import SnapshotStore
    from validator.source.verify import VerificationError

    store = SnapshotStore(tmp_path / "store")
    data = b"model:\n  model_id: org/name\n"
    commit, objects = one_file_commit("models/org/name.yaml", data)
    prov = Provenance.of_bytes("models/org/name.yaml", data, repository="org/recipes",
                               commit=commit)
    (entry,) = store.add([(prov, data)], objects=objects)
    store.object_path(entry.sha256).write_bytes(data.replace(b"org/name", b"org/evil"))
    checked, problems = store.verify()
    assert checked == 1 and len(problems) == 1
    with pytest.raises(VerificationError):
        store.read_verified(entry)
    # a fresh add of the right bytes repairs the object (it is re-hashed, not trusted)
    store.add([(prov, data)])
    assert store.verify() == (1, [])


PUBLISH_WRITER = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from validator.evidence.publish import Publisher

    out = Path(sys.argv[1])
    print("ready", flush=True)
    for i in range(int(sys.argv[2])):
        body = {"tool": {"version": "0.1.0"}, "n": i, "pad": "z" * 300_000}
        with Publisher(out) as pub:
            pub.put("org/recipes", "COMMIT", f"models/org/r{i}.yaml",
                    (json.dumps(body) + "\\n").encode())
            pub.rebuild_index()
""").replace("COMMIT", COMMIT)


def test_publisher_killed_at_random_points_leaves_whole_records(tmp_path: Path) -> None:
    out = tmp_path / "out"
    rng = random.Random(7)
    killed = 0
    for _ in range(6):
        proc = _spawn(PUBLISH_WRITER, str(out), "1000")
        killed += _kill_while_writing(proc, rng.uniform(0.02, 0.4))
        _out, err = proc.communicate(timeout=60)
        assert proc.returncode in (0, -signal.SIGKILL), err.decode()[-800:]
        records = [p for p in out.rglob("*.json") if not p.name.startswith(".")]
        assert records
        for record in records:
            json.loads(record.read_bytes())  # every visible file is complete JSON
    assert killed >= 3


def test_partial_files_of_killed_writers_are_cleaned(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    """Issue 16.7: temporary files a killed fetch left in ``objects/`` (and beside the
    lock) are removed under the store lock, by the next write and by ``snapshot verify``,
    which names each one."""
    from validator.cli import main
    from validator.source.snapshots import SnapshotStore

    store = SnapshotStore(tmp_path / "store")
    data = b"model:\n  model_id: org/name\n"
    commit, objects = one_file_commit("models/org/name.yaml", data)
    prov = Provenance.of_bytes("models/org/name.yaml", data, repository="org/recipes",
                               commit=commit)
    (entry,) = store.add([(prov, data)], objects=objects)
    obj = store.object_path(entry.sha256)
    partial = [obj.parent / f".{obj.name}.k{i}x.tmp" for i in range(43)]
    partial.append(store.lock_path.parent / f".{store.lock_path.name}.zz.tmp")
    for p in partial:
        p.write_bytes(b"half")
    assert main(["snapshot", "verify", "--snapshot-dir", str(store.root)]) == 0
    out = capsys.readouterr().out
    assert out.count("partial file left by an interrupted fetch; removed") == 44
    assert not [p for p in partial if p.exists()]
    partial[0].write_bytes(b"half")
    store.add([(prov, data)], objects=objects)
    assert not partial[0].exists()
    assert store.verify() == (1, [])
