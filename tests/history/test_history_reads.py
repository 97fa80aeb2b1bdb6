"""The audit's cache keys come from the rules' ``reads`` declarations, and a recipe that
rots under a new vLLM release (same bytes, same context, later release window) is noted
``vLLM release``."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main
from validator.history.audit import RELEASED, AuditOptions, run_audit
from validator.history.keys import RuleGroup, part_digests, rule_groups
from validator.releases import load_vendored
from validator.rule_index import check_rules
from validator.rules.metadata import Reads

FILES = {"taxonomy.yaml": "t1", "strategies/tp.yaml": "s1", "kv_store/lm.yaml": "k1",
         "models/org/a.yaml": "a1", "README.md": "r1", "platforms.yaml": "p1"}


def _group(*parts: Reads) -> RuleGroup:
    return RuleGroup(frozenset(parts), ())


@pytest.mark.parametrize(("edit", "changed"), [
    ({"taxonomy.yaml": "t2"}, {Reads.TAXONOMY, Reads.TREE}),
    ({"strategies/tp.yaml": "s2"}, {Reads.STRATEGIES, Reads.TREE}),
    ({"kv_store/lm.yaml": "k2"}, {Reads.KV_STORES, Reads.TREE}),
    ({"models/org/b.yaml": "b1"}, {Reads.RECIPE_LIST, Reads.TREE}),
    ({"models/org/a.yaml": "a2"}, {Reads.TREE}),  # the recipe's own bytes are the blob key
    ({"README.md": "r2"}, {Reads.TREE}),
    ({"platforms.yaml": "p2"}, {Reads.PLATFORMS, Reads.TREE}),
])
def test_a_label_changes_exactly_when_a_declared_part_changes(
        edit: dict[str, str], changed: set[Reads]) -> None:
    before = part_digests(FILES, "2026-01-01")
    after = part_digests({**FILES, **edit}, "2026-01-01")
    for part in Reads:
        group = _group(part)
        assert (group.label(before) != group.label(after)) == (part in changed), part
    assert _group().label(before) == _group().label(after)  # recipe only: never


def test_states_that_share_a_groups_parts_share_its_label_made_once() -> None:
    """The label of a group is made once per group and digests of its parts: two
    revisions' states that differ in a part the group does not read get the one string
    made first (thousands of states share most groups' labels); the label is the digest
    of the group's parts, whatever the order they are given in."""
    tax = _group(Reads.TAXONOMY, Reads.STRATEGIES)
    before = part_digests(FILES, "2026-01-01")
    other = part_digests({**FILES, "models/org/b.yaml": "b1"}, "2026-02-01", "claims")
    assert tax.label(other) is tax.label(before)
    assert tax.label(dict(reversed(list(before.items())))) == tax.label(before)
    assert RuleGroup(frozenset({Reads.TAXONOMY, Reads.STRATEGIES}), ("X",)).label(before) \
        == tax.label(before)  # the same name and parts: the same label
    assert tax.label(part_digests({**FILES, "taxonomy.yaml": "t2"}, "2026-01-01")) \
        != tax.label(before)


def test_the_variant_claims_digest_changes_only_variant_claims_readers() -> None:
    before = part_digests(FILES, "2026-01-01", "claims 1")
    after = part_digests(FILES, "2026-01-01", "claims 2")
    for part in Reads:
        moved = _group(part).label(before) != _group(part).label(after)
        assert moved == (part is Reads.VARIANT_CLAIMS), part


def test_the_release_window_changes_only_release_readers() -> None:
    before = part_digests(FILES, "2026-01-01")
    after = part_digests(FILES, "2026-02-01")
    for part in Reads:
        moved = _group(part).label(before) != _group(part).label(after)
        assert moved == (part in (Reads.CLI_REGISTRY, Reads.RELEASES)), part


def test_groups_follow_the_declarations() -> None:
    groups = rule_groups(check_rules())
    by_rule = {r.id: g for g in groups for r in g.rules}
    assert by_rule["REF001"].reads == frozenset() and by_rule["REF001"].name == "recipe"
    assert by_rule["REF013"].reads == {Reads.RECIPE_LIST}
    assert by_rule["VER005"].reads == {Reads.RELEASES}
    assert len({g.name for g in groups}) == len(groups)
    assert sum(len(g.rules) for g in groups) == len(check_rules())


# --------------------------------------------------------------------------- rot

def _git(repo: Path, *args: str, when: str | None = None) -> str:
    env = dict(os.environ)
    if when:
        env.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env=env).stdout


@pytest.fixture()
def rotting_repo(tmp_path: Path) -> tuple[Path, str]:
    """A recipe whose minimum is a real release, committed the day before that release
    was published (VER005: not released, nightly_required off); the next commit, the day
    after, edits only the README."""
    release = load_vendored().releases[-1]
    repo = tmp_path / "rot"
    (repo / "strategies").mkdir(parents=True)
    (repo / "models" / "org").mkdir(parents=True)
    (repo / "taxonomy.yaml").write_text("hardware_profiles: {}\n")
    (repo / "strategies" / "single_node_tp.yaml").write_text("name: single_node_tp\n")
    (repo / "models" / "org" / "a.yaml").write_text(
        f'model:\n  model_id: org/a\n  min_vllm_version: "{release.version}"\n')
    (repo / "README.md").write_text("recipes\n")
    _git(repo.parent, "init", "-q", "-b", "main", str(repo))
    _git(repo, "config", "user.email", "t@example.invalid")
    _git(repo, "config", "user.name", "t")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "add a", when=(release.uploaded - timedelta(days=1))
         .isoformat())
    (repo / "README.md").write_text("recipes, more\n")
    _git(repo, "commit", "-q", "-am", "readme", when=(release.uploaded + timedelta(days=1))
         .isoformat())
    return repo, str(release.version)


def test_a_new_release_window_is_noted_as_rot(rotting_repo: tuple[Path, str]) -> None:
    repo, version = rotting_repo
    result = run_audit(AuditOptions(repo=repo, jobs=1))
    first, second = result.revisions
    assert first.window < second.window
    ver005 = [c for c in first.introduced if c.row[0] == "VER005"]
    assert ver005 and ver005[0].note == "file added" and version in ver005[0].row[5]
    # same bytes, same taxonomy and strategies, a later window: the release readers'
    # changes are rot; a rule that reads the whole tree saw the README change too
    assert ("VER005", RELEASED) in {(c.row[0], c.note) for c in second.fixed}
    reads = {r.id: r.reads for r in check_rules()}
    for change in second.introduced + second.fixed:
        expected = "" if Reads.TREE in reads[change.row[0]] else RELEASED
        assert change.note == expected, change


def test_an_edit_is_not_noted_as_rot(rotting_repo: tuple[Path, str]) -> None:
    repo, _version = rotting_repo
    recipe = repo / "models" / "org" / "a.yaml"
    recipe.write_text(recipe.read_text() + "  nightly_required: true\n")
    _git(repo, "commit", "-q", "-am", "edit", when="2030-01-01T00:00:00+00:00")
    third = run_audit(AuditOptions(repo=repo, jobs=1)).revisions[-1]
    assert third.introduced or third.fixed
    assert not [c for c in third.introduced + third.fixed if c.note == RELEASED]


def test_history_json_prints_each_revisions_window(rotting_repo: tuple[Path, str],
                                                   capsys: pytest.CaptureFixture[str]
                                                   ) -> None:
    repo, _version = rotting_repo
    code = main(["history", "--repo", str(repo), "--no-cache", "--jobs", "1", "--format",
                 "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    data: dict[str, Any] = json.loads(out.out)
    windows = [r["window"] for r in data["revisions"]]
    assert len(windows) == 2 and all(windows) and windows[0] < windows[1]
    assert {"rule": "VER005", "note": RELEASED}.items() <= next(
        c for c in data["revisions"][1]["fixed"] if c["rule"] == "VER005").items()


def test_results_are_reused_by_the_groups_whose_inputs_did_not_change(
        tmp_path: Path, rotting_repo: tuple[Path, str]) -> None:
    """The README-only commit, in a later window, needs new results only from the groups
    that read the release window or the whole tree; every other group's result for the
    blob is the first commit's. A warm run checks nothing."""
    repo, _version = rotting_repo
    groups = rule_groups(check_rules())
    moved = [g for g in groups if g.reads & {Reads.CLI_REGISTRY, Reads.RELEASES, Reads.TREE}]
    assert 0 < len(moved) < len(groups)
    cache = tmp_path / "cache"
    cold = run_audit(AuditOptions(repo=repo, jobs=1, cache_dir=cache))
    assert cold.units == cold.checked == len(groups) + len(moved)
    warm = run_audit(AuditOptions(repo=repo, jobs=1, cache_dir=cache))
    assert warm.checked == 0 and warm.cached == cold.units
    assert [r.window for r in warm.revisions] == [r.window for r in cold.revisions]
