"""The HTTP backend's answers a server controls, end to end through the CLI against a real
server on 127.0.0.1: rate-limit headers out of range or not of their form (RFC 9110
``Retry-After``: delay-seconds or an HTTP-date) and JSON nested past the decoder's depth
end in one clear line and exit 2, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from validator.cli import main

from ._util import GLM, REPO, UPSTREAM_PINS
from .github_server import GitHubServer

pytestmark = pytest.mark.corpus


@pytest.fixture()
def server(corpus_repo: Path) -> Iterator[GitHubServer]:
    with GitHubServer(corpus_repo) as srv:
        yield srv


def _run(server: GitHubServer, commit: str, tmp_path: Path,
         capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main([f"{REPO}@{commit}:{GLM}", "--backend", "http", "--raw-base-url",
                 server.raw_base, "--api-base-url", server.api_base, "--store-dir",
                 str(tmp_path / "snap")])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(("kind", "reset", "after", "says"), [
    # X-RateLimit-Reset past the calendar: was an OverflowError traceback
    ("rate403", "99999999999999999999", "", "(403) for an unspecified time;"),
    ("rate403", "99999999999", "", "(403) until 5138-11-16T09:46:39Z (X-RateLimit-Reset);"),
    ("rate403", "²", "", "(403) for an unspecified time;"),  # a digit, not ASCII
    ("rate403", "1900000000", "", "(403) until 2030-03-17T17:46:40Z (X-RateLimit-Reset);"),
    # Retry-After: delay-seconds or an HTTP-date; anything else is left out
    ("rate429", "", "-5", "(429) for an unspecified time;"),
    ("rate429", "", "Wed, 99 Foo 2026", "(429) for an unspecified time;"),
    ("rate429", "", "Sun, 06 Nov 99999 08:49:37 GMT", "(429) for an unspecified time;"),
    ("rate429", "", "120", "(429) for 120 s (Retry-After);"),
    ("rate429", "", "Wed, 21 Oct 2026 07:28:00 GMT",
     "(429) until 2026-10-21T07:28:00Z (Retry-After);"),
    ("rate403", "-", "Wed, 21 Oct 2026 09:28:00 +0200",
     "(403) until 2026-10-21T07:28:00Z (Retry-After);"),
])
def test_a_rate_limit_is_one_line_whatever_its_headers(
        server: GitHubServer, commit_map: dict[str, str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str], kind: str, reset: str, after: str,
        says: str) -> None:
    server.fail("/api", kind, times=99, old=reset.encode(), new=after.encode())
    code, err = _run(server, commit_map[UPSTREAM_PINS[0]], tmp_path, capsys)
    assert code == 2, err
    assert "Traceback" not in err
    assert "rate limited by 127.0.0.1:" in err and says in err, err
    assert " s (Retry-After)" not in err or after.isdigit()
    assert after not in err or after.isdigit() or not after


def test_json_nested_past_the_decoder_is_a_malformed_answer(
        server: GitHubServer, commit_map: dict[str, str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    # was a RecursionError traceback
    server.fail("/api", "body", times=99, new=b"[" * 100_000 + b"]" * 100_000)
    code, err = _run(server, commit_map[UPSTREAM_PINS[0]], tmp_path, capsys)
    assert code == 2, err
    assert "Traceback" not in err and "RecursionError" not in err
    assert "malformed answer from http://127.0.0.1:" in err, err
    assert "JSON nested too deep to decode" in err
    assert len(err.strip().splitlines()) == 1, err
