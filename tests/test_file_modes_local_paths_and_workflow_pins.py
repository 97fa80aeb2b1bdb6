"""Small things a user hit (issue 15, point 5), each with the behaviour it must have:
file modes, the snapshot store location, no local paths in reports, sub-command help, the
example workflow's pin and the project's own CI workflow."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.evidence.conftest import tokens
from validator.atomic import atomic_write
from validator.cli import main
from validator.paths import default_store_dir

PROJECT = Path(__file__).resolve().parents[1]
EXAMPLES = PROJECT / "examples" / "recipes"
BROKEN = EXAMPLES / "models" / "example-org" / "Example-MoE-120B.yaml"


@pytest.fixture()
def umask() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_written_files_respect_the_umask(tmp_path: Path, umask: None, mask: int,
                                         mode: int) -> None:
    os.umask(mask)
    target = tmp_path / "out" / "record.json"
    atomic_write(target, b"{}\n")
    assert target.stat().st_mode & 0o777 == mode
    atomic_write(target, b"{}\n")  # a replaced file too
    assert target.stat().st_mode & 0o777 == mode


def test_store_location_is_explicit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("RECIPE_CHECK_STORE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    # the same folder whether recipe-check runs from a checkout or a wheel
    assert default_store_dir() == tmp_path / "xdg" / "recipe-check" / "snapshots" / "recipes"
    monkeypatch.setenv("RECIPE_CHECK_STORE", str(tmp_path / "store"))
    assert default_store_dir() == tmp_path / "store"
    assert main(["snapshot", "path"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "store")
    # publish without --lock reads the store's lock file, from any working folder
    monkeypatch.chdir(tmp_path)
    assert main(["publish", "--out", str(tmp_path / "site")]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'store' / 'recipes.lock.json'}: no such lock file" in err


def test_snapshot_verify_has_its_own_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["snapshot", "verify", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: recipe-check snapshot verify")
    assert "re-hash every stored file" in out


def test_reports_carry_no_local_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sarif, report = tmp_path / "r.sarif", tmp_path / "r.json"
    assert main(["check", "--format", "text", "--sarif", str(sarif), "--json", str(report),
                 str(BROKEN)]) == 1
    capsys.readouterr()
    data = json.loads(report.read_text(encoding="utf-8"))
    log = json.loads(sarif.read_text(encoding="utf-8"))
    props = log["runs"][0].get("properties", {})
    home = str(Path.home())
    texts = [t for t in (*tokens(data["context"]), *tokens(props)) if isinstance(t, str)]
    assert texts
    for text in texts:
        assert not text.startswith("/") and str(PROJECT) not in text and home not in text, text
    assert data["context"]["release_list"]["origin"] == "vllm-releases.json"


def test_check_github_format_writes_the_job_summary(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["check", "--format", "github", str(BROKEN)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("::group::")
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n## recipe-check: ❌ 14 errors")
    assert "| ❌ error | [REF004]" in text
    # --no-summary, or another format, writes none
    assert main(["check", "--format", "github", "--no-summary", str(BROKEN)]) == 1
    assert main(["check", "--format", "text", str(BROKEN)]) == 1
    assert summary.read_text(encoding="utf-8") == text


def test_output_options_are_shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The same --format/--output/--json/--sarif/--markdown on check as on pr and history;
    paths relative to the working folder, folders created."""
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--format", "sarif", "--output", "a/b/out.sarif", "--json",
                 "c/out.json", "--markdown", "d/out.md", str(BROKEN)]) == 1
    assert capsys.readouterr().out == ""
    assert json.loads((tmp_path / "a/b/out.sarif").read_text())["version"] == "2.1.0"
    assert json.loads((tmp_path / "c/out.json").read_text())["summary"]["errors"] == 14
    assert (tmp_path / "d/out.md").read_text().startswith("## recipe-check")
    for command in ("check", "pr", "history"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        help_text = capsys.readouterr().out
        for option in ("--format", "--output", "--json", "--select", "--ignore", "--config"):
            assert option in help_text, (command, option)


def test_example_workflow_pins_the_action_by_commit() -> None:
    workflow = yaml.safe_load((PROJECT / "examples/workflows/recipe-check.yml").read_text())
    uses = [s["uses"] for job in workflow["jobs"].values() for s in job["steps"]
            if "uses" in s and s["uses"].startswith("recipe-check/")]
    assert uses
    for ref in uses:
        commit = ref.split("@", 1)[1]
        assert re.fullmatch(r"[0-9a-f]{40}", commit), ref
        # a commit of this project's history
        assert subprocess.run(["git", "cat-file", "-e", f"{commit}^{{commit}}"],
                              cwd=PROJECT, capture_output=True).returncode == 0, ref


def test_ci_workflow_does_not_require_the_unpublished_corpus() -> None:
    ci = yaml.safe_load((PROJECT / ".github/workflows/ci.yml").read_text())
    runs = [s.get("run", "") for job in ci["jobs"].values() for s in job["steps"]]
    assert not any("shared/corpus" in r for r in runs)
    assert "python -m pytest -rs" in runs
