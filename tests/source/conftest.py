"""Fixtures for the provenance tests: a shared git mirror cache of the corpus clone, and
the upstream commits pinned through the bundle's commit map."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.source.options import FetchOptions


@pytest.fixture(scope="session")
def git_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One git cache folder for the whole session (the corpus is mirrored once)."""
    return tmp_path_factory.mktemp("gitcache")


@pytest.fixture(scope="session")
def git_options(corpus_repo: Path, git_cache: Path, tmp_path_factory: pytest.TempPathFactory
                ) -> FetchOptions:
    """Fetch options cloning ``OWNER/REPO`` from the local corpus clone."""
    return FetchOptions(git_url=str(corpus_repo), cache_dir=git_cache,
                        store_dir=tmp_path_factory.mktemp("unused-snapshots"))
