"""U+0085, U+2028 and U+2029 break lines for libyaml and str.splitlines, not for GitHub
or js-yaml (issue 30, item 9): every line a finding names is GitHub's, a directive after
one stays an end-of-line directive, and the character itself is reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from validator.cli import main

RECIPE = "models/example-org/Example-Chat-8B.yaml"
SEPARATORS = ["\u0085", "\u2028", "\u2029"]


@pytest.fixture()
def tree(examples_tree: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = examples_tree
    monkeypatch.chdir(root)
    return root


def _edit(tree: Path, old: str, new: str) -> bytes:
    path = tree / RECIPE
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), "utf-8")
    return path.read_bytes()


def _github_line(data: bytes, needle: bytes) -> int:
    return data[:data.index(needle)].count(b"\n") + 1


def _findings(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    report = json.loads(capsys.readouterr().out)
    return [f for d in report["documents"] for f in d["findings"]]


@pytest.mark.parametrize("separator", SEPARATORS)
def test_findings_after_a_separator_in_a_comment_name_githubs_line(
        tree: Path, capsys: pytest.CaptureFixture[str], separator: str) -> None:
    _edit(tree, "  difficulty: beginner\n", f"  difficulty: beginner # a{separator}# b\n")
    data = _edit(tree, '      - "hermes"\n', '      - "hermes"\n      - "--bogus-flag"\n')
    main([RECIPE, "--format", "json"])
    findings = _findings(capsys)
    flag = [f for f in findings if f["rule"] == "FLAG001"]
    assert [f["line"] for f in flag] == [_github_line(data, b"--bogus-flag")]  # was: one more
    hidden = [f for f in findings if f["rule"] == "YAML010"]
    assert len(hidden) == 1 and hidden[0]["line"] == _github_line(data, b"difficulty")
    assert f"U+{ord(separator):04X}" in str(hidden[0]["message"])


def test_a_directive_after_a_separator_stays_on_its_line(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _edit(tree, '      - "hermes"\n',
                 '      - "hermes" # x\u2028# recipe-check: ignore[FLAG001]\n'
                 '      - "--bogus-flag"\n')
    assert main([RECIPE, "--format", "json"]) == 1  # was: 0, the next line's error hidden
    rules = {(f["rule"], f["line"]) for f in _findings(capsys)}
    assert ("FLAG001", _github_line(data, b"--bogus-flag")) in rules
    assert ("RC001", _github_line(data, b"recipe-check:")) in rules


def test_a_duplicate_key_names_githubs_line_of_the_first(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _edit(tree, "  difficulty: beginner\n",
                 "  difficulty: beginner # a\u2029# b\n  difficulty: advanced\n")
    main([RECIPE, "--format", "json"])
    dup = [f for f in _findings(capsys) if f["rule"] == "YAML002"]
    first = _github_line(data, b"difficulty: beginner")
    assert [f["line"] for f in dup] == [first + 1]
    assert f"first defined on line {first}" in str(dup[0]["message"])
