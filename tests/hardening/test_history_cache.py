"""History cache entries cannot be forged, and odd things in their place never abort a
run (issue 16, item 6)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.history_slice import SLICE, cold_slice_cache
from validator.cache import ResultCache
from validator.history.audit import AuditOptions, AuditResult, run_audit

pytestmark = pytest.mark.corpus
FORGED = ["YAML001", "error", "", 1, 1, "forged finding"]


def audit(repo: Path, **kw: Any) -> AuditResult:
    return run_audit(AuditOptions(repo=repo, jobs=1, **kw))


def _rows(result: AuditResult) -> str:
    return json.dumps(sorted((r.commit.id, c.path, list(c.row)) for r in result.revisions
                             for c in r.introduced + r.fixed))


def test_forged_entry_with_recomputed_checksum_is_refused(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    cache.put("ab" * 32, {"label": {"rows": []}})
    path = next(tmp_path.rglob("*.json"))
    entry = json.loads(path.read_text())
    entry["results"]["label"]["rows"].append(FORGED)
    text = json.dumps(entry["results"], sort_keys=True, separators=(",", ":"))
    entry["checksum"] = hashlib.sha256(text.encode()).hexdigest()  # the old, unkeyed form
    path.write_text(json.dumps(entry))
    again = ResultCache(tmp_path)
    assert again.get("ab" * 32) == {}
    assert again.corrupt == 1
    other = ResultCache(tmp_path / "elsewhere")  # another cache's secret does not fit either
    other.put("ab" * 32, {"label": {"rows": [FORGED]}})
    shutil.copy(next((tmp_path / "elsewhere").rglob("*.json")), path)
    assert ResultCache(tmp_path).get("ab" * 32) == {}


def test_forged_entry_in_a_real_audit(corpus_repo: Path, tmp_path: Path,
                                      tmp_path_factory: pytest.TempPathFactory) -> None:
    cache, reference = cold_slice_cache(tmp_path_factory, corpus_repo, tmp_path / "root")
    for path in sorted(cache.rglob("*.json")):
        entry = json.loads(path.read_text())
        for value in entry["results"].values():
            if isinstance(value, dict) and isinstance(value.get("rows"), list):
                value["rows"].append(FORGED)
        text = json.dumps(entry["results"], sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False)
        entry["checksum"] = hashlib.sha256(text.encode()).hexdigest()
        path.write_text(json.dumps(entry))
    again = audit(corpus_repo, paths=[SLICE], cache_dir=cache)
    assert again.corrupt > 0 and again.checked > 0
    assert "forged finding" not in _rows(again)
    assert _rows(again) == _rows(reference)


def test_entry_replaced_by_a_folder_does_not_abort(
        corpus_repo: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    cache, reference = cold_slice_cache(tmp_path_factory, corpus_repo, tmp_path / "root")
    entries = sorted(cache.rglob("*.json"))
    for path in entries[:3]:
        path.unlink()
        (path / "inside").mkdir(parents=True)
    again = audit(corpus_repo, paths=[SLICE], cache_dir=cache)
    assert again.corrupt >= 3
    assert _rows(again) == _rows(reference)
    (cache / ".secret").unlink()
    (cache / ".secret").mkdir()  # no secret to be had: the run goes on without the cache
    third = audit(corpus_repo, paths=[SLICE], cache_dir=cache)
    assert third.cached == 0 and _rows(third) == _rows(reference)
