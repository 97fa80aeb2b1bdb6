"""A warm ``publish`` skips only what its inputs manifest notes *and signs*: the manifest
lives in ``--out-dir``, so an edited record with its new digest noted there (or an entry
moved, or noted without the key) is re-derived and compared, never taken as verified."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.cli_in_process import run_cli
from tests.evidence.test_publish import store  # noqa: F401  (the corpus store fixture)
from validator.evidence.publish_inputs import MANIFEST, InputsManifest
from validator.source.snapshots import LOCK_NAME

KEY = b"k" * 32


def _noted(out: Path, secret: bytes | None) -> tuple[InputsManifest, Path]:
    target = out / "records" / "a.json"
    target.parent.mkdir(parents=True)
    target.write_bytes(b'{"fact": 1}\n')
    manifest = InputsManifest(out, secret)
    manifest.note(target, "d" * 64, target.read_bytes(), None)
    manifest.save()
    return manifest, target


def test_an_entry_is_trusted_only_with_its_hmac_under_the_key(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _, target = _noted(out, KEY)
    assert InputsManifest(out, KEY).unchanged(target, "d" * 64, None) is not None
    assert InputsManifest(out, b"x" * 32).unchanged(target, "d" * 64, None) is None
    assert InputsManifest(out, None).unchanged(target, "d" * 64, None) is None
    # the record edited and its new digest noted in the manifest: not signed, not trusted
    target.write_bytes(b'{"fact": 2}\n')
    doc = json.loads((out / MANIFEST).read_text())
    doc["records"]["records/a.json"]["sha256"] = hashlib.sha256(target.read_bytes()).hexdigest()
    (out / MANIFEST).write_text(json.dumps(doc))
    assert InputsManifest(out, KEY).unchanged(target, "d" * 64, None) is None


def test_an_entry_moved_to_another_record_is_not_trusted(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _, target = _noted(out, KEY)
    other = target.with_name("b.json")
    other.write_bytes(target.read_bytes())
    doc = json.loads((out / MANIFEST).read_text())
    doc["records"]["records/b.json"] = doc["records"]["records/a.json"]
    (out / MANIFEST).write_text(json.dumps(doc))
    assert InputsManifest(out, KEY).unchanged(other, "d" * 64, None) is None
    assert InputsManifest(out, KEY).unchanged(target, "d" * 64, None) is not None


def test_without_a_key_nothing_is_noted(tmp_path: Path) -> None:
    _noted(tmp_path / "out", None)
    assert json.loads((tmp_path / "out" / MANIFEST).read_text())["records"] == {}


def _run(lock: Path, out: Path) -> tuple[int, str, str]:
    """``publish`` through the CLI in this process (:func:`run_cli`)."""
    proc = run_cli("publish", "--lock", str(lock), "--out-dir", str(out), "--checked-on",
                   "2026-11-29")
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.corpus
def test_a_forged_manifest_does_not_make_publish_skip_an_edited_record(
        store: tuple[Path, list[str]], tmp_path: Path) -> None:  # noqa: F811
    root, paths = store
    lock, out, n = root / LOCK_NAME, tmp_path / "out", len(paths)
    assert _run(lock, out)[0] == 0
    rc, stdout, _ = _run(lock, out)
    assert rc == 0 and f"{n} unchanged by their inputs" in stdout
    doc = json.loads((out / MANIFEST).read_text())
    rel = sorted(doc["records"])[0]
    record = out / rel
    forged = json.loads(record.read_bytes())
    forged["notes"].append("forged: verified on every GPU")
    record.write_text(json.dumps(forged, indent=2, sort_keys=True) + "\n")
    doc["records"][rel]["sha256"] = hashlib.sha256(record.read_bytes()).hexdigest()
    (out / MANIFEST).write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    rc, stdout, stderr = _run(lock, out)
    assert rc == 1 and "same tool version" in stderr and record.name in stderr
    assert f"{n - 1} unchanged by their inputs" in stdout
    index = json.loads((out / "index.json").read_text())
    assert rel not in {e["file"] for e in index["records"]}
