"""Issue 30's smaller items: each a silent pass or a misleading answer before."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from validator.cli import main

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLES = PROJECT / "examples" / "recipes"
RECIPE = "models/example-org/Example-Chat-8B.yaml"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t",
                           *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "recipes")
    monkeypatch.chdir(root)
    for name in ("GITHUB_EVENT_PATH", "GITHUB_EVENT_NAME", "GITHUB_SHA", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    return root


@pytest.mark.parametrize("name", ["pull_request", ""])
def test_a_pull_request_event_without_its_pull_request_is_refused(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], name: str) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": None, "number": 3}))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    monkeypatch.setenv("GITHUB_EVENT_NAME", name)
    code = main(["pr", "--offline", "--repo", str(repo)])
    err = capsys.readouterr().err
    assert code == 2  # was: every recipe checked as if no base were given, no warning
    assert "pull_request is null, not an object with base and head commits" in err


@pytest.mark.parametrize("other", ["models/example-org/Bad.yaml", "models/example-org/Bad2.yaml"])
def test_diff_of_two_sides_that_do_not_load_is_an_input_failure(
        repo: Path, capsys: pytest.CaptureFixture[str], other: str) -> None:
    for name in ("Bad.yaml", "Bad2.yaml"):
        (repo / "models" / "example-org" / name).write_text("model: [unclosed\n")
    code = main(["diff", "models/example-org/Bad.yaml", other])
    out, err = capsys.readouterr()
    assert code == 2  # was: 1, "something changes for users"
    assert "neither side can be loaded; nothing was compared" in err
    assert out.count("Bad.yaml cannot be loaded") == 1


def test_diff_of_a_recipe_that_stops_loading_is_a_change(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "models" / "example-org" / "Bad.yaml").write_text("model: [unclosed\n")
    assert main(["diff", RECIPE, "models/example-org/Bad.yaml"]) == 1


def test_expect_sha256_checks_a_local_file(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    digest = hashlib.sha256((repo / RECIPE).read_bytes()).hexdigest()
    assert main([RECIPE, "--expect-sha256", digest.upper()]) == 0
    capsys.readouterr()
    assert main([RECIPE, "--expect-sha256", "a" * 64, "--format", "json"]) == 1  # was: 0
    findings = json.loads(capsys.readouterr().out)["documents"][0]["findings"]
    assert [f["rule"] for f in findings] == ["PROV002"]
    assert f"SHA-256 is {digest} but --expect-sha256 expects {'a' * 64}" in \
        findings[0]["message"]


@pytest.mark.parametrize("value", ["xyz", "a" * 63, "g" * 64, "a" * 65])
def test_expect_sha256_that_is_no_digest_is_a_usage_error(
        repo: Path, capsys: pytest.CaptureFixture[str], value: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main([RECIPE, "--expect-sha256", value])
    assert exited.value.code == 2  # was: accepted (and, for a local file, ignored)
    assert "is not a SHA-256 (64 hex digits)" in capsys.readouterr().err


def test_expect_sha256_of_a_folder_is_a_usage_error(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models/", "--expect-sha256", "a" * 64]) == 2
    assert "--expect-sha256 needs exactly one document" in capsys.readouterr().err


def test_the_first_of_several_documents_is_checked_when_yaml005_is_demoted(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = repo / RECIPE
    text = recipe.read_text("utf-8").replace('    - "32768"\n', '    - "32768"\n    - "--bogus"\n')
    recipe.write_text(text + "---\nsecond: document\n", "utf-8")
    (repo / ".recipe-check.toml").write_text('[severity]\nYAML005 = "warning"\n')
    assert main([RECIPE, "--format", "json"]) == 1  # was: 0, the first document unread
    rules = [f["rule"] for f in json.loads(capsys.readouterr().out)["documents"][0]["findings"]]
    assert "YAML005" in rules and "FLAG001" in rules
