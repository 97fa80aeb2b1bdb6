"""Fixtures for the schema tests: a clone of the recipes corpus at ``main``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import BUNDLE


@pytest.fixture(scope="session")
def schemas_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Working tree of the corpus bundle's ``main``, cloned once per test session.

    Read-only for tests.
    """
    if not BUNDLE.is_file():
        pytest.fail(f"corpus bundle missing: {BUNDLE} (CI puts ../shared beside the checkout)")
    dest = tmp_path_factory.mktemp("schemas-corpus") / "recipes"
    subprocess.run(["git", "clone", "-q", "--branch", "main", str(BUNDLE), str(dest)],
                   check=True, capture_output=True)
    return dest
