"""The history audit renders a recipe blob once per revision context, carrying the site
renderings whose hardware reads hold (:mod:`validator.render.carry`): a taxonomy edit that
changes a profile value the renderings read changes the findings exactly as ``check`` of
the two trees does."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.render.tiny_tree import write_tree
from validator.cli import main
from validator.findings import finding_key
from validator.history.audit import AuditOptions, run_audit

RECIPE = "models/acme/Tiny-1B.yaml"
TAXONOMY = """\
hardware_profiles:
  hx8: {brand: NVIDIA, generation: hopper, gpu_count: 8, vram_gb: 640}
  amx8: {brand: AMD, generation: amd, gpu_count: 8, vram_gb: 1536}
"""


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-03-01T00:00:00+00:00",
           "GIT_COMMITTER_DATE": "2026-03-01T00:00:00+00:00"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env=env)


def _checked(tree: Path, monkeypatch: pytest.MonkeyPatch,
             capsys: pytest.CaptureFixture[str]) -> set[tuple[str, str, str]]:
    """``check``'s findings on the recipe in ``tree``, keyed as the audit compares them
    (:func:`~validator.findings.finding_key`)."""
    monkeypatch.chdir(tree)
    capsys.readouterr()
    main(["check", "--offline", "--no-cache", "--format", "json", RECIPE])
    report = json.loads(capsys.readouterr().out)
    return {finding_key(f["rule"], f["pointer"], f["message"]) for doc in report["documents"]
            if doc["path"] == RECIPE for f in doc["findings"]}


def test_a_profile_value_the_renderings_read_changes_the_audit_as_check(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``hx8`` turns from hopper to blackwell, the only blackwell hardware: the recipe's
    blackwell overrides now render on it (FLAG012: the tuning feature's blackwell
    ``--max-num-seqs`` overrides the base one); ``amx8``, unchanged, is carried."""
    repo = write_tree(tmp_path / "repo")
    (repo / "taxonomy.yaml").write_text(TAXONOMY)
    _git(repo.parent, "init", "-q", "-b", "main", str(repo))
    _git(repo, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "add", "-A")
    _git(repo, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm",
         "add")
    before = tmp_path / "before"
    shutil.copytree(repo, before, ignore=shutil.ignore_patterns(".git"))
    taxonomy = repo / "taxonomy.yaml"
    text = taxonomy.read_text()
    taxonomy.write_text(text.replace("generation: hopper", "generation: blackwell", 1))
    _git(repo, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qam",
         "hx8 is blackwell")
    old, new = _checked(before, monkeypatch, capsys), _checked(repo, monkeypatch, capsys)
    assert ("FLAG012", "/features/tuning/hardware_overrides/blackwell/args/0") in {
        (rule, pointer) for rule, pointer, _m in new - old}
    result = run_audit(AuditOptions(repo=repo, paths=[RECIPE], jobs=1,
                                    at_commit_date=False))
    assert not result.internal_errors
    second = result.revisions[-1]
    assert {finding_key(c.row[0], c.row[2], c.row[5]) for c in second.introduced} == new - old
    assert {finding_key(c.row[0], c.row[2], c.row[5]) for c in second.fixed} == old - new
