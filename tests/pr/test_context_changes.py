"""A pull request that changes only context files (a kv-store deployment, a strategy, the
taxonomy's hardware profiles or KV offload options) re-checks every recipe whose rendered
commands it changes, and judges the changed files' own argument lists; a problem of such
a list is reported once, on that file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import line_of, replace_once
from tests.context_files import KV_STORE, kv_offload_text, kv_store_text
from validator.cli import main

from .conftest import commit_all, git

CHAT = "models/example-org/Example-Chat-8B.yaml"
def _pr(repo: Path, base: str, head: str, capsys: pytest.CaptureFixture[str]
        ) -> tuple[int, dict[str, Any]]:
    code = main(["pr", "--offline", "--repo", str(repo), "--base", base, "--head", head,
                 "--format", "json", "--no-summary"])
    return code, json.loads(capsys.readouterr().out)


def _reasons(doc: dict[str, Any]) -> dict[str, list[str]]:
    return {f["path"]: f["reasons"] for f in doc["context"]["pr"]["files"]}


def _new(doc: dict[str, Any]) -> list[tuple[str, str, int, str]]:
    return [(d["path"], f["rule"], f["line"], f["message"]) for d in doc["documents"]
            for f in d["findings"] if f.get("baseline") == "new"]


@pytest.fixture()
def context_repo(example_repo: Path) -> tuple[Path, str]:
    """The example repository with a kv-store deployment and a KV offload option of our
    own committed on top: (repository, that commit)."""
    (example_repo / "kv_store").mkdir()
    (example_repo / KV_STORE).write_text(kv_store_text())
    taxonomy = example_repo / "taxonomy.yaml"
    taxonomy.write_text(taxonomy.read_text() + kv_offload_text(
        "--kv-transfer-config", '{"kv_connector":"ExampleConnector","kv_role":"kv_both"}'))
    return example_repo, commit_all(example_repo, "kv store and offload option")


def test_kv_store_only_change_is_judged_and_rechecks_the_recipes(
        context_repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, base = context_repo
    text = replace_once(repo / KV_STORE, '    - "--kv-transfer-config"',
                        '    - "--bogus-mooncake-flag"\n    - "--kv-transfer-config"')
    head = commit_all(repo, "bogus kv-store flag")
    code, doc = _pr(repo, base, head, capsys)
    assert code == 1
    assert _new(doc) == [(KV_STORE, "FLAG001", line_of(text, "--bogus-mooncake-flag"),
                          "`--bogus-mooncake-flag` is not an option of any vendored vLLM "
                          f"release up to {_newest()}")]
    assert _reasons(doc)[CHAT] == [
        "renders with KV store 'kv_store_example' (changed in kv_store/kv_store_example.yaml:"
        " vllm)"]


def test_strategy_flag_is_reported_once_on_the_strategy_file(
        context_repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, base = context_repo
    strategy = "strategies/single_node_tp.yaml"
    replace_once(repo / strategy, "vllm_args: []", 'vllm_args: ["--bogus-strategy-flag"]')
    head = commit_all(repo, "bogus strategy flag")
    code, doc = _pr(repo, base, head, capsys)
    assert code == 1
    bogus = [(d["path"], f["rule"]) for d in doc["documents"] for f in d["findings"]
             if "--bogus-strategy-flag" in f["message"]]
    assert bogus == [(strategy, "FLAG001")]
    assert CHAT in _reasons(doc)


def test_kv_offload_args_change_rechecks_recipes_offered_the_option(
        context_repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, base = context_repo
    text = replace_once(repo / "taxonomy.yaml", '      - "--kv-transfer-config"\n',
                        '      - "--bogus-offload-flag"\n      - "--kv-transfer-config"\n')
    head = commit_all(repo, "bogus offload flag")
    code, doc = _pr(repo, base, head, capsys)
    assert code == 1
    assert [(p, r, n) for p, r, n, _m in _new(doc)] == [
        ("taxonomy.yaml", "FLAG001", line_of(text, "--bogus-offload-flag"))]
    assert _reasons(doc)[CHAT] == [
        "renders with KV offload option 'example_cpu' (changed in taxonomy.yaml: args)"]


def test_shell_code_added_to_a_kv_offload_option_is_a_new_error_on_the_taxonomy(
        context_repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, base = context_repo
    text = replace_once(repo / "taxonomy.yaml", '      - "--kv-transfer-config"\n',
                        '      - "--served-model-name=x$(touch pwned)"\n'
                        '      - "--kv-transfer-config"\n')
    head = commit_all(repo, "offload option tweak")
    code, doc = _pr(repo, base, head, capsys)
    assert code == 1
    assert [(p, r, n) for p, r, n, _m in _new(doc)] == [
        ("taxonomy.yaml", "REF018", line_of(text, "--served-model-name"))]


def test_a_recipe_cannot_switch_off_ref018_for_its_own_shell_code(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = git(example_repo, "rev-parse", "HEAD")
    recipe = example_repo / CHAT
    text = "# recipe-check: ignore-file[REF018]\n" + recipe.read_text().replace(
        "  base_env: {}", '  base_env:\n    FOO: "$(touch pwned)"', 1)
    recipe.write_text(text)
    head = commit_all(example_repo, "env with a file-wide ignore")
    code, doc = _pr(example_repo, base, head, capsys)
    assert code == 1
    assert {(p, r, n) for p, r, n, _m in _new(doc)} >= {
        (CHAT, "REF018", line_of(text, "FOO:")), (CHAT, "RC005", 1)}


def test_hardware_profile_change_rechecks_recipes_rendered_on_it(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Example-Chat-8B names h100 and b200 only, yet the picker shows it on mi300x: a
    change of mi300x's GPU memory changes its commands there."""
    base = git(example_repo, "rev-parse", "HEAD")
    replace_once(example_repo / "taxonomy.yaml", "vram_gb: 1536", "vram_gb: 1024")
    head = commit_all(example_repo, "smaller mi300x")
    _code, doc = _pr(example_repo, base, head, capsys)
    assert _reasons(doc)[CHAT] == [
        "renders with hardware profile 'mi300x' (changed in taxonomy.yaml: vram_gb)"]


def test_display_only_change_rechecks_no_recipe(example_repo: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The control: a new description of mi300x changes no command."""
    base = git(example_repo, "rev-parse", "HEAD")
    replace_once(example_repo / "taxonomy.yaml", '"Eight MI300X GPUs in one node"',
                 '"Eight AMD MI300X GPUs in one node"')
    head = commit_all(example_repo, "reworded")
    code, doc = _pr(example_repo, base, head, capsys)
    assert code == 0
    assert list(_reasons(doc)) == ["taxonomy.yaml"]


def test_added_kv_store_rechecks_the_recipes_it_is_offered_to(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = git(example_repo, "rev-parse", "HEAD")
    (example_repo / "kv_store").mkdir()
    (example_repo / KV_STORE).write_text(kv_store_text())
    head = commit_all(example_repo, "new kv store")
    _code, doc = _pr(example_repo, base, head, capsys)
    assert _reasons(doc)[CHAT] == [
        "renders with KV store 'kv_store_example' (added in kv_store/kv_store_example.yaml)"]


def test_kv_store_deployment_added_as_a_strategy_file_rechecks_recipes(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before ``kv_store/`` existed, kv-store deployments were strategy files
    (``deploy_type: kv_store_lb``), offered to every recipe on NVIDIA and AMD nodes."""
    base = git(example_repo, "rev-parse", "HEAD")
    (example_repo / "strategies" / "kv_store_example.yaml").write_text(kv_store_text())
    head = commit_all(example_repo, "new kv store as a strategy")
    _code, doc = _pr(example_repo, base, head, capsys)
    assert _reasons(doc)[CHAT] == [
        "renders with strategy 'kv_store_example' (added in strategies/kv_store_example.yaml)"]


def _newest() -> str:
    from validator.analysis.cli_plan import versions
    from validator.vllm_cli.data_source import CliRegistries

    return str(versions(CliRegistries())[-1])


def test_an_item_inserted_before_a_defect_of_a_context_list_leaves_it_existing(
        context_repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    """A context file's findings are matched by content, as a recipe's are: the strategy's
    defect at the merge base is existing though the change moved it to another index."""
    repo, _ = context_repo
    strategy = "strategies/single_node_tp.yaml"
    replace_once(repo / strategy, "vllm_args: []", 'vllm_args: ["--bogus-strategy-flag"]')
    base = commit_all(repo, "a defect at the base")
    replace_once(repo / strategy, 'vllm_args: ["--bogus-strategy-flag"]',
                 'vllm_args: ["--other-bogus-flag", "--bogus-strategy-flag"]')
    head = commit_all(repo, "another flag before it")
    code, doc = _pr(repo, base, head, capsys)
    assert code == 1
    assert sorted((f["message"].split("`")[1], f["baseline"]) for d in doc["documents"]
                  if d["path"] == strategy for f in d["findings"]) == [
        ("--bogus-strategy-flag", "unchanged"), ("--other-bogus-flag", "new")]
