"""``REF025``: a variant ``model_id`` the site promotes to files of its own must not land
on another recipe's files -- its id in another letter case, another recipe's variant's
id, a folder holding or inside theirs -- which ``render --api-out`` refuses. An
id that is exactly another recipe's is not promoted by the site and is no collision.
Judged by ``check`` and by ``pr`` on a real git repository."""

from __future__ import annotations

import collections
import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.pr.conftest import commit_all
from validator.cli import main

CHAT = "models/example-org/Example-Chat-8B.yaml"
MOE = "models/example-org/Example-MoE-120B.yaml"


def _variant(root: Path, recipe: str, key: str, model_id: str) -> str:
    path = root / recipe
    text = path.read_text("utf-8").replace(
        "variants:\n  default:\n",
        f'variants:\n  {key}:\n    precision: fp8\n    vram_minimum_gb: 10\n'
        f'    description: "FP8"\n    model_id: "{model_id}"\n  default:\n', 1)
    path.write_text(text, "utf-8")
    return text


def _ref025(root: Path, recipe: str) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in check_tree(root, recipe) if f.rule == "REF025"]


@pytest.mark.parametrize("model_id", ["example-org/example-moe-120b",
                                      "example-org/Example-MoE-120B/fp8"])
def test_a_variant_id_on_another_recipes_files_is_an_error(examples_tree: Path,
                                                            model_id: str) -> None:
    text = _variant(examples_tree, CHAT, "fp8", model_id)
    found = _ref025(examples_tree, CHAT)
    assert [line for line, _ in found] == [line_of(text, model_id)]
    assert "models/example-org/Example-MoE-120B.yaml" in found[0][1]


def test_two_recipes_promoting_one_variant_id_are_both_reported(examples_tree: Path) -> None:
    chat = _variant(examples_tree, CHAT, "fp8", "example-org/Shared-FP8")
    moe = _variant(examples_tree, MOE, "fp8", "example-org/Shared-FP8")
    assert [line for line, _ in _ref025(examples_tree, CHAT)] == [
        line_of(chat, "Shared-FP8")]
    assert [line for line, _ in _ref025(examples_tree, MOE)] == [line_of(moe, "Shared-FP8")]


def test_another_recipes_exact_id_and_an_own_new_id_are_no_finding(
        examples_tree: Path) -> None:
    _variant(examples_tree, CHAT, "fp8", "example-org/Example-MoE-120B")  # not promoted
    _variant(examples_tree, CHAT, "int4", "example-org/Example-Chat-8B-INT4")
    assert _ref025(examples_tree, CHAT) == []


def test_pr_blocks_a_change_whose_variant_takes_another_recipes_page(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = _head(example_repo)
    text = _variant(example_repo, CHAT, "fp8", "example-org/example-moe-120b")
    head = commit_all(example_repo, "collide")
    code = main(["pr", "--offline", "--repo", str(example_repo), "--base", base, "--head",
                 head, "--format", "json", "--no-summary"])
    doc = json.loads(capsys.readouterr().out)
    new = [(d["path"], f["rule"], f["line"]) for d in doc["documents"]
           for f in d["findings"] if f.get("baseline") == "new"]
    assert code == 1
    assert (CHAT, "REF025", line_of(text, "example-moe-120b")) in new


def _head(repo: Path) -> str:
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()


def test_each_recipe_is_read_once_for_the_claims_of_every_tree_that_holds_it(
        examples_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ids the other recipes claim are read once per recipe's bytes, not again for
    each context holding them (each revision of ``history``, each ``--fix`` round):
    a second tree with the same recipes loads none, one with an edited recipe loads
    that one, and the verdict follows the edit."""
    from validator import api_claims
    from validator.context import local_context
    from validator.load import load_yaml

    _variant(examples_tree, MOE, "fp8", "example-org/Example-Chat-8B-FP8")
    monkeypatch.setattr(api_claims, "_OF_BYTES", collections.OrderedDict())
    loaded: list[str] = []
    real = load_yaml

    def counted(data: bytes, path: str, **options: bool) -> object:
        loaded.append(path)
        return real(data, path, **options)

    monkeypatch.setattr(api_claims, "load_yaml", counted)
    first = api_claims.tree_variant_ids_of(local_context(examples_tree))
    assert sorted(loaded) == sorted(first) and len(first) > 1
    loaded.clear()
    assert api_claims.tree_variant_ids_of(local_context(examples_tree)) == first
    assert loaded == []
    _variant(examples_tree, CHAT, "fp8", "example-org/example-chat-8b-fp8")
    assert _ref025(examples_tree, CHAT)  # case twin of the MoE recipe's variant id
    api_claims.tree_variant_ids_of(local_context(examples_tree))
    assert loaded.count(CHAT) == 1 and MOE not in loaded
