"""Publishing: atomic, idempotent, conflict-refusing, index rebuilt from disk; a publisher
killed with SIGKILL leaves only complete records and a re-run finishes the job."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli_in_process import run_cli
from tests.evidence.conftest import GLM52_UPSTREAM, REPO
from validator.evidence.model import validate_record
from validator.evidence.publish import PublishConflict, Publisher, record_path
from validator.source.git import GitTree
from validator.source.snapshots import LOCK_NAME, SnapshotStore, snapshot_spec

C = "c" * 40


def _rec(version: str = "0.1.0", checked: str = "2026-01-01", extra: str = "") -> bytes:
    doc = {"source": {"repository": REPO, "revision": C, "document_path": "models/a/b.yaml",
                      "document_sha256": "d" * 64, "checked_on": checked},
           "editorial": {"generated_on": checked}, "note": extra,
           "validation": {"tool": {"version": version},
                          "summary": {"errors": 0, "warnings": 1}}}
    return (json.dumps(doc, sort_keys=True) + "\n").encode()


def test_a_record_differing_only_in_resolved_from_is_the_same_record(tmp_path: Path) -> None:
    """Fetching a commit by its full id after fetching it as ``main`` rewrites the lock
    entry's ``resolved_from`` (``"main"`` -> ``None``): the document and every fact are
    the same, so the stored record stands (was: a conflict saying "the same input must
    give the same record", which named no difference). A real difference is named."""
    def rec(resolved: str | None, note: str = "") -> bytes:
        doc = json.loads(_rec(extra=note))
        doc["source"]["resolved_from"] = resolved
        return (json.dumps(doc, sort_keys=True) + "\n").encode()

    with Publisher(tmp_path) as pub:
        assert pub.put(REPO, C, "models/a/b.yaml", rec("main")) == "written"
        assert pub.put(REPO, C, "models/a/b.yaml", rec(None)) == "unchanged"
        target = record_path(tmp_path, REPO, C, "models/a/b.yaml")
        assert target.read_bytes() == rec("main")
        with pytest.raises(PublishConflict, match=r"\(differs at /note\); the same input"):
            pub.put(REPO, C, "models/a/b.yaml", rec(None, note="changed"))


def test_publish_rules(tmp_path: Path) -> None:
    with Publisher(tmp_path) as pub:
        assert pub.put(REPO, C, "models/a/b.yaml", _rec()) == "written"
        target = record_path(tmp_path, REPO, C, "models/a/b.yaml")
        stat = target.stat()
        assert pub.put(REPO, C, "models/a/b.yaml", _rec()) == "unchanged"
        assert target.stat().st_mtime_ns == stat.st_mtime_ns  # not rewritten
        # only the checked-on date differs: the earlier check stands
        assert pub.put(REPO, C, "models/a/b.yaml", _rec(checked="2026-02-02")) == "unchanged"
        assert target.read_bytes() == _rec()
        with pytest.raises(PublishConflict, match="same tool version"):
            pub.put(REPO, C, "models/a/b.yaml", _rec(extra="changed"))
        assert target.read_bytes() == _rec()
        assert pub.put(REPO, C, "models/a/b.yaml", _rec("0.2.0", extra="new")) == "replaced"
        kept = target.with_name("b.yaml@recipe-check-0.1.0.json")
        assert kept.read_bytes() == _rec() and target.read_bytes() == _rec("0.2.0", extra="new")
        pub.copy_schemas()
        (target.parent / ".b.yaml.json.abc.tmp").write_bytes(b"{partial")
        index = pub.rebuild_index()
    assert [(e["file"].rsplit("/", 1)[1], e["current"], e["tool_version"])
            for e in index["records"]] == [("b.yaml.json", True, "0.2.0"),
                                           ("b.yaml@recipe-check-0.1.0.json", False, "0.1.0")]
    assert index["schemas"] == ["schemas/record.schema.json"]
    assert json.loads((tmp_path / "index.json").read_text()) == index


@pytest.fixture(scope="module")
def store(corpus_tree: Callable[[str], GitTree], commit_map: dict[str, str],
          tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A snapshot store with the zai-org recipes of one corpus commit."""
    tree = corpus_tree(commit_map[GLM52_UPSTREAM[-1]])
    paths = [p for p in tree.list("models/zai-org") if p.endswith(".yaml")][:6]
    root = tmp_path_factory.mktemp("store")
    snapshot_spec(SnapshotStore(root), tree, REPO, paths)
    return root, paths


def _publish(lock: Path, out: Path, pause: str = "0") -> subprocess.Popen[bytes]:
    env = dict(os.environ, RECIPE_CHECK_PUBLISH_PAUSE=pause)
    return subprocess.Popen([sys.executable, "-m", "validator", "publish", "--lock", str(lock),
                             "--out", str(out), "--checked-on", "2026-11-29", "--attestation"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _records(out: Path) -> list[Path]:
    return [p for p in (out / "records").rglob("*.json")
            if not p.name.startswith(".") and not p.name.endswith(".intoto.json")]


@pytest.mark.corpus
def test_killed_publish_leaves_complete_records_and_rerun_finishes(
        store: tuple[Path, list[str]], tmp_path: Path) -> None:
    root, paths = store
    out = tmp_path / "out"
    # a 2 s pause after each record: the kill lands after the second record and before
    # the third however busy the machine (the 0.4 s it was could let a third through)
    proc = _publish(root / LOCK_NAME, out, pause="2")
    while proc.poll() is None and (not (out / "records").is_dir() or len(_records(out)) < 2):
        time.sleep(0.02)  # bounded by the publisher: it ends after its last record
    assert proc.poll() is None, "the publisher finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    partial = _records(out)
    assert 2 <= len(partial) < len(paths)
    for p in partial:  # every record present is complete and valid
        validate_record(json.loads(p.read_bytes()))
    assert not (out / "index.json").exists()  # the index is written last
    # re-run finishes the job; records written before the kill are unchanged
    before = {p: p.read_bytes() for p in partial}
    done = _publish(root / LOCK_NAME, out)
    stdout, stderr = done.communicate(timeout=120)
    assert done.returncode == 0, stderr.decode()
    assert f"{len(partial)} unchanged" in stdout.decode()
    assert all(p.read_bytes() == data for p, data in before.items())
    index = json.loads((out / "index.json").read_text())
    assert sorted(e["path"] for e in index["records"]) == sorted(paths)
    assert all(e["current"] and e["attestation"] for e in index["records"])
    assert (out / "schemas" / "record.schema.json").is_file()
    # a third run is a no-op
    again = _publish(root / LOCK_NAME, out)
    stdout, _ = again.communicate(timeout=120)
    assert again.returncode == 0 and f"{len(paths)} unchanged" in stdout.decode()


@pytest.mark.corpus
def test_publish_kill_at_random_moments(store: tuple[Path, list[str]], tmp_path: Path) -> None:
    """SIGKILL at several arbitrary instants (no pause hook): never a partial record."""
    import random

    root, paths = store
    out = tmp_path / "out"
    rng = random.Random(6)
    for _ in range(3):
        proc = _publish(root / LOCK_NAME, out)
        time.sleep(rng.uniform(0.3, 1.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        for p in _records(out):
            validate_record(json.loads(p.read_bytes()))
    done = _publish(root / LOCK_NAME, out)
    _, stderr = done.communicate(timeout=120)
    assert done.returncode == 0, stderr.decode()
    assert len(_records(out)) == len(paths)


def test_keys_cannot_leave_the_output_folder(tmp_path: Path) -> None:
    with Publisher(tmp_path / "out") as pub:
        for repo, commit, path in ((REPO, C, "../../escape.yaml"), ("../x", C, "models/a.yaml"),
                                   (REPO, "main", "models/a.yaml"), (REPO, C, "/etc/x.yaml")):
            with pytest.raises(ValueError):
                pub.put(repo, commit, path, _rec())
    assert not list((tmp_path / "out").rglob("*.json"))


@pytest.mark.corpus
def test_concurrent_publishers(store: tuple[Path, list[str]], tmp_path: Path) -> None:
    root, paths = store
    out = tmp_path / "out"
    procs = [_publish(root / LOCK_NAME, out) for _ in range(2)]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [e.decode() for _, e in outputs]
    said = sorted(o.decode() for o, _ in outputs)
    assert f"{len(paths)} unchanged" in said[0] and f"{len(paths)} written" in said[1]
    for p in _records(out):
        validate_record(json.loads(p.read_bytes()))
    assert len(json.loads((out / "index.json").read_text())["records"]) == len(paths)


@pytest.mark.corpus
def test_rerun_after_a_tool_upgrade_keeps_the_old_record(store: tuple[Path, list[str]],
                                                         tmp_path: Path) -> None:
    """A record published by an older tool version (simulated by rewriting the version in
    a published file) is kept beside the new one; a tampered record from the *same*
    version is refused, left as it is and not indexed (was: indexed as current)."""
    root, paths = store
    out = tmp_path / "out"
    assert _run(root / LOCK_NAME, out)[0] == 0
    older, tampered = sorted(_records(out))[:2]
    doc = json.loads(older.read_bytes())
    doc["validation"]["tool"]["version"] = "0.0.1"
    older.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    old_bytes = older.read_bytes()
    doc = json.loads(tampered.read_bytes())
    doc["notes"].append("edited by hand")
    tampered.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    tampered_bytes = tampered.read_bytes()
    rc, stdout, stderr = _run(root / LOCK_NAME, out)
    assert rc == 1
    assert "same tool version" in stderr and "1 replaced" in stdout
    kept = older.with_name(older.name[:-len(".json")] + "@recipe-check-0.0.1.json")
    assert kept.read_bytes() == old_bytes
    assert json.loads(older.read_bytes())["validation"]["tool"]["version"] != "0.0.1"
    assert tampered.read_bytes() == tampered_bytes
    index = json.loads((out / "index.json").read_text())
    assert len(index["records"]) == len(paths)  # the kept one in, the tampered one out
    assert tampered.relative_to(out).as_posix() not in {e["file"] for e in index["records"]}
    assert tampered.relative_to(out).as_posix() in {e["file"] for e in index["not_verified"]}
    assert [e["current"] for e in index["records"] if e["file"].endswith(kept.name)] == [False]


def _run(lock: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    """``publish`` in this process (:func:`run_cli`): what it prints and returns, for the
    tests that do not kill it or race two of them."""
    proc = run_cli("publish", "--lock", str(lock), "--out", str(out), "--checked-on",
                   "2026-11-29", "--attestation", *extra)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.corpus
def test_warm_publish_skips_unchanged_inputs_only_when_the_bytes_verify(
        store: tuple[Path, list[str]], tmp_path: Path) -> None:
    """A warm run does not re-derive records of unchanged inputs, but an edited record, a
    deleted statement, a damaged manifest or another checked-on date take the full path."""
    from validator.evidence.publish_inputs import MANIFEST

    root, paths = store
    lock, out, n = root / LOCK_NAME, tmp_path / "out", len(paths)
    rc, stdout, _ = _run(lock, out)
    assert rc == 0 and f"{n} written" in stdout and "0 unchanged by their inputs" in stdout
    cold = {p: p.read_bytes() for p in (out / "records").rglob("*.json")}
    index = (out / "index.json").read_bytes()
    manifest = json.loads((out / MANIFEST).read_text())
    assert sorted(manifest["records"]) == sorted(
        p.relative_to(out).as_posix() for p in _records(out))

    rc, stdout, _ = _run(lock, out)
    assert rc == 0 and f"{n} unchanged" in stdout and f"{n} unchanged by their inputs" in stdout
    assert {p: p.read_bytes() for p in (out / "records").rglob("*.json")} == cold
    assert (out / "index.json").read_bytes() == index

    edited, unstated = sorted(_records(out))[:2]
    doc = json.loads(edited.read_bytes())
    doc["notes"].append("edited by hand")
    edited.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    statement = unstated.with_name(unstated.name[:-len(".json")] + ".intoto.json")
    statement.unlink()
    rc, stdout, stderr = _run(lock, out)
    assert rc == 1 and "same tool version" in stderr and str(edited.name) in stderr
    assert f"{n - 2} unchanged by their inputs" in stdout
    assert statement.read_bytes() == cold[statement]  # re-made, not skipped
    edited.write_bytes(cold[edited])

    (out / MANIFEST).write_text("{ damaged")
    rc, stdout, _ = _run(lock, out)
    assert rc == 0 and "0 unchanged by their inputs" in stdout and f"{n} unchanged" in stdout
    assert json.loads((out / MANIFEST).read_text()) == manifest

    rc, stdout, _ = _run(lock, out, "--checked-on", "2026-11-30")
    assert rc == 0 and "0 unchanged by their inputs" in stdout
