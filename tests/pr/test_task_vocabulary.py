"""``pr`` on a taxonomy change that removes a task: the recipes still naming it are
re-checked and blocked at their ``meta.tasks`` items (REF039), on a git repository of
our example tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import commit_all, git
from .test_context_attribution import pr


def test_a_pull_request_removing_a_task_recipes_use_is_blocked_at_their_items(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(example_repo, "branch", "base")
    taxonomy = example_repo / "taxonomy.yaml"
    text = taxonomy.read_text("utf-8")
    start = text.index("  - id: text\n")
    taxonomy.write_text(text[:start] + text[text.index("  - id: multimodal\n"):], "utf-8")
    commit_all(example_repo, "drop the text task")
    code, data = pr(example_repo, capsys)
    new = {(doc["path"], f["pointer"]) for doc in data["documents"] for f in doc["findings"]
           if f["rule"] == "REF039" and f["baseline"] == "new"}
    assert ("models/example-org/Example-Chat-8B.yaml", "/meta/tasks/0") in new
    assert code == 1
