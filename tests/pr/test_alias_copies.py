"""A defect on a YAML node that several paths reach (an alias ``blackwell: *nv``, a merge
key ``<<: *nv``) is the same defect as on explicit copies of the node: ``pr`` on real git
repositories (our example recipes tree) that write an alias out as a copy, or a copy as
an alias, rendering the same commands, reports no new and no fixed finding; an alias
that carries the defect to one more path is new, as a copy there would be."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from validator.findings import Finding, Severity
from validator.identity import match, with_identities
from validator.load import load_yaml

from .conftest import commit_all, pr_json

RECIPE = "models/example-org/Example-Chat-8B.yaml"
AFTER = "opt_in_features: []\n"
BLOCK = '    extra_args:\n      - "--no-such-flag"\n    extra_env: {}\n'
"""An override whose only argument is an option of no vLLM release (FLAG001)."""

ALIASED = f"\nhardware_overrides:\n  hopper: &nv\n{BLOCK}  blackwell: *nv\n"
EXPLICIT = f"\nhardware_overrides:\n  hopper:\n{BLOCK}  blackwell:\n{BLOCK}"
MERGED = f"\nhardware_overrides:\n  hopper: &nv\n{BLOCK}  blackwell:\n    <<: *nv\n"
HOPPER_ONLY = f"\nhardware_overrides:\n  hopper: &nv\n{BLOCK}"


def overrides(repo: Path, text: str, message: str) -> str:
    """Commit the chat recipe with ``text`` as its ``hardware_overrides``; the commit."""
    file = repo / RECIPE
    body = file.read_text(encoding="utf-8")
    start = body.find("\nhardware_overrides:")
    if start >= 0:
        body = body[:start] + body[body.index("\nvariants:", start):]
    assert body.count(AFTER) == 1
    file.write_text(body.replace(AFTER, AFTER + text), encoding="utf-8")
    return commit_all(repo, message)


def flag001(data: dict[str, Any]) -> tuple[list[tuple[int, str]], list[int]]:
    """``([(line, baseline) of each FLAG001 finding], [line of each fixed one])``."""
    doc = next(d for d in data["documents"] if d["path"] == RECIPE)
    return ([(f["line"], f["baseline"]) for f in doc["findings"] if f["rule"] == "FLAG001"],
            [f["line"] for f in doc["fixed"] if f["rule"] == "FLAG001"])


def compared(repo: Path, base: str, head: str, capsys: pytest.CaptureFixture[str]
             ) -> tuple[int, tuple[list[tuple[int, str]], list[int]], dict[str, Any]]:
    """``pr`` of a head commit with overrides ``head`` on a base commit with ``base``:
    its exit code, :func:`flag001` and summary."""
    base_commit = overrides(repo, base, "base")
    head_commit = overrides(repo, head, "head")
    code, data = pr_json(repo, base_commit, head_commit, capsys)
    return code, flag001(data), data["summary"]


def test_writing_an_alias_out_as_a_copy_leaves_its_defect_existing(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """At the base one finding at the anchor stands for both paths; at the head each
    copy has its own: both existing, and the change passes."""
    code, (found, fixed), summary = compared(example_repo, ALIASED, EXPLICIT, capsys)
    assert found == [(42, "unchanged"), (46, "unchanged")]
    assert fixed == []
    assert (code, summary["new"], summary["fixed"]) == (0, 0, 0)


def test_turning_a_copy_into_an_alias_does_not_fix_its_defect(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The blackwell copy at the base's line 46 is still rendered through the alias."""
    code, (found, fixed), summary = compared(example_repo, EXPLICIT, ALIASED, capsys)
    assert found == [(42, "unchanged")]
    assert fixed == []
    assert (code, summary["new"], summary["fixed"]) == (0, 0, 0)


def test_writing_a_merge_key_out_as_a_copy_leaves_its_defect_existing(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, (found, fixed), summary = compared(example_repo, MERGED, EXPLICIT, capsys)
    assert found == [(42, "unchanged"), (46, "unchanged")]
    assert (code, fixed, summary["new"], summary["fixed"]) == (0, [], 0, 0)


def test_an_alias_that_carries_a_defect_to_one_more_path_makes_it_new(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``blackwell: *nv`` added to an override only hopper had renders the bad flag on
    Blackwell too, exactly as a copy of the block there would: new, and the change
    fails."""
    code, (found, fixed), summary = compared(example_repo, HOPPER_ONLY, ALIASED, capsys)
    assert found == [(42, "new")]
    assert (code, fixed, summary["new"]) == (1, [], 1)


def test_dropping_one_path_of_an_alias_fixes_that_copy(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, (found, fixed), summary = compared(example_repo, ALIASED, HOPPER_ONLY, capsys)
    assert found == [(42, "unchanged")]
    assert (code, fixed, summary["fixed"]) == (0, [42], 1)


def test_a_finding_on_an_aliased_node_carries_the_anchor_of_each_other_path() -> None:
    text = ("a: &x\n  args: [\"--p\", \"1\"]\nb: *x\nc:\n  <<: *x\n  own: 2\n"
            "d:\n  <<: *x\n  args: [\"--q\"]\n")
    doc = load_yaml(text.encode(), "r.yaml")
    found = Finding("FLAG001", Severity.ERROR, "r.yaml", "/b/args/1", 3, 4, "`1` bad")
    missing = Finding("REF001", Severity.ERROR, "r.yaml", "/a/args/9", 2, 9, "`x` bad")
    alone = Finding("REF001", Severity.ERROR, "r.yaml", "/c/own", 6, 8, "`own` bad")
    one, two, three = with_identities([found, missing, alone], doc.data, doc.source_map)
    # d overrides the merged args: its own list is another node
    assert one.identity is not None and one.identity[2] == '/b/args/["--p 1"]'
    assert one.aliases == ('/a/args/["--p 1"]', '/c/args/["--p 1"]')
    assert two.aliases == ("/b/args/9", "/c/args/9")
    assert three.aliases == ()
    copies = [copy_at(one, anchor) for anchor in (one.identity[2], *one.aliases)]
    assert match([one], copies) == ([True, True, True], [False])
    assert match([one], copies[:2]) == ([True, True], [True])  # the copy at c is gone
    assert match(copies[:2], [one]) == ([False], [False, False])  # one more path: new


def copy_at(finding: Finding, anchor: str) -> Finding:
    """``finding`` as an explicit copy of its node at content anchor ``anchor`` would be:
    that identity, no aliases."""
    assert finding.identity is not None
    return dataclasses.replace(finding, aliases=(), identity=(*finding.identity[:2], anchor))
