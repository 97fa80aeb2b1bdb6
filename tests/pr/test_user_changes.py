"""The PR job summary says what a pull request changes for users: counts first, then the
rendered-command diff of each changed recipe, within GitHub's size limit."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from validator.cli import main
from validator.report.markdown import MarkdownReporter

from .conftest import git

pytestmark = pytest.mark.corpus

GEMMA = "models/Google/gemma-4-12B-it.yaml"


def change_variant(repo: Path, flag: str = "--max-num-seqs") -> None:
    file = repo / GEMMA
    text = file.read_text(encoding="utf-8")
    old = "    precision: int4\n    vram_minimum_gb: 9\n"
    assert old in text
    file.write_text(text.replace(old, old + f'    extra_args: ["{flag}", "32"]\n', 1),
                    encoding="utf-8")
    git(repo, "commit", "-qam", f"w4a16: {flag} 32")


def test_summary_of_a_variant_change_shows_the_rendered_command_diff(
        scratch_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    change_variant(scratch_repo)
    summary = tmp_path / "summary.md"
    code = main(["pr", "--repo", str(scratch_repo), "--base", "main", "--head", "work",
                 "--summary", str(summary), "--format", "text"])
    capsys.readouterr()
    assert code == 0  # the recipe's errors are all at the merge base
    text = summary.read_text(encoding="utf-8")
    counts = text.index("**0 new**, 7 existing, 0 fixed against the merge base")
    section = text.index("### What changes for users")
    assert counts < section < text.index("### Files checked")
    block = text[section:text.index("### Files checked")]
    assert f"#### {GEMMA.replace('_', chr(92) + '_')}" in block
    lines = [ln for ln in block.splitlines() if ": " in ln and "configurations" in ln]
    single = next(ln for ln in lines if "h200 · w4a16 · single_node_tp" in ln)
    assert single.endswith(": + --max-num-seqs 32")
    multi = next(ln for ln in lines if "multi_node_tp ×2" in ln)
    assert multi.endswith(": + head: --max-num-seqs 32; + worker 1: --max-num-seqs 32")
    assert "· default ·" not in block  # the default variant renders as before


def test_summary_compares_every_feature_set_as_diff_does(
        scratch_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An opt-in feature's change reaches no default configuration; the summary still
    shows it, as ``recipe-check diff`` does."""
    file = scratch_repo / GEMMA
    text = file.read_text(encoding="utf-8")
    old = '"num_speculative_tokens":4}'
    assert old in text
    file.write_text(text.replace(old, '"num_speculative_tokens":5}', 1), encoding="utf-8")
    git(scratch_repo, "commit", "-qam", "spec_decoding: 5 tokens")
    summary = tmp_path / "summary.md"
    main(["pr", "--repo", str(scratch_repo), "--base", "main", "--head", "work",
          "--summary", str(summary), "--format", "text"])
    diff_json = tmp_path / "diff.json"
    main(["diff", "--repo", str(scratch_repo), "main", "work", GEMMA,
          "--format", "json", "--output", str(diff_json)])
    capsys.readouterr()
    text = summary.read_text(encoding="utf-8")
    block = text[text.index("### What changes for users"):text.index("### Files checked")]
    assert "num_speculative_tokens" in block
    configurations = json.loads(diff_json.read_text(encoding="utf-8"))["configurations"]
    counted = sum(int(n) for n in re.findall(r"^(\d+) configurations \(", block, re.M))
    assert configurations and counted == len(configurations), block


def test_summary_keeps_within_budget_with_a_more_line() -> None:
    from validator.checker import RunResult
    from validator.pr.user_changes import UserChanges
    from validator.recipe_diff import RecipeDiff

    diffs: list[tuple[str, RecipeDiff | None]] = []
    for n in range(300):
        d = RecipeDiff(f"a{n}", f"b{n}")
        d.configs = {f"h200 · v{n} · single_node_tp": [f"+ --max-num-seqs {n}"]}
        diffs.append((f"models/org/recipe-{n}.yaml", d))
    result = RunResult(user_changes=UserChanges(diffs, not_compared=7))
    result.context["baseline"] = {}
    full = MarkdownReporter(env={}).render(result)
    assert "#### models/org/recipe-299.yaml" in full and "7 more recipe(s) not compared" in full
    budget = 20_000
    small = MarkdownReporter(budget=budget, env={}).render(result)
    assert len(small.encode("utf-8")) <= budget
    assert small.index("**0 new**, 0 existing, 0 fixed") < small.index("### What changes")
    assert "h200 · v0 · single_node_tp: + --max-num-seqs 0" in small
    assert "#### models/org/recipe-299.yaml" not in small
    assert "more line(s) of changes not shown" in small
    assert small.count("```") % 2 == 0  # a cut block is closed


def test_summary_suggests_the_patch_of_new_findings_with_a_safe_fix(
        scratch_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A change that spells a variant flag with underscores (FLAG013, safe fix) gets the
    patch in the job summary; the findings already at the base get none."""
    change_variant(scratch_repo, "--max_num_seqs")
    summary = tmp_path / "summary.md"
    main(["pr", "--repo", str(scratch_repo), "--base", "main", "--head", "work",
          "--summary", str(summary), "--format", "text"])
    capsys.readouterr()
    out = summary.read_text(encoding="utf-8")
    assert "### Suggested fixes" in out
    patch = out[out.index("### Suggested fixes"):]
    patch = patch[patch.index("```diff"):]
    patch = patch[:patch.index("\n```\n")]
    assert '-    extra_args: ["--max_num_seqs", "32"]' in patch
    assert '+    extra_args: ["--max-num-seqs", "32"]' in patch
    changed = [ln for ln in patch.splitlines()[1:]
               if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    assert len(changed) == 2  # the new finding's line only, nothing of the old findings


def test_no_suggested_fixes_section_without_new_fixable_findings(
        scratch_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    change_variant(scratch_repo)
    summary = tmp_path / "summary.md"
    main(["pr", "--repo", str(scratch_repo), "--base", "main", "--head", "work",
          "--summary", str(summary), "--format", "text"])
    capsys.readouterr()
    assert "### Suggested fixes" not in summary.read_text(encoding="utf-8")
