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


@pytest.mark.parametrize(("value", "says"), [
    ("0", "must be a finite number of seconds above 0, got '0'"),
    ("-1", "must be a finite number of seconds above 0, got '-1'"),
    ("nan", "must be a finite number of seconds above 0, got 'nan'"),
    ("inf", "must be a finite number of seconds above 0, got 'inf'"),
    ("1e300", "must be at most 1800 s (all HTTP requests of one command stop there)"),
    ("soon", "'soon' is not a number of seconds"),
])
@pytest.mark.parametrize("command", ["check", "render", "fetch", "diff", "record"])
def test_an_http_timeout_urllib3_refuses_is_a_usage_error(
        command: str, value: str, says: str, capsys: pytest.CaptureFixture[str]) -> None:
    # was accepted, then a ValueError: Invalid timeout traceback at the first request
    from validator.cli import main

    argv = [command, "--http-timeout", value, "--backend", "http",
            "vllm-project/recipes@main:taxonomy.yaml"]
    if command == "diff":
        argv.append("vllm-project/recipes@main:taxonomy.yaml")
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --http-timeout: {says}" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("value", ["0.5", "30", "1800"])
def test_a_finite_positive_http_timeout_is_the_read_timeout(value: str) -> None:
    opts = fetch_options_from(_parse("--http-timeout", value))
    assert opts.timeout == (min(10.0, float(value)), float(value))
