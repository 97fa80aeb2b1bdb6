"""``pr`` on a one-line change of a strategy's ``parallel_flag`` to an option no vLLM knows
is blocked: the flag is judged on the strategy file (real git)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import line_of
from tests.rules.flag.test_flag_parallel_flag import STRATEGY, _flag

from .conftest import commit_all, pr_json


def test_pr_changing_parallel_flag_to_a_typo_is_blocked(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = commit_all(example_repo, "base")
    text = _flag(example_repo, "--tensor-paralel-size")
    head = commit_all(example_repo, "a one-line strategy change")
    code, doc = pr_json(example_repo, base, head, capsys)
    new = [(d["path"], f["rule"], f["line"]) for d in doc["documents"] for f in d["findings"]
           if f.get("baseline") == "new"]
    assert code == 1
    assert new == [(STRATEGY, "FLAG001", line_of(text, "parallel_flag"))]
