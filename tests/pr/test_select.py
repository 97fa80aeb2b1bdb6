"""Which files PR mode checks and why, on real pull requests of the corpus and on changes
made in a scratch clone (renames, deletions, a removed hardware profile)."""

from __future__ import annotations

import re
from pathlib import Path

import git
import pytest
import yaml

from validator.pr.entry_changes import EntryChange
from validator.pr.run import PrError, run_pr
from validator.pr.select import Selection, diff_changes, matches, references, select
from validator.source.git import GitTree

from .conftest import git as run_git

pytestmark = pytest.mark.corpus


def _select(repo_dir: Path, number: int) -> Selection:
    repo = git.Repo(repo_dir)
    head = repo.commit(f"refs/pull/{number}/head").hexsha
    mb = repo.merge_base("main", head)[0].hexsha
    base_tree = GitTree("vllm-project/recipes", mb, None, repo, str(repo_dir))
    head_tree = GitTree("vllm-project/recipes", head, None, repo, str(repo_dir))
    return select(diff_changes(repo, mb, head), base_tree, head_tree)


def test_matches_folders_and_globs() -> None:
    assert matches("models/a/b.yaml", [])
    assert matches("models/a/b.yaml", ["models/"]) and matches("models/a/b.yaml", ["./models"])
    assert matches("models/a/b.yaml", ["models/a"]) and not matches("models/ab/c.yaml",
                                                                       ["models/a"])
    assert matches("models/a/GLM-5.yaml", ["models/*/GLM-*.yaml"])
    assert not matches("models/a/b.yaml", ["models/z/", "models/*/c.yaml"])


def test_references_are_exact_keys_or_whole_strings() -> None:
    data = {"meta": {"hardware": {"h100": "verified"}, "description": "runs on h100"},
            "compatible_strategies": ["single_node_tp", "tp"]}
    assert sorted(references(data, {"h100", "single_node_tp"})) == [
        ("h100", "/meta/hardware/h100"), ("single_node_tp", "/compatible_strategies/0")]


def test_taxonomy_change_selects_recipes_using_the_changed_profile(corpus_repo: Path) -> None:
    """PR #488 changes only taxonomy.yaml: the VRAM of dgx_station_gb300 (288 -> 252 GB)."""
    sel = _select(corpus_repo, 488)
    assert [c.path for c in sel.changes] == ["taxonomy.yaml"]
    assert sel.context_files == {"taxonomy.yaml": [
        "modified", "changed: hardware profile 'dgx_station_gb300' (description, vram_gb)"]}
    assert sel.entries == [EntryChange("hardware profile", "dgx_station_gb300", "changed",
                                       "taxonomy.yaml", ("description", "vram_gb"))]
    reason = ("references hardware profile 'dgx_station_gb300' (changed in taxonomy.yaml: "
              "description, vram_gb) at /meta/hardware/dgx_station_gb300")
    assert sel.recipes == {
        "models/MiniMaxAI/MiniMax-M2.7.yaml": [reason],
        "models/nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16.yaml": [reason],
    }
    # the selection agrees with a plain search of the head's recipes
    head = "refs/pull/488/head"
    users = run_git(corpus_repo, "grep", "-l", "dgx_station_gb300", head, "--", "models/")
    assert sorted(line.split(":", 1)[1] for line in users.splitlines()) == sorted(sel.recipes)


def test_added_taxonomy_entries_select_nothing(corpus_repo: Path) -> None:
    """PR #358 only adds a hardware profile: the taxonomy is checked, no recipe is."""
    sel = _select(corpus_repo, 358)
    assert sel.context_files == {"taxonomy.yaml": ["modified",
                                                   "added: hardware profile 'rtx5090'"]}
    assert sel.recipes == {}


def test_strategy_change_and_modified_recipe(corpus_repo: Path) -> None:
    """PR #417 edits two strategies and two DeepSeek recipes."""
    sel = _select(corpus_repo, 417)
    assert set(sel.context_files) == {"strategies/multi_node_tep.yaml",
                                      "strategies/single_node_tep.yaml"}
    pro = sel.recipes["models/deepseek-ai/DeepSeek-V4-Pro.yaml"]
    assert pro[0] == "modified"
    assert any(r.startswith("references strategy 'single_node_tep' (changed in "
                            "strategies/single_node_tep.yaml") for r in pro)
    for path, reasons in sel.recipes.items():
        if reasons[0] != "modified":
            assert all(re.match(r"references strategy '(single|multi)_node_tep'", r)
                       for r in reasons), path


REMOVED = "arc_pro_b60"
"""The hardware profile test_rename_delete_and_removed_profile removes from the taxonomy:
five recipes name it, each in meta.hardware, so pr checks eight recipes, not the 24 of
xeon6 (its name is no prefix of another profile's: git grep finds exactly its users)."""


def test_rename_delete_and_removed_profile(scratch_repo: Path) -> None:
    repo = scratch_repo
    run_git(repo, "mv", "models/Qwen/Qwen3-8B.yaml", "models/Qwen/Qwen3-8B-renamed.yaml")
    run_git(repo, "rm", "-q", "models/Qwen/Qwen3-4B.yaml")
    (repo / "NOTES.txt").write_text("not a recipe\n")
    taxonomy = (repo / "taxonomy.yaml").read_text(encoding="utf-8")
    block = re.search(rf"\n  {REMOVED}:\n(    .*\n)+", taxonomy)
    assert block is not None
    (repo / "taxonomy.yaml").write_text(taxonomy.replace(block.group(0), "\n"), encoding="utf-8")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", f"rename, delete, drop {REMOVED}")

    result = run_pr(repo, "main", "HEAD", env={})
    pr = result.context["pr"]
    files = {f["path"]: f["reasons"] for f in pr["files"]}
    assert files["models/Qwen/Qwen3-8B-renamed.yaml"][0] == \
        "renamed from models/Qwen/Qwen3-8B.yaml"
    assert {"path": "models/Qwen/Qwen3-4B.yaml", "why": "deleted"} in pr["skipped"]
    assert {"path": "NOTES.txt",
            "why": "not a recipe, taxonomy, strategy or kv-store file"} in pr["skipped"]
    assert "models/Qwen/Qwen3-4B.yaml" not in files
    assert {"kind": "hardware profile", "name": REMOVED, "change": "removed",
            "source": "taxonomy.yaml", "fields": []} in pr["changed_entries"]
    # every recipe of the head naming the profile is checked, and now fails REF004
    users = {ln for ln in run_git(repo, "grep", "-l", REMOVED, "HEAD", "--", "models/")
             .replace("HEAD:", "").splitlines()}
    assert users and users <= set(files)
    ref004 = {f.path for f in result.all_findings() if f.rule == "REF004"
              and f"'{REMOVED}'" in f.message}
    in_meta = set()
    for p in users:
        data = yaml.safe_load(run_git(repo, "show", f"HEAD:{p}"))
        if REMOVED in ((data.get("meta") or {}).get("hardware") or {}):
            in_meta.add(p)
    assert in_meta and ref004 == in_meta
    assert all(any(f"hardware profile '{REMOVED}' (removed in taxonomy.yaml)" in r
                   for r in files[p]) for p in ref004)
    assert result.exit_code == 1


def test_bad_revisions_are_clear_errors(corpus_repo: Path, tmp_path: Path) -> None:
    with pytest.raises(PrError, match="base revision 'no-such-branch' is not a commit"):
        run_pr(corpus_repo, "no-such-branch", "main", env={})
    with pytest.raises(PrError, match="not a git repository"):
        run_pr(tmp_path, "main", "main", env={})


def test_no_base_checks_every_recipe_under_paths(corpus_repo: Path) -> None:
    result = run_pr(corpus_repo, None, "main", patterns=["models/microsoft/"], env={})
    pr = result.context["pr"]
    assert pr["mode"] == "full" and pr["merge_base"] is None
    listed = run_git(corpus_repo, "ls-tree", "-r", "--name-only", "main", "models/microsoft/")
    assert len(listed.splitlines()) == 3  # a folder of three recipes, all checked
    assert [f["path"] for f in pr["files"]] == sorted(listed.splitlines())
    assert {d.path for d in result.documents} == set(listed.splitlines())
