"""A finding's identity across revisions (:mod:`validator.identity`): ``pr`` on real git
repositories (our example recipes tree in ``tmp_path``, one base and one head commit)
marks as new only what the head commit introduced, whatever it does to list indices,
lines and wording; SARIF fingerprints agree."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main
from validator.findings import Finding, Severity
from validator.identity import SAME_AS, content_anchor, identity, item_label, subject_of
from validator.report.sarif import FINGERPRINT_KEY

from .conftest import PROJECT, git

RECIPE = "models/example-org/Example-Chat-8B.yaml"
BASE_ARGS = '    - "--max-model-len"\n    - "32768"\n'
DEFECTS = '    - "--swap-space"\n    - "4"\n    - "--no-such-flag"\n'
"""``--swap-space`` is gone from vLLM 0.18.0 on (FLAG023 inside the range 0.12.0-0.33.0)
and ``--no-such-flag`` is an option of no release (FLAG001)."""


def commit(repo: Path, message: str, old: str, new: str) -> None:
    """Replace ``old`` (present once) by ``new`` in the recipe and commit."""
    file = repo / RECIPE
    text = file.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    file.write_text(text.replace(old, new), encoding="utf-8")
    git(repo, "commit", "-qam", message)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """The example recipes tree in a git repository: ``base`` has the two defects in
    ``model.base_args`` of the chat recipe; the tests commit the head on top."""
    dest = tmp_path / "recipes"
    shutil.copytree(PROJECT / "examples" / "recipes", dest)
    git(dest, "init", "-q", "-b", "main")
    git(dest, "config", "user.email", "tests@example.invalid")
    git(dest, "config", "user.name", "recipe-check tests")
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", "examples")
    commit(dest, "two defects", BASE_ARGS, BASE_ARGS + DEFECTS)
    git(dest, "branch", "base")
    return dest


def pr(repo: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, Any]:
    code = main(["pr", "--offline", "--repo", str(repo), "--base", "base", "--head", "HEAD",
                 "--no-summary", *extra])
    out = capsys.readouterr().out
    return code, (json.loads(out) if "--format" in extra else out)


def states(data: dict[str, Any]) -> dict[str, list[str]]:
    """rule -> the baseline states of its findings (fixed ones as ``absent``)."""
    out: dict[str, list[str]] = {}
    for doc in data["documents"]:
        for f in doc["findings"] + doc["fixed"]:
            out.setdefault(f["rule"], []).append(f["baseline"])
    return out


def test_inserting_a_list_item_before_a_defect_leaves_it_existing(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commit(repo, "a flag first", BASE_ARGS,
           '    - "--gpu-memory-utilization"\n    - "0.85"\n' + BASE_ARGS)
    code, data = pr(repo, capsys, "--format", "json")
    assert code == 0
    assert states(data) == {"FLAG023": ["unchanged"], "FLAG001": ["unchanged"]}
    assert data["summary"]["new"] == 0 and data["summary"]["fixed"] == 0


def test_reordering_list_items_leaves_their_defects_existing(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commit(repo, "defects first", BASE_ARGS + DEFECTS, DEFECTS + BASE_ARGS)
    code, data = pr(repo, capsys, "--format", "json")
    assert code == 0
    assert states(data) == {"FLAG023": ["unchanged"], "FLAG001": ["unchanged"]}


def test_moving_lines_within_and_above_a_list_leaves_its_defects_existing(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two comment lines above everything, and the ``--no-such-flag`` line moved to the
    top of its list: every finding is on another line, both at another index."""
    file = repo / RECIPE
    text = file.read_text(encoding="utf-8").replace('    - "--no-such-flag"\n', "", 1)
    file.write_text("# a comment\n# and another\n" + text.replace(
        BASE_ARGS, '    - "--no-such-flag"\n' + BASE_ARGS, 1), encoding="utf-8")
    git(repo, "commit", "-qam", "move lines")
    code, data = pr(repo, capsys, "--format", "json")
    assert code == 0
    assert states(data) == {"FLAG001": ["unchanged"], "FLAG023": ["unchanged"]}


def test_a_raised_minimum_that_rewords_a_defect_does_not_make_it_new(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Raising the minimum to 0.19.0 turns ``--swap-space`` from FLAG023 (rejected by
    releases inside the range) into FLAG001 (not an option of the minimum): one defect,
    reported by another rule of its group (:data:`SAME_AS`)."""
    commit(repo, "raise the minimum", 'min_vllm_version: "0.12.0"',
           'min_vllm_version: "0.19.0"')
    code, data = pr(repo, capsys, "--format", "json")
    assert code == 0
    assert states(data) == {"FLAG001": ["unchanged", "unchanged"]}


def test_a_defect_the_change_adds_is_new_and_fails(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A second unknown flag inserted before the old ones, and a copy of the old unknown
    flag in a feature: both new (the copy is a defect at another place)."""
    commit(repo, "another defect", BASE_ARGS, '    - "--also-no-such-flag"\n' + BASE_ARGS)
    commit(repo, "a copy", '      - "--enable-auto-tool-choice"\n',
           '      - "--no-such-flag"\n      - "--enable-auto-tool-choice"\n')
    code, data = pr(repo, capsys, "--format", "json")
    assert code == 1
    new = sorted((f["pointer"], f["message"].split("`")[1]) for d in data["documents"]
                 for f in d["findings"] if f["baseline"] == "new")
    assert new == [("/features/tool_calling/args/0", "--no-such-flag"),
                   ("/model/base_args/0", "--also-no-such-flag")]
    assert states(data)["FLAG023"] == ["unchanged"]


def test_sarif_fingerprints_survive_an_inserted_list_item(
        repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def prints(name: str) -> dict[str, str]:
        out = tmp_path / name
        assert main(["check", "--offline", "--no-cache", "--format", "sarif", "--output",
                     str(out), "--root", str(repo), str(repo / RECIPE)]) == 1
        capsys.readouterr()
        results = json.loads(out.read_text(encoding="utf-8"))["runs"][0]["results"]
        return {r["ruleId"]: r["partialFingerprints"][FINGERPRINT_KEY] for r in results}

    before = prints("base.sarif")
    commit(repo, "a flag first", BASE_ARGS,
           '    - "--gpu-memory-utilization"\n    - "0.85"\n' + BASE_ARGS)
    after = prints("head.sarif")
    assert before == after and set(before) == {"FLAG001", "FLAG023"}
    assert FINGERPRINT_KEY == "recipeCheck/v2"


def _finding(rule: str, pointer: str, message: str) -> Finding:
    return Finding(rule, Severity.ERROR, "models/a/b.yaml", pointer, 3, 5, message)


def test_list_items_are_anchored_by_content_with_their_flag() -> None:
    args = ["--max-model-len", "8192", "--no-such-flag", "--max-model-len", "8192"]
    assert [item_label(args, i) for i in range(5)] == [
        "--max-model-len", "--max-model-len 8192", "--no-such-flag", "--max-model-len#2",
        "--max-model-len 8192#2"]
    data = {"model": {"base_args": args},
            "dependencies": [{"command": "pip install x", "note": "n"}]}
    assert content_anchor("/model/base_args/2", data) == (
        '/model/base_args/["--no-such-flag"]', "--no-such-flag")
    assert content_anchor("/dependencies/0/note", data) == (
        '/dependencies/["command=pip install x"]/note', "n")
    assert content_anchor("/model/base_args/9", data) == ("/model/base_args/9", None)
    assert content_anchor("/nowhere/0", data) == ("/nowhere/0", None)
    for odd in ("/model/base_args/\u00b2", "/model/base_args/01", "model", "/model/base_args/-"):
        assert content_anchor(odd, data)[1] is None  # not an index: kept as written


def test_subject_is_the_code_span_then_a_quoted_name_then_the_value() -> None:
    assert subject_of("`--x` exists only from vLLM 0.13.0, but the minimum is 0.10.0") == "--x"
    assert subject_of("hardware id 'h20' is not a profile; the recipe's own") == "h20"
    assert subject_of("vLLM 0.25.0 was released on 2026-07-11, so it is stale", True) == "True"
    assert subject_of("the closing ``` is glued at 12 places", "x\ny") == \
        "the closing ``` is glued at N places"


def test_rules_of_one_defect_share_an_identity_and_only_errors_are_grouped() -> None:
    from validator.rule_index import all_rules

    severities = {r.id: r.severity for r in all_rules()}
    for rule, group in SAME_AS.items():
        assert severities[rule] is severities[group] is Severity.ERROR
    data = {"model": {"base_args": ["--swap-space", "4"]}}
    a = identity(_finding("FLAG023", "/model/base_args/0", "`--swap-space` is rejected by "
                          "vLLM 0.18.0-0.33.0 inside the install range 0.12.0-0.33.0"), data)
    b = identity(_finding("FLAG001", "/model/base_args/0", "`--swap-space`: `--swap-space` "
                          "is not an option of vLLM 0.19.0 (it existed in 0.5.0..0.17.1)"),
                 data)
    assert a == b
