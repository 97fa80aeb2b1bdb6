"""``scripts/pr_audit.py`` (PR mode over pull-request heads) on a few real pull requests."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from .conftest import PROJECT

pytestmark = pytest.mark.corpus


def test_audit_script_counts_and_rules(corpus_repo: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("pr_audit", PROJECT / "scripts" / "pr_audit.py")
    assert spec and spec.loader
    audit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(audit)
    out_json = tmp_path / "rows.json"
    code = audit.main(["--repo", str(corpus_repo), "--jobs", "1", "--pr", "12", "--pr", "488",
                       "--pr", "616", "--json", str(out_json)])
    text = capsys.readouterr().out
    assert code == 0
    rows = {r["pr"]: r for r in json.loads(out_json.read_text())}
    assert set(rows) == {12, 488, 616}
    assert rows[12]["files"] == 0 and rows[488]["files"] == 3 and rows[616]["files"] == 2
    assert rows[488]["by_reference"] == 2
    assert rows[616]["rules"]["REF013"] == 3
    with_errors = sum(1 for r in rows.values() if r["errors"])
    assert text.startswith("pull-request heads: 3 (against main's merge base)")
    assert f"  with errors: {with_errors};" in text
    assert "  crashes: 0" in text
    assert "REF013" in text
