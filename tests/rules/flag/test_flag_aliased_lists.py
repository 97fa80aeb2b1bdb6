"""One YAML list reused through an alias (``base_args: &ba [...]``, ``features.x.args:
*ba``) is one node: a defect in it is one finding at the anchor's text, on the
configurations of every place the alias reaches (never "in no command the site renders"
while a command shows the token), and ``--fix`` edits the anchor, which changes every
place at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.tiny_recipe import PATH, RECIPE, write_tiny
from validator.cli import main

ALIASED = RECIPE.replace("  base_env: {}\n", "  base_env: {}\nfeatures:\n  x:\n"
                         "    description: d\n    args: *ba\n")
ARGS = '&ba ["--max_model_len", "8192"]'


def test_an_aliased_list_gives_one_finding_at_the_anchor(corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, ARGS, ALIASED)
    found = [f for f in check_tree(corpus_copy, PATH, rendered=True) if f.rule == "FLAG013"]
    assert [(f.pointer, f.line) for f in found] == [("/model/base_args/0",
                                                     line_of(text, "base_args: &ba"))], found
    assert "in no command the site renders" not in found[0].message


def test_fix_edits_the_anchor_of_an_aliased_list(corpus_copy: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    text = write_tiny(corpus_copy, ARGS, ALIASED)
    main(["--no-cache", "--fix", str(corpus_copy / PATH)])
    assert (corpus_copy / PATH).read_text() == text.replace("--max_model_len", "--max-model-len")
    assert "fixed FLAG013 (safe)" in capsys.readouterr().err
