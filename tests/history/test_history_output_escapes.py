"""``history`` shows file names and commit subjects as ``check`` does: a committed path
with a line break, or a subject with ESC/CR/bidi characters, cannot start a GitHub workflow
command line (``::error ...``) in a CI log nor drive the reader's terminal, in the text
report or the JSON one (trial 13 #9)."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest

from tests.history.fixed_date_git import git as _git
from tests.render.tiny_tree import write_tree
from validator.cli import main

INJECTED = "models/acme/a\n::error file=README.md,line=1::INJECTED\u202e.yaml"
SUBJECT = "c2 \x1b[31mRED\x1b[0m \r::warning::CR \x85::notice::NEL \u2028sep"
_BAD = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def _bad_chars(text: str) -> list[str]:
    return [f"U+{ord(c):04X}" for c in text
            if _BAD.match(c) or unicodedata.category(c) == "Cf"]


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    """The tiny tree, then a commit with :data:`SUBJECT` adding a YAML file named
    :data:`INJECTED`. Returns the repository and the first commit."""
    root = write_tree(tmp_path / "repo")
    _git(root.parent, "init", "-q", "-b", "main", str(root))
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "tiny tree")
    first = _git(root, "rev-parse", "HEAD")
    (root / INJECTED).write_text("y\n", "utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", SUBJECT)
    return root, first


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_history_escapes_committed_names_and_subjects(
        repo: tuple[Path, str], fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    root, first = repo
    capsys.readouterr()
    code = main(["history", "--jobs", "1", "--no-cache", "--format", fmt, "--repo", str(root),
                 "--since", first])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "INJECTED" in out and "RED" in out  # the name and the subject are reported
    assert [ln for ln in out.split("\n") if ln.lstrip().startswith("::")] == []
    assert _bad_chars(out) == [] and _bad_chars(err) == []
    if fmt == "json":  # the escapes stand for the same characters
        [rev] = json.loads(out)["revisions"]
        assert rev["subject"] == SUBJECT
        assert {c["path"] for c in rev["introduced"]} == {INJECTED}
    else:
        assert "a\\u000a::error file=README.md" in out
        assert "c2 \\u001b[31mRED" in out
