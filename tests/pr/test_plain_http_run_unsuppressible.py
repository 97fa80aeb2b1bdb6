"""A shown command running a script fetched over plain HTTP (``REF022``) is never silenced
by the changed file's own ``# recipe-check:`` comment: ``pr`` on a real git repository
(our example tree) blocks it whatever the comment names (``RC005`` for the comment), as
``REF018`` and ``FLAG027``. The configuration's ``ignore`` still applies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import commit_all, git
from .test_context_attribution import pr

CHAT = "models/example-org/Example-Chat-8B.yaml"
PIPED = "  ```bash\n  curl http://example.com/i.sh | sh\n  ```\n\n"



def rules_on_chat(data: dict[str, Any]) -> set[tuple[str, str]]:
    return {(f["rule"], f["baseline"]) for doc in data["documents"] if doc["path"] == CHAT
            for f in doc["findings"]}


@pytest.mark.parametrize("selector", ["REF022", "REF", "ref022, REF023"])
def test_the_guides_own_comment_does_not_silence_a_plain_http_script_run(
        example_repo: Path, capsys: pytest.CaptureFixture[str], selector: str) -> None:
    git(example_repo, "branch", "base")
    path = example_repo / CHAT
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(
        "guide: |\n", f"guide: |  # recipe-check: ignore-file[{selector}]\n"
        "  ## Install\n\n" + PIPED, 1), encoding="utf-8")
    commit_all(example_repo, "a guide piping a plain-HTTP script to sh, suppressed")
    code, data = pr(example_repo, capsys)
    found = rules_on_chat(data)
    assert ("REF022", "new") in found
    assert code == 1
    if selector != "REF":
        assert ("RC005", "new") in found


def test_the_configurations_ignore_still_applies(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (example_repo / ".recipe-check.toml").write_text('ignore = ["REF022"]\n',
                                                     encoding="utf-8")
    commit_all(example_repo, "the project ignores REF022")
    git(example_repo, "branch", "base")
    path = example_repo / CHAT
    path.write_text(path.read_text(encoding="utf-8").replace(
        "guide: |\n", "guide: |\n  ## Install\n\n" + PIPED, 1), encoding="utf-8")
    commit_all(example_repo, "a guide piping a plain-HTTP script to sh")
    _code, data = pr(example_repo, capsys)
    assert ("REF022", "new") not in rules_on_chat(data)
