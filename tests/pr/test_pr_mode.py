"""``recipe-check pr`` end to end on real pull requests of the corpus bundle, as GitHub
Actions runs it: event payload, step summary, workspace and repository variables set;
the annotations, the job summary and the SARIF are asserted."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from validator.cli import main
from validator.report.markdown import rule_doc_url

from .conftest import PROJECT, git, github_env, pr_revisions, sarif_errors

pytestmark = pytest.mark.corpus

GEMMA = "models/Google/gemma-4-12B-it.yaml"


def run_action_env(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], tmp: Path,
                   *args: str) -> int:
    for key in ("GITHUB_ACTION_REPOSITORY", "GITHUB_ACTION_REF", "RECIPE_CHECK_PROJECT_URL",
                "RECIPE_CHECK_DOCS_REF"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp)  # the repository comes from GITHUB_WORKSPACE, not the cwd
    return main(["pr", *args])


def test_pr_616_annotations_summary_and_sarif(corpus_repo: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """PR #616 edits gemma-4-12B-it (model_id 'google/...' under models/Google/) and adds a
    taxonomy profile."""
    base, head = pr_revisions(corpus_repo, 616)
    mb = git(corpus_repo, "merge-base", base, head)
    env = github_env(tmp_path, corpus_repo, base, head, 616)
    sarif_path = tmp_path / "out" / "recipe-check.sarif"
    code = run_action_env(monkeypatch, env, tmp_path, "--sarif", str(sarif_path))
    out = capsys.readouterr().out
    lines = out.splitlines()

    # annotations: the "why" group first, then one group per file
    assert lines[0] == (f"::group::recipe-check pr: head {head[:12]}, base {base[:12]}, merge "
                        f"base {mb[:12]}: files checked and why")
    assert "checked taxonomy.yaml because: modified; added: hardware profile 'max1550'" in lines
    assert f"checked {GEMMA} because: modified" in lines
    assert f"::group::{GEMMA}" in lines
    # REF019 and REF013 are at the merge base already: logged, not annotated
    assert (f"{GEMMA}:21:13: warning REF019 (existing at the base) model_id "
            "'google/gemma-4-12B-it' differs from the file path") in out
    assert f"::warning file={GEMMA},line=13" not in out
    assert (f"::error file={GEMMA},line=80,endLine=81,title=SCHEMA001%3A Value has the wrong "
            "type::hardware_overrides.xpu.extra_args: {\"tensor_parallel_size\": 2} is not of "
            "type array") in out
    assert lines[-1].startswith("recipe-check: against the merge base: ")
    assert lines[-1].endswith(" new, 8 existing (not annotated), 0 fixed")  # GUIDE021 too

    # SARIF: valid, same findings, provenance of the head
    log: dict[str, Any] = json.loads(sarif_path.read_text(encoding="utf-8"))
    assert sarif_errors(log) == []
    run = log["runs"][0]
    results = run["results"]
    errors = [r for r in results if r["level"] == "error"]
    assert code == 1 and errors
    new_errors = sum(r["baselineState"] == "new" for r in errors)
    assert sum(ln.startswith("::error ") for ln in lines) == new_errors >= 1
    assert sum(ln.startswith("::warning ") for ln in lines) == \
        sum(r["level"] == "warning" and r["baselineState"] == "new" for r in results) == 0
    (ref019,) = [r for r in results if r["ruleId"] == "REF019"]
    assert ref019["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 21, "startColumn": 13, "endLine": 21, "endColumn": 36}
    assert run["tool"]["driver"]["rules"][ref019["ruleIndex"]]["id"] == "REF019"
    assert run["versionControlProvenance"] == [{
        "repositoryUri": "https://github.com/vllm-project/recipes", "revisionId": head,
        "mappedTo": {"uriBaseId": "%SRCROOT%"}, "branch": "pr-616"}]
    blob = subprocess.run(["git", "show", f"{head}:{GEMMA}"], cwd=corpus_repo, check=True,
                          capture_output=True).stdout
    artifacts = {a["location"]["uri"]: a for a in run["artifacts"]}
    assert artifacts[GEMMA]["hashes"]["sha-256"] == hashlib.sha256(blob).hexdigest()
    assert run["properties"]["recipeCheck"]["pr"]["files"][1] == {
        "path": GEMMA, "kind": "recipe", "reasons": ["modified"]}

    # job summary, appended to GITHUB_STEP_SUMMARY
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    new_count = sum(r["baselineState"] == "new" for r in results)
    assert summary.startswith(f"## recipe-check: ❌ {new_errors} error"
                              f"{'' if new_errors == 1 else 's'} introduced by this change\n\n"
                              f"**{new_count} new**, 8 existing, 0 fixed against the merge base")
    assert (f"Checked head `{head[:12]}` against base `{base[:12]}` (merge base `{mb[:12]}`), "
            "with the head's taxonomy and strategies.") in summary
    link = f"https://github.com/vllm-project/recipes/blob/{head}/{GEMMA}"
    assert f"| [models/Google/gemma-4-12B-it.yaml]({link}) | {len(errors)} |" in summary
    assert summary.count("| modified |") == 1
    assert (f"| ⚠️ warning · existing | [REF019]({rule_doc_url('REF019', env)}) | "
            f"[21]({link}#L21) | model\\_id 'google/gemma-4-12B-it' "
            "differs from the file path") in summary
    assert summary.count("| ❌ error · ") == len(errors)


def test_pr_488_taxonomy_change_checks_the_recipes_that_use_it(
        corpus_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """PR #488 changes only taxonomy.yaml (dgx_station_gb300: 288 -> 252 GB)."""
    base, head = pr_revisions(corpus_repo, 488)
    env = github_env(tmp_path, corpus_repo, base, head, 488)
    report = tmp_path / "report.json"
    # two formats on stdout are refused (they would be concatenated)
    assert run_action_env(monkeypatch, env, tmp_path, "--format", "github", "--format",
                          "text") == 2
    assert "one format goes to stdout" in capsys.readouterr().err
    code = run_action_env(monkeypatch, env, tmp_path, "--json", str(report), "--format",
                          "github")
    out = capsys.readouterr().out
    reason = ("references hardware profile 'dgx_station_gb300' (changed in taxonomy.yaml: "
              "description, vram_gb) at /meta/hardware/dgx_station_gb300")
    users = ["models/MiniMaxAI/MiniMax-M2.7.yaml",
             "models/nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16.yaml"]
    for path in users:
        # in the github group of files checked and why
        assert out.count(f"checked {path} because: {reason}") == 1
    data = json.loads(report.read_text(encoding="utf-8"))
    findings_schema = json.loads((PROJECT / "schemas" / "findings.schema.json").read_text())
    assert list(jsonschema.Draft202012Validator(findings_schema).iter_errors(data)) == []
    assert data["context"]["release_list"]["sha256"]
    pr = data["context"]["pr"]
    assert pr["base"] == base and pr["head"] == head and pr["mode"] == "pr"
    assert pr["origin"] == "pull_request event (pull request #488)"
    assert [f["path"] for f in pr["files"]] == ["taxonomy.yaml", *users]
    assert pr["changed_entries"] == [{"kind": "hardware profile", "name": "dgx_station_gb300",
                                      "change": "changed", "source": "taxonomy.yaml",
                                      "fields": ["description", "vram_gb"]}]
    assert sorted(d["path"] for d in data["documents"]) == sorted(["taxonomy.yaml", *users])
    assert all(d["revision"] == head for d in data["documents"])
    new_errors = [f for d in data["documents"] for f in d["findings"]
                  if f["severity"] == "error" and f["baseline"] == "new"]
    assert code == (1 if new_errors else 0)  # errors already at the merge base do not fail
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    assert "| File | Errors | Warnings | Infos | Checked because |" in summary
    assert ("references hardware profile 'dgx\\_station\\_gb300' (changed in taxonomy.yaml: "
            "description, vram\\_gb) at /meta/hardware/dgx\\_station\\_gb300") in summary
    assert "changed: hardware profile 'dgx\\_station\\_gb300' (description, vram\\_gb)" in summary


def test_pr_336_caps_annotations_and_summary_lists_all(
        corpus_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """PR #336 touches 74 files: more errors than GitHub displays."""
    base, head = pr_revisions(corpus_repo, 336)
    env = github_env(tmp_path, corpus_repo, base, head, 336)
    report = tmp_path / "report.json"
    code = run_action_env(monkeypatch, env, tmp_path, "--json", str(report))
    out = capsys.readouterr().out
    s = json.loads(report.read_text(encoding="utf-8"))["summary"]
    assert code == 1 and s["errors"] > 10 and s["documents"] > 60
    lines = out.splitlines()
    assert sum(ln.startswith("::error ") for ln in lines) == 10
    assert sum(ln.startswith("::warning ") for ln in lines) == min(10, s["warnings"])
    hidden = s["errors"] - 10
    assert any(ln.startswith(f"recipe-check: {hidden} error(s)") and "not annotated" in ln
               for ln in lines)
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    assert summary.count("| ❌ error · new |") == s["errors"]
    assert len(summary.encode("utf-8")) < 1024 * 1024


def test_pr_with_nothing_to_check(corpus_repo: Path, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    """PR #12's changes were all outside the recipe data kept in the bundle."""
    base, head = pr_revisions(corpus_repo, 12)
    env = github_env(tmp_path, corpus_repo, base, head, 12)
    assert run_action_env(monkeypatch, env, tmp_path) == 0
    out = capsys.readouterr().out
    assert "no recipe, taxonomy, strategy or kv-store file to check" in out
    assert "recipe-check: 0 file(s) checked: 0 error(s)" in out
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    assert summary.startswith("## recipe-check: ✅ no errors")
    assert "No recipe, taxonomy or strategy file to check in this change." in summary


def test_push_event_uses_before_and_after(corpus_repo: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    base, head = pr_revisions(corpus_repo, 488)
    before = git(corpus_repo, "merge-base", base, head)
    env = github_env(tmp_path, corpus_repo, base, head, 488, event="push")
    Path(env["GITHUB_EVENT_PATH"]).write_text(json.dumps({"before": before, "after": head}))
    report = tmp_path / "r.json"
    run_action_env(monkeypatch, env, tmp_path, "--json", str(report), "--no-summary")
    capsys.readouterr()
    pr = json.loads(report.read_text())["context"]["pr"]
    assert (pr["base"], pr["merge_base"], pr["origin"]) == (before, before, "push event")
    assert len(pr["files"]) == 3
    assert Path(env["GITHUB_STEP_SUMMARY"]).read_text() == ""


def test_unusable_event_or_revision_exits_2(corpus_repo: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    base, head = pr_revisions(corpus_repo, 488)
    env = github_env(tmp_path, corpus_repo, base, head, 488)
    Path(env["GITHUB_EVENT_PATH"]).write_text("{broken")
    assert run_action_env(monkeypatch, env, tmp_path) == 2
    assert "is not JSON" in capsys.readouterr().err
    assert main(["pr", "--repo", str(corpus_repo), "--base", "main", "--head", "f" * 40]) == 2
    assert "head revision 'ffff" in capsys.readouterr().err


def test_symlinked_recipe_is_refused_as_in_check_mode(corpus_repo: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A PR that adds a recipe as a symbolic link leaving the tree gets PROV005 (an error,
    as ``check`` gives it), not a silent 'skipped'; the real recipe beside it is checked."""
    repo = tmp_path / "repo"
    git(tmp_path, "clone", "-q", str(corpus_repo), str(repo))
    base = git(repo, "rev-parse", "HEAD")
    (repo / "models" / "zai-org" / "GLM-Evil.yaml").symlink_to("/etc/passwd")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "link")
    head = git(repo, "rev-parse", "HEAD")
    code = main(["pr", "--repo", str(repo), "--base", base, "--head", head, "--format", "json",
                 "--no-summary"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    [evil] = [d for d in doc["documents"] if d["path"].endswith("GLM-Evil.yaml")]
    assert [(f["rule"], f["severity"], f["line"]) for f in evil["findings"]] == [
        ("PROV005", "error", 1)]
    assert "symbolic link" in evil["findings"][0]["message"]
    assert not any(s["path"].endswith("GLM-Evil.yaml") for s in doc.get("skipped", []))
