"""A recipe that is a symbolic link is fixed by neither ``--fix`` nor ``--diff``: the
patch ``--diff`` prints is what ``--fix`` writes, and writing a link would replace it by
a file. The file it points to is fixed when named itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.cli import main

MOE = "models/example-org/Example-MoE-120B.yaml"
LINK = "models/example-org/Linked-MoE.yaml"


@pytest.fixture()
def linked(examples_tree: Path) -> Path:
    (examples_tree / LINK).symlink_to("Example-MoE-120B.yaml")
    return examples_tree


def test_diff_of_a_linked_recipe_has_no_hunk_and_says_why(
        linked: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--diff", str(linked / LINK)]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert f"{LINK}: a symbolic link; not fixed (fix the file it points to)" in err
    assert "would fix 0 finding(s) with 0 fix(es) in 0 file(s)" in err


def test_diff_and_fix_agree_on_a_folder_holding_a_link(
        linked: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (linked / MOE).read_bytes()
    main(["check", "--diff", str(linked / "models")])
    patch, _ = capsys.readouterr()
    assert f"+++ b/{MOE}" in patch and LINK not in patch
    main(["check", "--fix", str(linked / "models")])
    assert (linked / LINK).is_symlink()
    assert (linked / MOE).read_bytes() != before
    assert (linked / LINK).read_bytes() == (linked / MOE).read_bytes()
