"""``recipe-check pr --format text`` names the findings a change fixed, as JSON does."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from tests.cli_in_process import run_cli
from tests.render.tiny_tree import write_tree
from validator.checker import DocumentResult, RunResult
from validator.findings import Finding, Severity
from validator.report.text import TextReporter
from validator.source.provenance import Provenance

from .conftest import PROJECT, git


def _pr(repo: Path, fmt: str) -> subprocess.CompletedProcess[str]:
    return run_cli("pr", "--repo", str(repo), "--base", "main~1", "--head", "main", "--format",
                   fmt, "--no-summary", cwd=PROJECT)


def _base_repo(tmp_path: Path) -> Path:
    """A git repository of our small recipes tree, one commit on ``main``."""
    repo = write_tree(tmp_path / "recipes")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "tests@example.invalid")
    git(repo, "config", "user.name", "recipe-check tests")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


@pytest.fixture()
def fixing_repo(tmp_path: Path) -> Path:
    """A git repository of our small recipes tree with two commits: the second quotes the
    integer argument of Broken-1B (fixing two errors) and drops its variant's precision
    (a new error), with a line added above so every remaining finding moves."""
    repo = _base_repo(tmp_path)
    recipe = repo / "models/acme/Broken-1B.yaml"
    text = recipe.read_text("utf-8")
    assert "    - 4096\n" in text and "    precision: bf16\n" in text
    recipe.write_text("# moved\n" + text.replace("    - 4096\n", '    - "4096"\n')
                      .replace("    precision: bf16\n", "    precision: 7\n"), "utf-8")
    git(repo, "commit", "-qam", "quote 4096, break precision")
    return repo


def test_text_names_each_fixed_finding_like_json(fixing_repo: Path) -> None:
    data = json.loads(_pr(fixing_repo, "json").stdout)
    (doc,) = data["documents"]
    fixed = doc["fixed"]
    assert {f["rule"] for f in fixed} == {"REF014", "SCHEMA001"}
    assert data["summary"]["new"] >= 1
    done = _pr(fixing_repo, "text")
    assert done.returncode in (0, 1), done.stderr
    out = done.stdout
    assert f"fixed since the merge base ({len(fixed)}; lines as at the base):\n" in out
    for f in fixed:  # at their line in the base's file (8:7, not moved by the new line)
        assert (f"{doc['path']}:{f['line']}:{f['column']}: fixed {f['rule']} "
                f"(was {f['severity']}) {f['message']}\n") in out
    assert "models/acme/Broken-1B.yaml:8:7: fixed REF014 (was error) model.base_args " \
        "holds the int 4096" in out
    # the new finding is listed with the findings, not in the fixed section
    section = out.split("fixed since the merge base", 1)[1]
    new = [f for f in doc["findings"] if f["baseline"] == "new"]
    assert new and all(f"{f['rule']} {f['message']}" not in section for f in new)
    assert all(f"{f['rule']} {f['message']}" in out for f in new)
    assert f"against the merge base: {data['summary']['new']} new, " in out
    assert f", {len(fixed)} fixed\n" in out


def test_a_file_whose_findings_are_all_fixed_is_listed() -> None:
    gone = Finding("FLAG001", Severity.WARNING, "models/a/B.yaml", "/model/base_args/0", 5, 7,
                   "`--max-model-length` is not an option of vLLM 0.20.0",
                   baseline="absent")
    result = RunResult([DocumentResult("models/a/B.yaml", Provenance("models/a/B.yaml", "", ""),
                                       [], fixed=[gone])])
    stream = io.StringIO()
    TextReporter(colour=False).write(result, stream)
    lines = stream.getvalue().splitlines()
    assert lines[:3] == [
        "models/a/B.yaml",
        "fixed since the merge base (1; lines as at the base):",
        "models/a/B.yaml:5:7: fixed FLAG001 (was warning) `--max-model-length` is not an "
        "option of vLLM 0.20.0"]


@pytest.fixture()
def unchanged_errors_repo(tmp_path: Path) -> Path:
    """Our small recipes tree, whose Broken-1B has errors, then a commit that only adds a
    comment to it: every error of the head is at the merge base already."""
    repo = _base_repo(tmp_path)
    recipe = repo / "models/acme/Broken-1B.yaml"
    recipe.write_text(recipe.read_text("utf-8") + "# a comment\n", "utf-8")
    git(repo, "commit", "-qam", "comment only")
    return repo


@pytest.mark.parametrize("fmt, prefix", [("text", ""), ("github", "recipe-check: ")])
def test_summary_line_says_existing_errors_pass_under_fail_on_new(
        unchanged_errors_repo: Path, fmt: str, prefix: str) -> None:
    data = json.loads(_pr(unchanged_errors_repo, "json").stdout)
    errors = sum(f["severity"] == "error" for d in data["documents"] for f in d["findings"])
    assert errors >= 1 and data["summary"]["new"] == 0
    done = _pr(unchanged_errors_repo, fmt)
    assert done.returncode == 0, done.stderr
    assert (f"{prefix}1 file(s) checked: {errors} error(s) (0 new), ") in done.stdout
    assert done.stdout.count(f": passing (--fail-on new: the {errors} error(s) were at the "
                             "merge base already)\n") == 1


def test_summary_line_says_why_fail_on_all_fails(unchanged_errors_repo: Path) -> None:
    done = run_cli("pr", "--repo", str(unchanged_errors_repo), "--base", "main~1", "--head",
                   "main", "--format", "text", "--no-summary", "--fail-on", "all", cwd=PROJECT)
    assert done.returncode == 1, done.stderr
    assert " error(s) (0 new), " in done.stdout
    assert ": failing (--fail-on all)\n" in done.stdout
