"""``pr --help`` says how its job summary counts what changes for users: over every
configuration and feature set, as ``diff`` counts (one answer for both)."""

from __future__ import annotations

import pytest

from validator.cli import main


def test_pr_help_says_the_summary_counts_every_feature_set_as_diff_does(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["pr", "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "What changes for users" in text
    assert "every configuration and every feature set, as `recipe-check diff` does" in text
