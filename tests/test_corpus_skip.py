"""Corpus tests where ``../shared`` is absent (GitHub's runners) are skipped with a visible
reason; where it exists (this project's CI) they run, and a missing bundle fails them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]

TESTS = '''
from tests.conftest import EXTRA


def test_uses_the_corpus_fixture(corpus_repo):
    assert corpus_repo.is_dir()


def test_names_a_shared_path():
    assert EXTRA.is_dir()


def test_plain():
    assert 1 + 1 == 2
'''


def run_copy(tmp_path: Path, with_shared: bool, shared_elsewhere: Path | None = None
             ) -> subprocess.CompletedProcess[str]:
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    for helper in ("conftest.py", "shared_run.py", "schedule.py"):  # conftest imports them
        shutil.copy(PROJECT / "tests" / helper, project / "tests" / helper)
    (project / "tests" / "__init__.py").write_text("", encoding="utf-8")
    (project / "tests" / "test_sample.py").write_text(TESTS, encoding="utf-8")
    if with_shared:
        (tmp_path / "shared").mkdir()
    env = {"PATH": "/usr/bin:/bin", "CI": "true", "PYTHONPATH": str(project)}
    if shared_elsewhere is not None:
        env["RECIPE_CHECK_SHARED"] = str(shared_elsewhere)
    return subprocess.run([sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider",
                           "tests"], cwd=project, capture_output=True, text=True, timeout=120,
                          env=env)


def test_absent_shared_skips_with_the_reason(tmp_path: Path) -> None:
    done = run_copy(tmp_path, with_shared=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 2 skipped" in done.stdout
    assert "needs ../shared/corpus (the real recipes history), absent:" in done.stdout
    assert "recipe-check: 2 test(s) skipped:" in done.stdout


def test_present_shared_never_skips(tmp_path: Path) -> None:
    done = run_copy(tmp_path, with_shared=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "skipped" not in done.stdout
    assert "corpus bundle missing" in done.stdout


def test_shared_named_by_the_environment_is_used_instead_of_the_sibling(tmp_path: Path) -> None:
    elsewhere = tmp_path / "inputs"
    elsewhere.mkdir()
    done = run_copy(tmp_path, with_shared=False, shared_elsewhere=elsewhere)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "skipped" not in done.stdout
    assert f"corpus bundle missing: {elsewhere}" in done.stdout
