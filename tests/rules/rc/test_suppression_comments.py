"""Which ``# recipe-check:`` text is a suppression: only YAML comments (a directive-looking
line inside a string is text, ``RC004``), and every directive of a comment.

Before: the text was searched line by line for ``#`` after whitespace, so a line of a
``guide: |`` block (which js-yaml keeps in the guide and the site shows as a heading)
suppressed findings for the whole file; and only the first directive of a comment was
read, so ``# recipe-check: ignore[A] # recipe-check: ignore[B]`` ignored ``B`` in silence.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main
from validator.rules.metadata import RULES
from validator.suppress import directives

MOE = "models/example-org/Example-MoE-120B.yaml"
GUIDE_FENCE = "  ## Launching the server\n\n  ```bash\n"


def check(tree: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    main(["check", "--format", "json", str(tree / MOE)])
    data = json.loads(capsys.readouterr().out)
    return [f for d in data["documents"] for f in d["findings"]]


def edit(tree: Path, old: str, new: str) -> None:
    file = tree / MOE
    text = file.read_text(encoding="utf-8")
    assert old in text, old
    file.write_text(text.replace(old, new, 1), encoding="utf-8")


def by_rule(found: list[dict[str, Any]], rule: str) -> list[tuple[int, int]]:
    return [(f["line"], f["column"]) for f in found if f["rule"] == rule]


def test_a_directive_line_inside_a_block_scalar_is_text_and_suppresses_nothing(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(examples_tree, GUIDE_FENCE, "  ## Launching the server\n\n"
         "  # recipe-check: ignore-file[GUIDE, REF004]\n  ```bash\n")
    found = check(examples_tree, capsys)
    assert by_rule(found, "REF004") == [(18, 5)]
    assert {"GUIDE001", "GUIDE006"} <= {f["rule"] for f in found}
    (rc,) = [f for f in found if f["rule"].startswith("RC")]
    assert (rc["rule"], rc["line"], rc["column"]) == ("RC004", 78, 3)
    assert rc["message"].startswith("'# recipe-check: ignore-file[GUIDE, REF004]' is text "
                                    "inside a string value")
    assert "not a YAML comment: it suppresses nothing" in rc["message"]


def test_a_directive_inside_a_quoted_string_is_text(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(examples_tree, '  provider: "Example Org"\n',
         '  provider: "Example Org\n    # recipe-check: ignore-file[REF004]"\n')
    edit(examples_tree, "    h20: verified\n",
         "    h20: verified  # a \"note # recipe-check: ignore[REF001]\"\n")
    found = check(examples_tree, capsys)
    assert by_rule(found, "REF004") == [(19, 5)]
    assert by_rule(found, "RC004") == [(6, 5)]  # a comment's quotes are no string: RC001
    assert [f["message"] for f in found if f["rule"] == "RC001"] == [
        "suppression of REF001 suppresses nothing on line 19"]


def test_real_comments_around_a_block_scalar_still_suppress(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a comment after the block indicator, and one after the block at the key's indent
    edit(examples_tree, "guide: |\n", "guide: |  # recipe-check: ignore-file[GUIDE001]\n")
    text = (examples_tree / MOE).read_text("utf-8")
    (examples_tree / MOE).write_text(text + "# recipe-check: ignore-file[GUIDE006]\n", "utf-8")
    found = check(examples_tree, capsys)
    assert not {"GUIDE001", "GUIDE006", "RC001", "RC004"} & {f["rule"] for f in found}


def test_a_noqa_inside_a_guide_is_the_guides_text(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(examples_tree, GUIDE_FENCE, GUIDE_FENCE + "  # noqa: GUIDE001\n")
    found = check(examples_tree, capsys)
    assert not {f["rule"] for f in found if f["rule"].startswith("RC")}


@pytest.mark.parametrize(("comment", "unused_at"), [
    ("# recipe-check: ignore[SCHEMA] # recipe-check: ignore[REF004]", 20),
    ("# recipe-check: ignore[REF004] # recipe-check: ignore[SCHEMA]", 51),
])
def test_every_directive_of_a_comment_counts(
        examples_tree: Path, capsys: pytest.CaptureFixture[str], comment: str,
        unused_at: int) -> None:
    edit(examples_tree, "    h20: verified\n", f"    h20: verified  {comment}\n")
    found = check(examples_tree, capsys)
    assert by_rule(found, "REF004") == []
    assert [(f["line"], f["column"], f["message"]) for f in found if f["rule"] == "RC001"] \
        == [(18, unused_at, "suppression of SCHEMA suppresses nothing on line 18")]


def test_each_directive_of_a_comment_has_its_own_findings(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(examples_tree, "    h20: verified\n",
         "    h20: verified  # recipe-check: ignore[REF004] # recipe-check: ignore\n")
    found = check(examples_tree, capsys)
    assert by_rule(found, "REF004") == [] and by_rule(found, "RC003") == [(18, 51)]
    (rc003,) = [f for f in found if f["rule"] == "RC003"]
    assert rc003["message"].startswith("'# recipe-check: ignore' is not ignore[IDS]")


def test_a_directive_after_comment_text_on_its_own_line_covers_the_next_line(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(examples_tree, "    h20: verified\n",
         "    # new profile # recipe-check: ignore[REF004]\n    h20: verified\n")
    found = check(examples_tree, capsys)
    assert by_rule(found, "REF004") == []
    assert not {f["rule"] for f in found if f["rule"].startswith("RC")}


def test_rc004_snippets() -> None:
    doc = RULES["RC004"].description
    failing = doc.split("Failing::")[1].split("Passing::")[0]
    passing = doc.split("Passing::")[1].split("How to fix")[0]

    def dedent(block: str) -> bytes:
        return textwrap.dedent(block).strip("\n").encode() + b"\n"

    assert [bad[0][0] for d in directives(dedent(failing)) if (bad := d.bad)] == ["RC004"]
    (good,) = directives(dedent(passing))
    assert good.bad == [] and good.file_wide and good.selectors == ["GUIDE"]


def test_directives_past_a_syntax_error_are_read_as_comments() -> None:
    text = b"a: |\n  # recipe-check: ignore[REF004]\nb: [\n# recipe-check: ignore-file[YAML]\n"
    found = directives(text)
    assert [(d.line, d.bad[0][0] if d.bad else d.selectors) for d in found] == [
        (2, "RC004"), (4, ["YAML"])]
