"""The history audit renders a recipe blob once per revision context, carrying the site
renderings whose hardware reads hold (:mod:`validator.render.carry`): a taxonomy edit that
changes a profile value the renderings read changes the audit's findings as ``check`` of
the two trees does, and the findings at the edited revision are those of an audit that
never saw the earlier taxonomy."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.render.tiny_tree import write_tree
from validator.cache import FindingRow
from validator.cli import main
from validator.findings import finding_key
from validator.history.audit import AuditOptions, run_audit

RECIPE = "models/acme/Tiny-1B.yaml"
TAXONOMY = """\
hardware_profiles:
  hx8: {brand: NVIDIA, generation: hopper, gpu_count: 8, vram_gb: 640}
  amx8: {brand: AMD, generation: amd, gpu_count: 8, vram_gb: 1536}
"""
BLACKWELL = TAXONOMY.replace("generation: hopper", "generation: blackwell")
"""``hx8`` turned blackwell, the only blackwell hardware: the recipe's blackwell overrides
now render on it; ``amx8``'s renderings read nothing that changed."""


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-03-01T00:00:00+00:00",
           "GIT_COMMITTER_DATE": "2026-03-01T00:00:00+00:00"}
    subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@example.invalid", "-c",
                    "user.name=t", *args], check=True, capture_output=True, env=env)


def _repo(root: Path, taxonomies: list[str]) -> Path:
    """The tiny tree committed once per taxonomy, then a commit deleting the recipe (the
    audit then reports every finding of the last taxonomy's revision in full)."""
    repo = write_tree(root)
    _git(repo.parent, "init", "-q", "-b", "main", str(repo))
    for text in taxonomies:
        (repo / "taxonomy.yaml").write_text(text)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "taxonomy")
    _git(repo, "rm", "-q", RECIPE)
    _git(repo, "commit", "-qm", "drop the recipe")
    return repo


def _checked(tree: Path, monkeypatch: pytest.MonkeyPatch,
             capsys: pytest.CaptureFixture[str]) -> set[tuple[str, str, str]]:
    """``check``'s findings on the recipe in ``tree``, keyed as the audit compares them
    (:func:`finding_key`)."""
    monkeypatch.chdir(tree)
    capsys.readouterr()
    main(["check", "--offline", "--no-cache", "--format", "json", RECIPE])
    report = json.loads(capsys.readouterr().out)
    return {finding_key(f["rule"], f["pointer"], f["message"]) for doc in report["documents"]
            if doc["path"] == RECIPE for f in doc["findings"]}


def _last_findings(repo: Path) -> tuple[list[list[FindingRow]], list[FindingRow]]:
    """The audited revisions' introduced rows (but the deletion's), and the rows the
    deletion fixed: every finding of the revision before it."""
    result = run_audit(AuditOptions(repo=repo, paths=[RECIPE], jobs=1,
                                    at_commit_date=False))
    assert not result.internal_errors
    *edits, deletion = result.revisions
    return [[c.row for c in r.introduced] for r in edits], [c.row for c in deletion.fixed]


def test_a_profile_value_the_renderings_read_changes_the_audit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    hopper_tree = write_tree(tmp_path / "hopper")
    (hopper_tree / "taxonomy.yaml").write_text(TAXONOMY)
    blackwell_tree = write_tree(tmp_path / "blackwell")
    (blackwell_tree / "taxonomy.yaml").write_text(BLACKWELL)
    old = _checked(hopper_tree, monkeypatch, capsys)
    new = _checked(blackwell_tree, monkeypatch, capsys)
    # FLAG012: the tuning feature's blackwell --max-num-seqs overrides the base one
    assert ("FLAG012", "/features/tuning/hardware_overrides/blackwell/args/0") in {
        (rule, pointer) for rule, pointer, _m in new - old}
    introduced, carried = _last_findings(_repo(tmp_path / "both", [TAXONOMY, BLACKWELL]))
    assert {finding_key(r[0], r[2], r[5]) for r in introduced[1]} == new - old
    # the same as an audit of the blackwell revision alone (no renderings to carry),
    # messages (the configurations they name) included
    _, alone = _last_findings(_repo(tmp_path / "alone", [BLACKWELL]))
    assert carried == alone
