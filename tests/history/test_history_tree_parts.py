"""REF025 and REF026 read parts of the tree, not all of it (``Reads.VARIANT_CLAIMS``: the
``model_id`` of each recipe's variants; ``Reads.PLATFORMS``: ``platforms.yaml``): a rule
limited to a part reads only its files, and the audit reuses their results over the
revisions where those parts did not change, and re-runs them where they did."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from validator.api_claims import tree_variant_ids_of
from validator.context import Context, Settings, UndeclaredRead, build_context
from validator.history.audit import AuditOptions, _groups, run_audit
from validator.history.claims import claimed_ids
from validator.history.gitdata import GitObjects, rev_list
from validator.history.keys import tool_digest
from validator.history.revisions import walk
from validator.load import load_yaml
from validator.paths import is_recipe_path
from validator.rule_index import check_rules
from validator.rules.metadata import Reads
from validator.source.tree import LocalTree

RECIPE_A = """model:
  model_id: org/a
variants:
  fp8:
    model_id: org/a-fp8
"""
RECIPE_B = """model:
  model_id: org/b
  description: first
meta:
  platforms: [{id: cloud}]
variants:
  fp8:
    model_id: org/b-fp8
"""
PLATFORMS = "platforms:\n  - id: cloud\n"


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
           "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env=env).stdout


def _commit(repo: Path, files: dict[str, str], message: str) -> None:
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "recipes"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "t@example.invalid")
    _git(repo, "config", "user.name", "t")
    _commit(repo, {"taxonomy.yaml": "hardware_profiles: {}\n",
                   "strategies/single_node_tp.yaml": "name: single_node_tp\n",
                   "platforms.yaml": PLATFORMS, "models/org/a.yaml": RECIPE_A,
                   "models/org/b.yaml": RECIPE_B, "README.md": "recipes\n"}, "start")
    return repo


def _labels(repo: Path, group: str) -> list[str]:
    """The cache label of ``group`` at each revision of ``main``, oldest first."""
    settings = Settings()
    revisions = rev_list(repo, "main")
    with GitObjects(repo) as objects:
        walked = walk(objects, revisions, _groups(), is_recipe_path, tool_digest(settings),
                      settings)
    return [walked.states[walked.snapshots[r].state].labels[group] for r in revisions]


CLAIMS = "recipe_list+variant_claims"


def test_ref025_and_ref026_declare_their_parts_of_the_tree() -> None:
    reads = {r.id: r.reads for r in check_rules()}
    assert reads["REF025"] == {Reads.RECIPE_LIST, Reads.VARIANT_CLAIMS}
    assert reads["REF026"] == {Reads.PLATFORMS}
    assert not [rule for rule, parts in reads.items() if Reads.TREE in parts]


def test_an_edit_that_keeps_every_claim_and_platform_reuses_ref025_and_ref026(
        repo: Path) -> None:
    _commit(repo, {"README.md": "more\n",
                   "models/org/b.yaml": RECIPE_B.replace("first", "second")}, "prose")
    cold = run_audit(AuditOptions(repo=repo, jobs=1))
    assert _labels(repo, CLAIMS)[0] == _labels(repo, CLAIMS)[1]
    assert _labels(repo, "platforms")[0] == _labels(repo, "platforms")[1]
    groups = len({r.reads for r in check_rules()})
    # a.yaml: every group once; b.yaml's new bytes: every group again
    assert cold.units == 2 * groups + groups


def test_a_changed_claim_reruns_ref025_and_finds_the_overlap(repo: Path) -> None:
    _commit(repo, {"models/org/b.yaml": RECIPE_B.replace("org/b-fp8", "org/a-fp8/x")},
            "b's variant inside a's")
    result = run_audit(AuditOptions(repo=repo, jobs=1))
    first, second = _labels(repo, CLAIMS)
    assert first != second
    introduced = {(c.path, c.row[0]) for c in result.revisions[-1].introduced}
    assert ("models/org/b.yaml", "REF025") in introduced


def test_a_platforms_edit_reruns_ref026(repo: Path) -> None:
    _commit(repo, {"platforms.yaml": "platforms:\n  - id: edge\n"}, "rename cloud")
    result = run_audit(AuditOptions(repo=repo, jobs=1))
    introduced = {(c.path, c.row[0]) for c in result.revisions[-1].introduced}
    assert introduced == {("models/org/b.yaml", "REF026")}


def _limited(repo: Path, *parts: Reads) -> Context:
    return build_context(LocalTree(repo)).limited_to(frozenset(parts))


@pytest.mark.parametrize(("part", "readable", "refused", "named"), [
    (Reads.PLATFORMS, "platforms.yaml", "models/org/a.yaml", "VARIANT_CLAIMS"),
    (Reads.VARIANT_CLAIMS, "models/org/a.yaml", "platforms.yaml", "PLATFORMS"),
    (Reads.VARIANT_CLAIMS, "models/org/a.yaml", "README.md", "TREE"),
])
def test_a_part_of_the_tree_reads_only_its_files(repo: Path, part: Reads, readable: str,
                                                  refused: str, named: str) -> None:
    ctx = _limited(repo, part)
    assert ctx.tree.read(readable) == (repo / readable).read_bytes()
    assert ctx.can_read([part]) and not ctx.can_read([Reads.TREE])
    with pytest.raises(UndeclaredRead, match=rf"Reads\.{named}"):
        ctx.tree.read(refused)
    with pytest.raises(UndeclaredRead, match=r"Reads\.TREE"):
        ctx.tree.list("models")
    with pytest.raises(UndeclaredRead, match=r"Reads\.TREE"):
        _ = ctx.revision


def test_no_part_of_the_tree_reads_nothing_of_it(repo: Path) -> None:
    ctx = _limited(repo, Reads.TAXONOMY)
    with pytest.raises(UndeclaredRead, match=r"Reads\.PLATFORMS"):
        ctx.tree.exists("platforms.yaml")


def test_the_claims_the_audit_keys_on_are_ref025s(corpus_repo: Path) -> None:
    """On every recipe of corpus ``main``: the ids the audit's digest reads are those
    REF025 reads."""
    ctx = build_context(LocalTree(corpus_repo), Settings())
    read_by_ref025 = tree_variant_ids_of(ctx)
    assert any(read_by_ref025.values())
    for path in sorted(ctx.recipe_paths):
        assert claimed_ids((corpus_repo / path).read_bytes(), path) == \
            read_by_ref025[path], path
    assert load_yaml(b"variants: [", "models/o/x.yaml").ok is False
    assert claimed_ids(b"variants: [", "models/o/x.yaml") == []
