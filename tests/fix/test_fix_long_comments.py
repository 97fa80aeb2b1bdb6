"""``--diff``/``--fix`` on a file with a very long comment (issue 30, item 8): ruamel.yaml,
the second reader of every fix, gathered a comment one character at a time into a
growing string (quadratic: a 2 MiB comment line took minutes). It now reads the text
with each comment's body dropped, so its work does not grow with the comment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from validator.cli import main

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLES = PROJECT / "examples" / "recipes"
RECIPE = "models/example-org/Example-Chat-8B.yaml"
RUAMEL_LOAD = YAML.load


@pytest.fixture()
def tree(examples_tree: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = examples_tree
    monkeypatch.chdir(root)
    return root


def _ruamel_reads(tree: Path, monkeypatch: pytest.MonkeyPatch,
                  capsys: pytest.CaptureFixture[str], comment: int) -> list[int]:
    """The lengths of the texts ruamel.yaml reads for ``--diff`` of a recipe whose one
    fixable finding (FLAG013) sits below a comment line of ``comment`` characters."""
    text = (EXAMPLES / RECIPE).read_text("utf-8")
    text = text.replace('"--max-model-len"', '"--max_model_len"', 1).replace(
        "  difficulty: beginner\n", f"  difficulty: beginner # {'x' * comment}\n", 1)
    (tree / RECIPE).write_text(text, "utf-8")
    lengths: list[int] = []

    def counted(self: YAML, stream: Any) -> Any:
        lengths.append(len(stream))
        return RUAMEL_LOAD(self, stream)

    monkeypatch.setattr(YAML, "load", counted)
    assert main([RECIPE, "--diff"]) == 1
    out = capsys.readouterr().out
    assert '+    - "--max-model-len"' in out  # the fix still verified by both readers
    return lengths


def test_the_second_readers_work_does_not_grow_with_a_comment(
        tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    short = _ruamel_reads(tree, monkeypatch, capsys, 256 * 1024)
    long = _ruamel_reads(tree, monkeypatch, capsys, 512 * 1024)
    assert short and long == short  # was: each read 256 KiB longer, its scan quadratic
    assert max(long) < 4096


@pytest.mark.parametrize(("text", "expected"), [
    ("a: 1  # note\n", "a: 1  #\n"),
    ("# top\r\nb: '# not a comment' # yes\r\n", "#\r\nb: '# not a comment' #\r\n"),
    ("g: |\n  # kept, block text\n# gone\n", "g: |\n  # kept, block text\n#\n"),
    ("c: a#b #x\n", "c: a#b #\n"),
    ("d: 1 # a\u2028e: 2 # b\n", "d: 1 #\u2028e: 2 #\n"),
])
def test_without_comments_drops_only_comment_bodies(text: str, expected: str) -> None:
    from validator.fix.second_reader import without_comments

    assert without_comments(text) == expected
