"""A strategy or kv-store file claiming a name that is not its own (``REF027``): the site
keys them by ``name``, so such a file replaces that strategy in every recipe's commands.
``pr`` on a real git repository (our example tree) blocks it on the file's ``name`` line,
judges what it puts into the commands as the site renders them (findings on the file,
at its item), and no comment in the file silences it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.context_files import kv_store_text
from validator.cli import main

from .conftest import commit_all, git
from .test_context_attribution import pr

CHAT = "models/example-org/Example-Chat-8B.yaml"
STRATEGY = "strategies/single_node_tp.yaml"
NEWER_FLAG = 'vllm_args:\n  - "--language-model-only"\n'
"""A flag of vLLM 0.17.0 on: newer than the chat recipe's minimum 0.12.0."""



def new_errors(data: dict[str, Any]) -> set[tuple[str, str, int]]:
    return {(doc["path"], f["rule"], f["line"]) for doc in data["documents"]
            for f in doc["findings"] if f["severity"] == "error" and f["baseline"] == "new"}


def add_copy(repo: Path, path: str, header: str = "") -> None:
    """``path``: a copy of the single-node strategy (``name: single_node_tp`` kept)
    carrying a flag newer than the chat recipe's minimum, ``header`` above it."""
    text = (repo / STRATEGY).read_text(encoding="utf-8").replace("vllm_args: []\n",
                                                                 NEWER_FLAG)
    (repo / path).parent.mkdir(exist_ok=True)
    (repo / path).write_text(header + text, encoding="utf-8")


def test_a_new_strategy_file_claiming_an_existing_name_is_blocked_on_its_name_and_args(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(example_repo, "branch", "base")
    add_copy(example_repo, "strategies/zz_fast.yaml")
    commit_all(example_repo, "a faster single_node_tp under another file name")
    code, data = pr(example_repo, capsys)
    errors = new_errors(data)
    assert ("strategies/zz_fast.yaml", "REF027", 1) in errors
    # the flag it puts into the chat recipe's commands, judged as the site renders them
    flagged = [f for doc in data["documents"] if doc["path"] == "strategies/zz_fast.yaml"
               for f in doc["findings"] if f["rule"] == "FLAG002"]
    assert any(f["message"].startswith(CHAT + ": ") for f in flagged)
    assert code == 1


def test_a_kv_store_file_named_after_a_strategy_is_reported_on_its_name_line(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(example_repo, "branch", "base")
    add_copy(example_repo, "kv_store/zz.yaml")
    commit_all(example_repo, "a kv-store file named single_node_tp")
    code, data = pr(example_repo, capsys)
    assert ("kv_store/zz.yaml", "REF027", 1) in new_errors(data)
    assert code == 1


@pytest.mark.parametrize("comment", ["# recipe-check: ignore-file[REF027]\n",
                                     "# recipe-check: ignore-file[REF]\n"])
def test_the_files_own_comment_does_not_silence_its_name_claim(
        example_repo: Path, capsys: pytest.CaptureFixture[str], comment: str) -> None:
    git(example_repo, "branch", "base")
    add_copy(example_repo, "strategies/zz_fast.yaml", comment)
    commit_all(example_repo, "a suppressed name claim")
    code, data = pr(example_repo, capsys)
    assert ("strategies/zz_fast.yaml", "REF027", 2) in new_errors(data)
    assert code == 1


def test_a_strategy_whose_name_is_its_file_name_is_not_reported(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(example_repo, "branch", "base")
    text = (example_repo / STRATEGY).read_text(encoding="utf-8")
    (example_repo / "strategies/zz_fast.yaml").write_text(
        text.replace("name: single_node_tp", "name: zz_fast"), encoding="utf-8")
    commit_all(example_repo, "a new strategy of its own name")
    code, data = pr(example_repo, capsys)
    assert not [e for e in new_errors(data) if e[1] == "REF027"]
    assert code == 0


def test_a_kv_store_deployment_named_after_a_strategy_is_blocked_on_that_file_not_the_recipes(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The recipes rendering ``single_node_tp`` get the deployment instead, for which the
    site renders no vLLM command: those errors are the kv-store file's (on its ``name``
    line), not the recipes'."""
    git(example_repo, "branch", "base")
    (example_repo / "kv_store").mkdir()
    (example_repo / "kv_store/zz.yaml").write_text(
        kv_store_text().replace("name: kv_store_example", "name: single_node_tp"),
        encoding="utf-8")
    commit_all(example_repo, "a kv-store deployment claiming single_node_tp")
    code, data = pr(example_repo, capsys)
    errors = new_errors(data)
    assert {rule for path, rule, _ in errors if path == "kv_store/zz.yaml"} >= {"REF027",
                                                                                "REF015"}
    assert {line for path, _, line in errors if path == "kv_store/zz.yaml"} == {1}
    assert not [e for e in errors if e[0].startswith("models/")]
    assert code == 1


def test_render_names_the_kv_store_file_and_prints_no_python_none(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (example_repo / "kv_store").mkdir()
    (example_repo / "kv_store/zz.yaml").write_text(
        kv_store_text().replace("name: kv_store_example", "name: single_node_tp"),
        encoding="utf-8")
    code = main(["render", str(example_repo / CHAT)])
    out, err = capsys.readouterr()
    assert code == 1
    assert "kv_store/zz.yaml:1:" in err and "claims the name 'single_node_tp'" in err
    assert "None" not in out


def recipe_errors(data: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [(doc["path"], f["rule"], f["baseline"], f.get("hint", "")) for doc in data["documents"]
            if doc["path"].startswith("models/") for f in doc["findings"]
            if f["severity"] == "error"]


def test_a_strategy_file_renamed_with_its_name_kept_is_blocked_on_the_file_only(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The site files the strategy under its ``name``, so every recipe naming
    ``single_node_tp`` still gets it: the one defect is the file's (``REF027``), not an
    unknown strategy on each recipe."""
    git(example_repo, "branch", "base")
    git(example_repo, "mv", STRATEGY, "strategies/tp_single.yaml")
    commit_all(example_repo, "rename the single-node strategy's file")
    code, data = pr(example_repo, capsys)
    assert ("strategies/tp_single.yaml", "REF027", 1) in new_errors(data)
    assert not [e for e in recipe_errors(data) if e[2] == "new"]
    assert code == 1


def test_a_strategy_renamed_inside_its_file_is_unknown_to_the_recipes_with_a_hint_to_the_file(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(example_repo, "branch", "base")
    text = (example_repo / STRATEGY).read_text(encoding="utf-8")
    (example_repo / STRATEGY).write_text(
        text.replace("name: single_node_tp", "name: tp_single"), encoding="utf-8")
    commit_all(example_repo, "rename the single-node strategy inside its file")
    code, data = pr(example_repo, capsys)
    unknown = [e for e in recipe_errors(data) if e[1] == "REF002" and e[2] == "new"]
    assert unknown
    assert all(f"{STRATEGY} names itself 'tp_single'" in e[3] for e in unknown)
    assert code == 1
