"""``pr`` on a change that removes what other files read: the taxonomy or a context folder
the site's build reads (``REF030`` on the removed path; what the context judged is hidden,
not fixed), and a recipe that other recipes name in ``related_recipes`` (those recipes are
checked, and their ``REF013`` is new)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main

from .conftest import commit_all, git, pr_json, sarif_errors

MOE = "models/example-org/Example-MoE-120B.yaml"
CHAT = "models/example-org/Example-Chat-8B.yaml"


def _doc(report: dict[str, Any], path: str) -> dict[str, Any]:
    (doc,) = [d for d in report["documents"] if d["path"] == path]
    assert isinstance(doc, dict)
    return doc


def test_removing_the_taxonomy_is_a_new_error_and_hides_what_it_judged(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = git(example_repo, "rev-parse", "HEAD")
    (example_repo / "taxonomy.yaml").unlink()
    head = commit_all(example_repo, "remove the taxonomy")
    code, report = pr_json(example_repo, base, head, capsys)
    assert code == 1
    (removed,) = _doc(report, "taxonomy.yaml")["findings"]
    assert (removed["rule"], removed["baseline"]) == ("REF030", "new")
    assert "site's build reads it" in removed["message"]
    # MoE's REF013 (a related recipe missing at the base) is not judged without the
    # taxonomy: hidden, not fixed
    moe = _doc(report, MOE)
    assert moe.get("fixed", []) == []
    assert any(f["rule"] == "REF013" and "removes taxonomy.yaml" in f["message"]
               for f in moe["hidden"])
    assert report["summary"]["fixed"] == 0


@pytest.mark.parametrize("folder", ["strategies", "kv_store"])
def test_removing_a_context_folder_the_site_build_reads_is_a_new_error(
        example_repo: Path, capsys: pytest.CaptureFixture[str], folder: str) -> None:
    (example_repo / "kv_store").mkdir()
    (example_repo / "kv_store" / "kv_store_lb.yaml").write_text(
        "name: kv_store_lb\ndeploy_type: kv_store_lb\n", encoding="utf-8")
    base = commit_all(example_repo, "a kv-store deployment")
    shutil.rmtree(example_repo / folder)
    head = commit_all(example_repo, f"remove {folder}/")
    code, report = pr_json(example_repo, base, head, capsys)
    assert code == 1
    (removed,) = _doc(report, f"{folder}/")["findings"]
    assert (removed["rule"], removed["baseline"]) == ("REF030", "new")
    assert removed["message"].startswith(f"{folder}/ is removed")


def test_removing_one_strategy_is_not_a_removed_folder(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = git(example_repo, "rev-parse", "HEAD")
    (example_repo / "strategies" / "multi_node_tp.yaml").unlink()
    head = commit_all(example_repo, "remove one strategy")
    _code, report = pr_json(example_repo, base, head, capsys)
    assert not [f for d in report["documents"] for f in d["findings"] if f["rule"] == "REF030"]


def test_findings_a_syntax_error_hid_at_the_base_are_not_new(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = example_repo / CHAT
    good = recipe.read_text(encoding="utf-8").replace(
        "  base_args:\n", '  base_args:\n    - "--no-such-flag-at-all"\n', 1)
    assert "--no-such-flag-at-all" in good
    recipe.write_text(good.replace("variants:\n", "variants: [\n", 1), encoding="utf-8")
    base = commit_all(example_repo, "an unknown flag, and a syntax error hiding it")
    recipe.write_text(good, encoding="utf-8")
    head = commit_all(example_repo, "fix the syntax error")
    code, report = pr_json(example_repo, base, head, capsys)
    chat = _doc(report, CHAT)
    (flag,) = [f for f in chat["findings"] if "--no-such-flag-at-all" in f["message"]]
    assert flag["baseline"] == "unchanged"
    assert "not judged at the merge base" in flag["message"]
    assert [f["rule"] for f in chat["fixed"]] == ["YAML001"]
    assert report["summary"]["new"] == 0
    assert code == 0  # --fail-on new


def _sarif(repo: Path, base: str, head: str, tmp_path: Path,
           capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    """The SARIF results of ``pr`` (valid against the schema)."""
    sarif = tmp_path / "out.sarif"
    main(["pr", "--offline", "--repo", str(repo), "--base", base, "--head", head,
          "--format", "text", "--sarif", str(sarif), "--no-summary"])
    capsys.readouterr()
    log = json.loads(sarif.read_text(encoding="utf-8"))
    assert sarif_errors(log) == []
    results: list[dict[str, Any]] = log["runs"][0]["results"]
    return results


def test_sarif_of_a_syntax_fix_and_a_removed_taxonomy(
        example_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = example_repo / CHAT
    good = recipe.read_text(encoding="utf-8").replace(
        "  base_args:\n", '  base_args:\n    - "--no-such-flag-at-all"\n', 1)
    recipe.write_text(good.replace("variants:\n", "variants: [\n", 1), encoding="utf-8")
    broken = commit_all(example_repo, "a syntax error")
    recipe.write_text(good, encoding="utf-8")
    fixed = commit_all(example_repo, "fix it")
    results = _sarif(example_repo, broken, fixed, tmp_path, capsys)
    assert {r["baselineState"] for r in results if r["ruleId"] != "YAML001"} == {"unchanged"}
    assert [r["ruleId"] for r in results if r["baselineState"] == "absent"] == ["YAML001"]
    (example_repo / "taxonomy.yaml").unlink()
    gone = commit_all(example_repo, "remove the taxonomy")
    results = _sarif(example_repo, fixed, gone, tmp_path, capsys)
    (ref030,) = [r for r in results if r["ruleId"] == "REF030"]
    assert ref030["baselineState"] == "new"
    assert ref030["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == \
        "taxonomy.yaml"
    assert not [r for r in results if r["baselineState"] == "absent"]


@pytest.mark.parametrize("how", ["delete", "rename"])
def test_removing_a_related_recipe_checks_the_recipes_naming_it(
        example_repo: Path, capsys: pytest.CaptureFixture[str], how: str) -> None:
    base = git(example_repo, "rev-parse", "HEAD")
    if how == "delete":
        (example_repo / CHAT).unlink()
    else:
        git(example_repo, "mv", CHAT, CHAT.replace("8B", "9B"))
    head = commit_all(example_repo, f"{how} Example-Chat-8B")
    _code, report = pr_json(example_repo, base, head, capsys)
    (moe,) = [f for f in report["context"]["pr"]["files"] if f["path"] == MOE]
    assert moe["reasons"] == ["names the removed recipe 'example-org/Example-Chat-8B' at "
                              "/meta/related_recipes/0"]
    related = {f["message"].split("'")[1]: f["baseline"]
               for f in _doc(report, MOE)["findings"] if f["rule"] == "REF013"}
    assert related == {"example-org/Example-Chat-8B": "new",
                       "example-org/Example-Chat-70B": "unchanged"}
