"""A finding caused by a context file's list is that file's: ``pr`` on real git
repositories (our example recipes tree in ``tmp_path``) does not count it as new in a
recipe change that leaves the file alone, and reports it on the file, at the list item,
when the change edits the file; ``check`` reports it on the file when it checks the
file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main
from validator.findings import Finding, Related, Severity
from validator.pr.baseline import context_caused

from .conftest import commit_all, git

CHAT = "models/example-org/Example-Chat-8B.yaml"
STRATEGY = "strategies/single_node_tp.yaml"
NEWER_FLAG = 'vllm_args:\n  - "--language-model-only"\n'
"""A flag of vLLM 0.17.0 on: newer than the chat recipe's minimum 0.12.0 (FLAG002 on the
recipe line that selects the strategy)."""


def pr(repo: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["pr", "--offline", "--repo", str(repo), "--base", "base", "--head", "HEAD",
                 "--no-summary", "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def strategy_states(data: dict[str, Any]) -> list[tuple[str, str, str]]:
    """``(path, rule, baseline)`` of the findings that name the strategy's flag."""
    return [(doc["path"], f["rule"], f["baseline"]) for doc in data["documents"]
            for f in doc["findings"] if "--language-model-only" in f["message"]]


def set_strategy_args(repo: Path) -> None:
    file = repo / STRATEGY
    file.write_text(file.read_text(encoding="utf-8").replace("vllm_args: []\n", NEWER_FLAG),
                    encoding="utf-8")


def add_recipe_copy(repo: Path, name: str) -> str:
    """A new recipe: the chat recipe under another model id; its path."""
    path = f"models/example-org/{name}.yaml"
    text = (repo / CHAT).read_text(encoding="utf-8").replace("Example-Chat-8B", name)
    (repo / path).write_text(text, encoding="utf-8")
    return path


def test_a_new_recipe_below_an_unchanged_strategy_flag_is_new(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The strategy's 0.17 flag is above the new recipe's minimum 0.12.0: the pair fails
    because the change added the recipe (the recipe's minimum or its choice of strategy
    is what to fix), so the FLAG002 is new and blocks, though other recipes already have it."""
    set_strategy_args(example_repo)
    commit_all(example_repo, "strategy with a 0.17 flag")
    git(example_repo, "branch", "base")
    added = add_recipe_copy(example_repo, "Example-Chat-9B")
    commit_all(example_repo, "a new recipe")
    code, data = pr(example_repo, capsys)
    assert strategy_states(data) == [(added, "FLAG002", "new")]
    assert code == 1


def test_selecting_a_strategy_whose_flag_is_above_the_minimum_is_new(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The other strategy gets the 0.17 flag at the base, where no recipe selects it; the
    change makes the chat recipe (minimum 0.12.0) select it: new, on the added line."""
    other = example_repo / "strategies" / "multi_node_tp.yaml"
    text = other.read_text(encoding="utf-8")
    assert "vllm_args: []\n" in text
    other.write_text(text.replace("vllm_args: []\n", NEWER_FLAG), encoding="utf-8")
    commit_all(example_repo, "the other strategy with a 0.17 flag")
    git(example_repo, "branch", "base")
    chat = example_repo / CHAT
    chat.write_text(chat.read_text(encoding="utf-8").replace(
        "  - single_node_tp\n", "  - single_node_tp\n  - multi_node_tp\n"), encoding="utf-8")
    commit_all(example_repo, "the recipe offers the other strategy")
    code, data = pr(example_repo, capsys)
    assert strategy_states(data) and {state for state in strategy_states(data)} == {
        (CHAT, "FLAG002", "new")}
    assert code == 1


def strategy_findings(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for doc in data["documents"] if doc["path"] == STRATEGY for f in doc["findings"]]


def test_a_change_to_the_strategy_is_blocked_on_the_strategy_at_its_item(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The strategy's new flag is newer than the chat recipe's minimum: the error is the
    strategy's, at the item's line (14), naming the recipe and pointing back at the
    recipe line that selects the strategy; no recipe gets it."""
    git(example_repo, "branch", "base")
    set_strategy_args(example_repo)
    commit_all(example_repo, "strategy gets a 0.17 flag")
    code, data = pr(example_repo, capsys)
    assert {path for path, _, _ in strategy_states(data)} == {STRATEGY}
    chat = [f for f in strategy_findings(data) if f["message"].startswith(CHAT + ": ")]
    assert [(f["rule"], f["pointer"], f["line"], f["baseline"]) for f in chat] == \
        [("FLAG002", "/vllm_args/0", 14, "new")]
    assert chat[0]["related"] == [{"line": 46, "path": CHAT,
                                   "message": "the recipe line that selects this list"}]
    assert code == 1


def test_a_recipe_and_strategy_changed_together_keep_the_finding_new(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(example_repo, "branch", "base")
    set_strategy_args(example_repo)
    added = add_recipe_copy(example_repo, "Example-Chat-9B")
    commit_all(example_repo, "a recipe and its strategy")
    code, data = pr(example_repo, capsys)
    assert {(f["message"].split(":")[0], f["baseline"]) for f in strategy_findings(data)
            if "--language-model-only" in f["message"]} >= {(CHAT, "new"), (added, "new")}
    assert set(strategy_states(data)) == {(STRATEGY, "FLAG002", "new")}
    assert code == 1


def test_check_reports_on_the_strategy_when_it_checks_the_strategy(
        example_repo: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``check models/`` does not check the strategy file's lists: the finding stays on
    the recipe line that selects it. Named, the strategy is checked and the finding is
    on it, in JSON and SARIF alike."""
    set_strategy_args(example_repo)
    monkeypatch.chdir(example_repo)
    def paths(*targets: str) -> set[str]:
        main(["check", "--offline", "--format", "json", *targets])
        data = json.loads(capsys.readouterr().out)
        return {d["path"] for d in data["documents"] for f in d["findings"]
                if "--language-model-only" in f["message"]}

    assert CHAT in paths("models/") and STRATEGY not in paths("models/")
    assert paths("models/", STRATEGY) == {STRATEGY}
    main(["check", "--offline", "--format", "sarif", "models/", STRATEGY])
    sarif = json.loads(capsys.readouterr().out)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in sarif["runs"][0]["results"] if "--language-model-only" in
            r["message"]["text"]}
    assert uris == {STRATEGY}


def finding(pointer: str, related_path: str | None) -> Finding:
    related = (Related(3, "item", related_path),) if related_path else ()
    return Finding("FLAG002", Severity.ERROR, CHAT, pointer, 9, 5, "m", related=related)


@pytest.mark.parametrize(("pointer", "related", "changed", "cause"), [
    ("/compatible_strategies/0", STRATEGY, set(), STRATEGY),
    ("", "taxonomy.yaml", set(), "taxonomy.yaml"),
    ("/kv_offload_support/lmcache", "taxonomy.yaml", set(), "taxonomy.yaml"),
    ("/compatible_strategies/0", STRATEGY, {STRATEGY}, None),
    # the recipe's own list item, the strategy only the other side of it: the recipe's
    ("/variants/default/extra_args/0", STRATEGY, set(), None),
    ("/compatible_strategies/0", None, set(), None),
    ("/compatible_strategies/0", "models/other/Other.yaml", set(), None),
])
def test_context_caused_names_an_unchanged_context_file_behind_a_selector_line(
        pointer: str, related: str | None, changed: set[str], cause: str | None) -> None:
    assert context_caused(finding(pointer, related), changed) == cause


GUIDE_END = "    --tool-call-parser hermes\n  ```\n"


def guide_block(flag: str) -> str:
    return f"\n  ```bash\n  vllm serve example-org/Example-Chat-8B {flag}\n  ```\n"


def add_to_guide(repo: Path, text: str) -> None:
    file = repo / CHAT
    body = file.read_text(encoding="utf-8")
    assert body.count(GUIDE_END) == 1
    file.write_text(body.replace(GUIDE_END, GUIDE_END + text), encoding="utf-8")


def new_guide_findings(data: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["rule"], f["message"].split("`")[1]) for doc in data["documents"]
            for f in doc["findings"] if f["baseline"] == "new" and f["pointer"] == "/guide"]


def test_another_guide_copy_of_a_token_above_the_minimum_is_new(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The base's guide already uses `--language-model-only` (vLLM 0.17.0 on) under the
    minimum 0.12.0; a second block using it is another command a reader copies that
    fails: new (as a flag above the minimum the base does not use is)."""
    add_to_guide(example_repo, guide_block("--language-model-only"))
    commit_all(example_repo, "a guide block above the minimum")
    git(example_repo, "branch", "base")
    code, data = pr(example_repo, capsys)
    assert new_guide_findings(data) == [] and code == 0
    add_to_guide(example_repo, guide_block("--language-model-only --max-num-seqs 8"))
    commit_all(example_repo, "another block with the same flag")
    code, data = pr(example_repo, capsys)
    assert new_guide_findings(data) == [("GUIDE004", "--language-model-only")] and code == 1


def set_chat_minimum(repo: Path, version: str) -> None:
    file = repo / CHAT
    text = file.read_text(encoding="utf-8")
    old = text.split('min_vllm_version: "', 1)[1].split('"', 1)[0]
    file.write_text(text.replace(f'min_vllm_version: "{old}"', f'min_vllm_version: "{version}"'),
                    encoding="utf-8")


def test_lowering_the_recipe_minimum_below_an_unchanged_strategy_flag_is_new(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The strategy's 0.17 flag is fine for the chat recipe at the base (minimum 0.17.0);
    the change lowers the recipe's minimum back to 0.12.0 and leaves the strategy alone:
    the recipe's change made the pair fail, so the FLAG002 on the recipe is new."""
    set_strategy_args(example_repo)
    set_chat_minimum(example_repo, "0.17.0")
    commit_all(example_repo, "strategy with a 0.17 flag, recipe from 0.17")
    git(example_repo, "branch", "base")
    set_chat_minimum(example_repo, "0.12.0")
    commit_all(example_repo, "the recipe's minimum lowered")
    code, data = pr(example_repo, capsys)
    assert strategy_states(data) == [(CHAT, "FLAG002", "new")]
    assert code == 1


def test_raising_the_recipe_minimum_keeps_an_unchanged_strategy_defect_existing(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A change that raises the minimum (still below the flag's release) lowers nothing:
    the strategy's defect stays the strategy's."""
    set_strategy_args(example_repo)
    commit_all(example_repo, "strategy with a 0.17 flag")
    git(example_repo, "branch", "base")
    set_chat_minimum(example_repo, "0.13.0")
    commit_all(example_repo, "the recipe's minimum raised")
    code, data = pr(example_repo, capsys)
    assert strategy_states(data) == [(CHAT, "FLAG002", "unchanged")]
    assert code == 0
