"""Globs match in time linear in the path (issue 30, item 4), and a ``pr --paths`` pattern
that can only be a mistake is refused rather than matching nothing."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from validator.cli import main
from validator.globs import FNMATCH, PATH, _Step, compile_glob

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLES = PROJECT / "examples" / "recipes"
RECIPE = "models/example-org/Example-Chat-8B.yaml"
STARS = "*" * 28 + "zz"


def _steps_taken(monkeypatch: pytest.MonkeyPatch, pattern: str, dialect: str,
                 path: str) -> int:
    """How many times matching ``path`` asks a step whether it reads a character."""
    calls = [0]
    takes = _Step.takes

    def counted(self: _Step, ch: str) -> bool:
        calls[0] += 1
        return takes(self, ch)

    monkeypatch.setattr(_Step, "takes", counted)
    assert not compile_glob(pattern, dialect).match(path)
    monkeypatch.setattr(_Step, "takes", takes)
    return calls[0]


@pytest.mark.parametrize("dialect", [PATH, FNMATCH])
@pytest.mark.parametrize("pattern", [STARS, "**/" * 12 + "x", "*a" * 20 + "zz"])
def test_matching_work_grows_linearly_with_the_path(monkeypatch: pytest.MonkeyPatch,
                                                    pattern: str, dialect: str) -> None:
    short = _steps_taken(monkeypatch, pattern, dialect, "models/" + "a/" * 20 + "a" * 200)
    long = _steps_taken(monkeypatch, pattern, dialect, "models/" + "a/" * 40 + "a" * 400)
    assert long <= 2.2 * short  # a backtracking regex: exponential in the stars
    assert short <= 10 * len(pattern) * 250


def test_a_starry_per_file_ignore_runs_a_check_at_once(tmp_path: Path) -> None:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    (root / ".recipe-check.toml").write_text(f'[per-file-ignores]\n"{STARS}" = ["REF"]\n')
    with (root / RECIPE).open("a", encoding="utf-8") as recipe:
        recipe.write("unexpected_top_level_key: 1\n")  # a finding, so the globs are asked
    run = subprocess.run([sys.executable, "-m", "validator", "check", "--offline", "--no-cache",
                          RECIPE], cwd=root, capture_output=True, text=True, timeout=60,
                         env={"PYTHONPATH": str(PROJECT), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr  # was: no answer in 60 s (regex backtracking)
    assert "1 file(s) checked: 0 error(s), 1 warning(s)" in run.stdout


@pytest.mark.parametrize(("pattern", "path", "expected"), [
    ("models/*/GLM-*.yaml", "models/zai-org/GLM-5.yaml", True),
    ("models/*.yaml", "models/zai-org/GLM-5.yaml", True),   # fnmatch: '*' crosses '/'
    ("models/[!a]*", "models/zai-org/x.yaml", True),
    ("models/[^a]*", "models/^x.yaml", True),               # fnmatch: '^' is a character
    ("models/[^a]*", "models/zai-org/x.yaml", False),
])
def test_pr_paths_keep_fnmatch_meaning(pattern: str, path: str, expected: bool) -> None:
    assert compile_glob(pattern, FNMATCH).match(path) is expected


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture()
def changed_repo(tmp_path: Path) -> tuple[Path, str, str]:
    """A git repository of the example recipes and a commit changing one recipe."""
    repo = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, repo)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "add", "-A")
    _git(repo, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm", "a")
    base = _git(repo, "rev-parse", "HEAD")
    recipe = repo / RECIPE
    recipe.write_text(recipe.read_text("utf-8") + "\n# a comment\n", "utf-8")
    _git(repo, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qam", "b")
    return repo, base, _git(repo, "rev-parse", "HEAD")


@pytest.mark.parametrize(("pattern", "message"), [
    ("[", "--paths '[': the '[' at column 1 opens a character class that is never closed"),
    ("models/[abc", "--paths 'models/[abc': the '[' at column 8"),
    ("models/[z-a]*", "--paths 'models/[z-a]*' is not a glob this tool can match "
                      "(bad character range z-a)"),
])
def test_a_pr_paths_pattern_that_cannot_match_is_a_usage_error(
        changed_repo: tuple[Path, str, str], capsys: pytest.CaptureFixture[str],
        pattern: str, message: str) -> None:
    repo, base, head = changed_repo
    code = main(["pr", "--offline", "--repo", str(repo), "--base", base,
                 "--head", head, "--paths", pattern])
    err = capsys.readouterr().err
    assert code == 2 and message in err  # was: exit 0, no recipe checked, no word said


def test_a_pr_paths_glob_still_selects_the_changed_recipe(
        changed_repo: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, base, head = changed_repo
    main(["pr", "--offline", "--repo", str(repo), "--base", base, "--head", head,
          "--paths", "models/*/Example-[C]hat-*.yaml", "--format", "json"])
    assert RECIPE in capsys.readouterr().out
