"""Snapshot store: fetch stores verified bytes + lock entries; verify and offline reads
re-hash every time and catch files altered on disk."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main
from validator.source.provenance import Provenance, git_blob_id
from validator.source.snapshots import LOCK_NAME, SnapshotStore, SnapshotTree
from validator.source.tree import SourceError
from validator.source.verify import VerificationError

from ._util import (
    GLM,
    REPO,
    UPSTREAM_PINS,
    assert_findings_schema,
    git_out,
    one_file_commit,
)

pytestmark = pytest.mark.corpus


@pytest.fixture()
def fetched(commit_map: dict[str, str], corpus_repo: Path, git_cache: Path,
            tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    """A snapshot store holding GLM-5.2.yaml and its context at one pinned commit."""
    commit = commit_map[UPSTREAM_PINS[2]]
    store = tmp_path / "snap"
    code = main(["fetch", f"{REPO}@{commit}:{GLM}", "--git-url", str(corpus_repo),
                 "--cache-dir", str(git_cache), "--store-dir", str(store)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"{REPO}@{commit}: " in out
    return store, commit


def _offline(store: Path, spec: str, capsys: pytest.CaptureFixture[str],
             *extra: str) -> tuple[int, dict[str, Any]]:
    code = main([spec, "--offline", "--store-dir", str(store), "--format", "json", *extra])
    return code, json.loads(capsys.readouterr().out)


def test_fetch_records_what_git_reports(fetched: tuple[Path, str], corpus_repo: Path) -> None:
    store_dir, commit = fetched
    store = SnapshotStore(store_dir)
    lock = store.load()
    paths = {e.path for e in lock.files}
    strategies = git_out(corpus_repo, "ls-tree", "--name-only", commit, "strategies/")
    assert paths >= {GLM, "taxonomy.yaml", *strategies.split()}
    for e in lock.files:
        assert e.commit == commit and e.repository == REPO and e.resolved_from is None
        assert e.git_blob == git_out(corpus_repo, "rev-parse", f"{commit}:{e.path}")
        data = store.object_path(e.sha256).read_bytes()
        assert hashlib.sha256(data).hexdigest() == e.sha256
        last = git_out(corpus_repo, "log", "-1", "--format=%H", commit, "--", e.path)
        assert e.last_commit == last
        assert e.fetched_from == str(corpus_repo)
    listing = store.listing(REPO, commit)
    assert listing is not None
    models = git_out(corpus_repo, "ls-tree", "-r", "--name-only", commit, "models/").split()
    assert [p for p in listing.paths if p.startswith("models/")] == sorted(models)
    raw = json.loads((store_dir / LOCK_NAME).read_text())
    assert "gitBlob" in raw["files"][0]


def test_offline_check_matches_online(fetched: tuple[Path, str], corpus_repo: Path,
                                      git_cache: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    store, commit = fetched
    spec = f"{REPO}@{commit}:{GLM}"
    code_off, off = _offline(store, spec, capsys)
    code_on = main([spec, "--git-url", str(corpus_repo), "--cache-dir", str(git_cache),
                    "--format", "json", "--store-dir", str(store)])
    on = json.loads(capsys.readouterr().out)
    assert code_off == code_on
    assert off["documents"] == on["documents"]
    doc = off["documents"][0]
    assert doc["revision"] == commit and doc["gitBlob"] == git_out(
        corpus_repo, "rev-parse", f"{commit}:{GLM}")
    assert main(["snapshot", "verify", "--store-dir", str(store)]) == 0
    assert "0 mismatch(es)" in capsys.readouterr().out


def test_altered_recipe_detected(fetched: tuple[Path, str],
                                 capsys: pytest.CaptureFixture[str]) -> None:
    store_dir, commit = fetched
    store = SnapshotStore(store_dir)
    entry = store.entry(REPO, commit, GLM)
    assert entry is not None
    obj = store.object_path(entry.sha256)
    obj.write_bytes(obj.read_bytes().replace(b"GLM", b"GLN", 1))
    assert main(["snapshot", "verify", "--store-dir", str(store_dir)]) == 1
    out = capsys.readouterr().out
    assert f"{REPO}@{commit}:{GLM}: error PROV003" in out
    assert "1 mismatch(es)" in out
    code, report = _offline(store_dir, f"{REPO}@{commit}:{GLM}", capsys)
    assert code == 1
    assert_findings_schema(report)
    doc = report["documents"][0]
    assert [f["rule"] for f in doc["findings"]] == ["PROV003"]
    assert doc["sha256"] == hashlib.sha256(obj.read_bytes()).hexdigest() != entry.sha256
    tree = SnapshotTree.open(store, REPO, commit)
    with pytest.raises(VerificationError, match="PROV003"):
        tree.read(GLM)


def test_altered_context_detected_on_offline_read(fetched: tuple[Path, str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    store_dir, commit = fetched
    store = SnapshotStore(store_dir)
    entry = store.entry(REPO, commit, "taxonomy.yaml")
    assert entry is not None
    store.object_path(entry.sha256).write_bytes(b"hardware_profiles: {}\n")
    code, report = _offline(store_dir, f"{REPO}@{commit}:{GLM}", capsys)
    assert code == 1
    docs = report["documents"]
    assert [(d["path"], [f["rule"] for f in d["findings"]]) for d in docs] == [
        ("taxonomy.yaml", ["PROV003"])]


def test_refetch_repairs_and_missing_object(fetched: tuple[Path, str], corpus_repo: Path,
                                            git_cache: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    store_dir, commit = fetched
    store = SnapshotStore(store_dir)
    entry = store.entry(REPO, commit, GLM)
    assert entry is not None
    store.object_path(entry.sha256).unlink()
    assert main(["snapshot", "verify", "--store-dir", str(store_dir)]) == 1
    assert "is missing" in capsys.readouterr().out
    code, report = _offline(store_dir, f"{REPO}@{commit}:{GLM}", capsys)
    assert code == 1
    assert_findings_schema(report)
    assert main(["fetch", f"{REPO}@{commit}:{GLM}", "--git-url", str(corpus_repo),
                 "--cache-dir", str(git_cache), "--store-dir", str(store_dir)]) == 0
    assert main(["snapshot", "verify", "--store-dir", str(store_dir)]) == 0


def test_lock_entry_disagreeing_is_prov002(fetched: tuple[Path, str], corpus_repo: Path,
                                           git_cache: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    store_dir, commit = fetched
    lock_path = store_dir / LOCK_NAME
    lock = json.loads(lock_path.read_text())
    for e in lock["files"]:
        if e["path"] == GLM:
            e["sha256"] = "cd" * 32
    lock_path.write_text(json.dumps(lock))
    code = main([f"{REPO}@{commit}:{GLM}", "--git-url", str(corpus_repo), "--cache-dir",
                 str(git_cache), "--store-dir", str(store_dir), "--format", "json"])
    doc = json.loads(capsys.readouterr().out)["documents"][0]
    assert code == 1
    assert [f["rule"] for f in doc["findings"]] == ["PROV002"]
    assert "lock file" in doc["findings"][0]["message"]
    assert main(["fetch", f"{REPO}@{commit}:{GLM}", "--git-url", str(corpus_repo),
                 "--cache-dir", str(git_cache), "--store-dir", str(store_dir)]) == 1
    assert "nothing stored" in capsys.readouterr().err


def test_fetch_expect_sha256_stores_nothing(commit_map: dict[str, str], corpus_repo: Path,
                                            git_cache: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    commit = commit_map[UPSTREAM_PINS[0]]
    store = tmp_path / "snap"
    code = main(["fetch", f"{REPO}@{commit}:{GLM}", "--git-url", str(corpus_repo),
                 "--cache-dir", str(git_cache), "--store-dir", str(store),
                 "--expect-sha256", "00" * 32])
    err = capsys.readouterr().err
    assert code == 1
    assert "PROV002" in err and "nothing stored" in err
    assert not (store / LOCK_NAME).exists()
    good = hashlib.sha256(git_out(corpus_repo, "show", f"{commit}:{GLM}").encode()
                          + b"\n").hexdigest()
    assert main(["fetch", f"{REPO}@{commit}:{GLM}", "--git-url", str(corpus_repo),
                 "--cache-dir", str(git_cache), "--store-dir", str(store),
                 "--expect-sha256", good]) == 0


def test_offline_unknown_commit_and_branch(fetched: tuple[Path, str], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    store, commit = fetched
    assert main([f"{REPO}@{'1' * 40}:{GLM}", "--offline", "--store-dir", str(store)]) == 2
    assert "not in the snapshot store" in capsys.readouterr().err
    assert main([f"{REPO}@main:{GLM}", "--offline", "--store-dir", str(store)]) == 2
    capsys.readouterr()
    # a unique short id of a stored commit is accepted (and reported as not pinned)
    _, report = _offline(store, f"{REPO}@{commit[:8]}:{GLM}", capsys)
    doc = report["documents"][0]
    assert doc["revision"] == commit and doc["resolved_from"] == commit[:8]
    assert "PROV004" in [f["rule"] for f in doc["findings"]]
    assert main([f"{REPO}@{commit}:models/none.yaml", "--offline", "--store-dir",
                 str(store)]) == 2


def _prov(path: str, data: bytes, commit: str) -> Provenance:
    return Provenance.of_bytes(path, data, repository="t/r", commit=commit)


def test_concurrent_writers_keep_every_entry(tmp_path: Path) -> None:
    """Writers in parallel threads, each with its own store object, lose no entry."""
    errors: list[BaseException] = []

    def write(n: int) -> None:
        try:
            data = f"n: {n}\n".encode()
            commit, objects = one_file_commit(f"f{n}.yaml", data)
            SnapshotStore(tmp_path).add([(_prov(f"f{n}.yaml", data, commit), data)],
                                        objects=objects)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    store = SnapshotStore(tmp_path)
    assert len(store.load().files) == 12
    assert store.verify() == (12, [])
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(f".{LOCK_NAME}.") and
                not p.name.endswith(".lock")]


def test_store_refuses_bad_input(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    data = b"a: 1\n"
    wrong = Provenance("a.yaml", "ab" * 32, git_blob_id(data), repository="t/r",
                       commit="1" * 40)
    with pytest.raises(VerificationError, match="PROV002"):
        store.add([(wrong, data)])
    with pytest.raises(SourceError, match="pinned commit"):
        store.add([(Provenance.of_bytes("a.yaml", data), data)])
    (tmp_path / LOCK_NAME).write_text('{"version": 1, "files": [{"path": 3}]}')
    with pytest.raises(SourceError, match="not a valid lock file"):
        store.load()


def test_fetch_many_specs_one_lock_update(commit_map: dict[str, str], corpus_repo: Path,
                                          git_cache: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Several documents of two commits; a missing path is reported, the rest stored."""
    a, b = commit_map[UPSTREAM_PINS[1]], commit_map[UPSTREAM_PINS[3]]
    store = tmp_path / "snap"
    specs = [f"{REPO}@{a}:{GLM}", f"{REPO}@{a}:models/zai-org/GLM-5.yaml",
             f"{REPO}@{b}:{GLM}", f"{REPO}@{b}:models/zai-org/none.yaml"]
    code = main(["fetch", *specs, "--git-url", str(corpus_repo), "--cache-dir",
                 str(git_cache), "--store-dir", str(store)])
    captured = capsys.readouterr()
    assert code == 2
    assert "none.yaml: not in vllm-project/recipes at commit" in captured.err
    entries = SnapshotStore(store).load().files
    assert {(e.commit, e.path) for e in entries} >= {(a, GLM), (a, "models/zai-org/GLM-5.yaml"),
                                                     (b, GLM)}
    assert not [e for e in entries if e.path.endswith("none.yaml")]
    assert main(["snapshot", "list", "--store-dir", str(store)]) == 0
    assert f"{REPO}@{b}:{GLM}" in capsys.readouterr().out
