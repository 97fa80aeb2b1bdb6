"""REF025 in the history audit finds the other recipes' variant ids by their git blob
ids: the walk read each recipe's ids once, so a worker checking a recipe at any revision
reads no other recipe's bytes for them (it read every recipe of the revision again, per
context, before)."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import pytest

from tests.history.test_history_audit import audit, changes
from tests.pr.test_variant_id_collisions import CHAT, MOE, _variant
from validator import api_claims
from validator.history.gitdata import GitObjects


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@example.invalid", "-c",
                    "user.name=t", *args], check=True, capture_output=True)


@pytest.fixture
def claiming_repo(examples_tree: Path) -> Path:
    """The example recipes, each with a promoted variant (REF025 reads the other's ids),
    over three commits: the variants, an edit of one recipe, a clash REF025 reports."""
    _git(examples_tree, "init", "-q", "-b", "main")
    _variant(examples_tree, CHAT, "fp8", "example-org/Example-Chat-8B-FP8")
    _variant(examples_tree, MOE, "fp8", "example-org/Example-MoE-120B-FP8")
    _git(examples_tree, "add", "-A")
    _git(examples_tree, "commit", "-q", "-m", "variants")
    chat = examples_tree / CHAT
    chat.write_text(chat.read_text("utf-8") + "# edited\n", "utf-8")
    _git(examples_tree, "commit", "-q", "-am", "edit")
    chat.write_text(chat.read_text("utf-8").replace("Example-Chat-8B-FP8",
                                                    "Example-MoE-120B-FP8"), "utf-8")
    _git(examples_tree, "commit", "-q", "-am", "clash")
    return examples_tree


def test_a_cold_audit_reads_each_recipe_blob_once_for_claims_and_once_to_check_it(
        claiming_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recipes = {oid for line in subprocess.run(
        ["git", "-C", str(claiming_repo), "log", "--all", "--format=", "--raw",
         "--no-abbrev", "--", "models"], check=True, capture_output=True,
        text=True).stdout.splitlines() if line.startswith(":")
        for oid in line.split()[2:4]} - {"0" * 40}
    assert len(recipes) == 4
    reads: Counter[str] = Counter()
    real = GitObjects.read_many

    def recorded(self: GitObjects, oids: list[str]) -> list[tuple[str, bytes]]:
        reads.update(o for o in oids if o in recipes)
        return real(self, oids)

    monkeypatch.setattr(GitObjects, "read_many", recorded)
    api_claims._OF_BYTES.clear()  # as in a new process
    found = audit(claiming_repo)
    assert set(reads) == recipes and max(reads.values()) == 2, reads
    assert any(c.row[0] == "REF025" for r in found.revisions for c in r.introduced)
    monkeypatch.setattr(GitObjects, "read_many", real)
    api_claims._OF_BYTES.clear()
    assert changes(found) == changes(audit(claiming_repo, jobs=2))
