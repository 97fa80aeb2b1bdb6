"""FetchOptions from the command line and the environment."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from validator.source.options import (
    DEFAULT_STORE_DIR,
    FetchOptions,
    add_fetch_arguments,
    default_cache_dir,
    fetch_options_from,
)


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_fetch_arguments(parser)
    return parser.parse_args(list(argv))


def test_defaults_and_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("RECIPE_CHECK_GIT_URL", "file:///srv/mirror.git")
    monkeypatch.setenv("GITHUB_TOKEN", "tok-123")
    opts = fetch_options_from(_parse())
    assert opts.backend == "git" and not opts.offline
    assert opts.cache_dir == tmp_path / "recipe-check" == default_cache_dir()
    assert opts.store_dir == DEFAULT_STORE_DIR
    assert opts.clone_url("vllm-project/recipes") == "file:///srv/mirror.git"
    assert opts.token == "tok-123" and "tok-123" not in repr(opts)


def test_flags_win_over_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RECIPE_CHECK_GIT_URL", "file:///env.git")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    opts = fetch_options_from(_parse(
        "--backend", "http", "--git-url", "https://mirror.example/{owner}/{repo}.git",
        "--raw-base-url", "http://h/raw/", "--api-base-url", "http://h/api",
        "--store-dir", str(tmp_path), "--offline", "--expect-sha256", "AB" * 32,
        "--http-timeout", "3"))
    assert opts.clone_url("o/r") == "https://mirror.example/o/r.git"
    assert (opts.raw_base_url, opts.api_base_url) == ("http://h/raw", "http://h/api")
    assert opts.offline and opts.store_dir == tmp_path and opts.token is None
    assert opts.expect_sha256 == "ab" * 32 and opts.timeout == (3.0, 3.0)


def test_clone_url_default_and_local_folder(tmp_path: Path) -> None:
    assert FetchOptions().clone_url("o/r") == "https://github.com/o/r.git"
    assert FetchOptions(git_url=str(tmp_path)).clone_url("o/r") == str(tmp_path.resolve())
