"""Shared fixtures: the real recipes history (``../shared/corpus``) cloned once per run."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
SHARED = PROJECT.parent / "shared"
CORPUS = SHARED / "corpus"
BUNDLE = CORPUS / "vllm-recipes.bundle"
COMMIT_MAP = CORPUS / "vllm-recipes.commit-map.tsv"
EXTRA = CORPUS / "extra"
SEEDS = SHARED / "seeds"


def _git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture(scope="session")
def corpus_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone of the corpus bundle at ``main`` with every ``refs/pull/*`` fetched.

    Tests must not modify it; copy it (``corpus_copy``) to change files.
    """
    if not BUNDLE.is_file():
        pytest.fail(f"corpus bundle missing: {BUNDLE} (CI puts ../shared beside the checkout)")
    dest = tmp_path_factory.mktemp("corpus") / "recipes"
    _git("clone", "-q", str(BUNDLE), str(dest))
    _git("fetch", "-q", str(BUNDLE), "refs/pull/*:refs/pull/*", cwd=dest)
    return dest


@pytest.fixture()
def corpus_copy(corpus_repo: Path, tmp_path: Path) -> Path:
    """A throw-away copy of the corpus working tree (no .git), safe to edit."""
    dest = tmp_path / "recipes"
    shutil.copytree(corpus_repo, dest, ignore=shutil.ignore_patterns(".git"))
    return dest


@pytest.fixture(scope="session")
def commit_map() -> dict[str, str]:
    """Upstream commit id -> replay commit id in the bundle."""
    out: dict[str, str] = {}
    for line in COMMIT_MAP.read_text().splitlines():
        parts = line.split("\t")
        if len(parts) >= 2 and len(parts[0]) == 40:
            out[parts[0]] = parts[1]
    return out
