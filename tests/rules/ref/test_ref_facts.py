"""REF013's ``did you mean`` index: suggestions from a prepared index of recipe ids whose
look-up cost is the size of the related groups, not of the tree."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import check_tree, replace_once
from validator.rules.ref.facts import RecipeIndex


def _paths(orgs: int, per_org: int) -> list[str]:
    return [f"models/org{o}/Model-{o}-{m}B.yaml" for o in range(orgs) for m in range(per_org)]


def test_candidates_are_the_same_or_similar_org_name_or_id_ignoring_case() -> None:
    index = RecipeIndex([*_paths(50, 20), "models/Google/gemma-4-31B-it.yaml",
                         "models/elsewhere/Model-7-3B.yaml", "taxonomy.yaml"])
    found = index.candidates("org7/Model-7-3B")
    assert {f"org7/Model-7-{m}B" for m in range(20)} <= set(found)  # same org
    assert "elsewhere/Model-7-3B" in found  # same name, other org
    assert len(found) <= 4 * 20 + 1  # the org, at most 3 similar orgs, the same name
    assert index.candidates("google/gemma-4-31B-it") == ["Google/gemma-4-31B-it"]
    assert index.candidates("Elsewher/x") == ["elsewhere/Model-7-3B"]  # similar org
    assert index.candidates("nowhere-at-all/nothing") == []


def test_lookup_cost_does_not_grow_with_the_tree() -> None:
    small, large = RecipeIndex(_paths(10, 20)), RecipeIndex(_paths(400, 20))
    assert len(large.candidates("org3/Model-3-30B")) == len(small.candidates("org3/Model-3-30B"))
    assert len(large.candidates("org3/Model-3-30B")) <= 4 * 20


def test_hints_name_the_nearest_recipes_and_are_memoised() -> None:
    index = RecipeIndex(["models/zai-org/GLM-5.1.yaml", "models/zai-org/GLM-5.2.yaml",
                         "models/zai-org/GLM-4.6.yaml", "models/Qwen/Qwen3-8B.yaml"])
    assert index.hint("zai-org/GLM-5.15") == (
        "did you mean: zai-org/GLM-5.1, zai-org/GLM-5.2, zai-org/GLM-4.6?")
    assert index.hint("zai-orgs/GLM-5.1") == (
        "did you mean: zai-org/GLM-5.1, zai-org/GLM-5.2, zai-org/GLM-4.6?")
    assert index.hint("zai-orgs/GLM-5.1") is index.hint("zai-orgs/GLM-5.1")
    assert index.hint("meta/Llama-4") is None
    assert index.hint("qwen3/Qwen3-8B-Instruct") == "did you mean: Qwen/Qwen3-8B?"


def test_case_mistake_at_corpus_main_gets_the_right_suggestion(corpus_repo: Path) -> None:
    # upstream defect at main: related_recipes name google/... while the files are Google/
    found = [f for f in check_tree(corpus_repo, "models/Google/gemma-4-E2B-it.yaml")
             if f.rule == "REF013"]
    assert found, "the corpus defect is no longer there"
    for f in found:
        wanted = f.message.split("'")[1]
        assert f.hint is not None and f.hint.startswith(
            f"did you mean: Google/{wanted.split('/', 1)[1]}"), f


def test_typo_in_related_recipe_suggests_the_recipe(corpus_copy: Path) -> None:
    replace_once(corpus_copy / "models/zai-org/GLM-5.2.yaml", '    - "zai-org/GLM-5.1"',
                 '    - "zai-org/GLM-5.1x"')
    found = [f for f in check_tree(corpus_copy, "models/zai-org/GLM-5.2.yaml")
             if f.rule == "REF013"]
    assert len(found) == 1 and found[0].hint is not None
    assert found[0].hint.startswith("did you mean: zai-org/GLM-5.1"), found[0].hint
