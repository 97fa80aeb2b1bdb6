"""Tampered publish folders (issue 16, item 5): publishing re-derives every record and
compares, and reports every file it did not make."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main
from validator.source.snapshots import LOCK_NAME

pytestmark = pytest.mark.corpus

REPO = "vllm-project/recipes"


@pytest.fixture(scope="module")
def lock(corpus_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    commit = subprocess.run(["git", "-C", str(corpus_repo), "rev-parse", "main"], check=True,
                            capture_output=True, text=True).stdout.strip()
    store = tmp_path_factory.mktemp("store")
    specs = [f"{REPO}@{commit}:models/zai-org/GLM-5.2.yaml",
             f"{REPO}@{commit}:models/Qwen/Qwen3-8B.yaml"]
    assert main(["fetch", *specs, "--git-url", str(corpus_repo), "--cache-dir",
                 str(tmp_path_factory.mktemp("cache")), "--snapshot-dir", str(store)]) == 0
    return store / LOCK_NAME


def _publish(lock: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["publish", "--lock", str(lock), "--out", str(out), "--checked-on",
                 "2026-11-29", "--attestation"])
    got = capsys.readouterr()
    return code, got.out + got.err


def _records(out: Path) -> list[Path]:
    return sorted(p for p in (out / "records").rglob("*.json")
                  if not p.name.startswith(".") and not p.name.endswith(".intoto.json"))


def _edit(file: Path, change: Callable[[dict[str, Any]], None]) -> None:
    doc = json.loads(file.read_text())
    change(doc)
    file.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")


def _version_and_fact(doc: dict[str, Any]) -> None:
    doc["validation"]["tool"]["version"] = "0.0.1"
    doc["facts"][0]["value"] = "forged value"


def test_clean_republish_reports_nothing(lock: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert _publish(lock, out, capsys)[0] == 0
    code, text = _publish(lock, out, capsys)
    assert code == 0 and "did not make" not in text
    older = _records(out)[0]
    _edit(older, lambda d: d["validation"]["tool"].update(version="0.0.1"))
    code, text = _publish(lock, out, capsys)  # a genuine older tool's record is kept
    assert code == 0 and "1 replaced" in text
    assert older.with_name(older.name[:-5] + "@recipe-check-0.0.1.json").is_file()


@pytest.mark.parametrize("case", ["version+fact", "truncated", "not a record", "other doc"])
def test_tampered_current_record_is_replaced_not_kept(case: str, lock: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    out = tmp_path / "out"
    assert _publish(lock, out, capsys)[0] == 0
    target = _records(out)[0]
    good = target.read_bytes()
    if case == "version+fact":
        _edit(target, _version_and_fact)
    elif case == "truncated":
        target.write_bytes(good[: len(good) // 2])
    elif case == "not a record":
        target.write_text('{"hello": "world"}\n')
    else:
        def other_document(d: dict[str, Any]) -> None:
            d["validation"]["tool"]["version"] = "0.0.1"
            d["source"]["document_sha256"] = "0" * 64
        _edit(target, other_document)
    code, text = _publish(lock, out, capsys)
    assert code == 1 and "not a record publish made" in text, text
    assert target.read_bytes() == good  # re-derived and written again
    assert not list(target.parent.glob(target.name[:-5] + "@recipe-check-*"))


def test_bogus_files_are_reported_and_not_indexed(lock: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert _publish(lock, out, capsys)[0] == 0
    real = _records(out)[0]
    doc = json.loads(real.read_text())
    bogus = real.with_name("Bogus-Model.yaml.json")
    doc["source"]["document_path"] = doc["source"]["document_path"].rsplit("/", 1)[0] + \
        "/Bogus-Model.yaml"
    bogus.write_text(json.dumps(doc))
    elsewhere = out / "records" / "evil" / "x.json"
    elsewhere.parent.mkdir(parents=True)
    elsewhere.write_text(real.read_text())  # a copy of a real record in the wrong place
    (out / "records" / "notes.txt").write_text("hi")
    code, text = _publish(lock, out, capsys)
    assert code == 1
    for f in (bogus, elsewhere, out / "records" / "notes.txt"):
        assert str(f) in text, (f, text)
    index = json.loads((out / "index.json").read_text())
    files = {e["file"] for e in index["records"]}
    assert not any("Bogus" in f or "evil" in f for f in files)
    assert {e["file"] for e in index["not_verified"]} >= {
        "records/evil/x.json", "records/notes.txt",
        bogus.relative_to(out).as_posix()}


def test_edited_attestation_is_rewritten(lock: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert _publish(lock, out, capsys)[0] == 0
    att = next((out / "records").rglob("*.intoto.json"))
    good = att.read_bytes()
    _edit(att, lambda d: d["subject"][0]["digest"].update(sha256="0" * 64))
    code, text = _publish(lock, out, capsys)
    assert code == 1 and "rewritten" in text
    assert att.read_bytes() == good
    assert _publish(lock, out, capsys)[0] == 0
