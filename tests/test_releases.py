"""The vLLM release list: PyPI JSON parsing, online fetch through a real HTTP server on
127.0.0.1 (retries included), the vendored digest-pinned snapshot, ``data refresh``, and
the release-list report of ``check``."""

from __future__ import annotations

import dataclasses
import json
import shutil
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from validator.cli import main
from validator.releases import (
    DIGEST_NAME,
    SNAPSHOT_DIR,
    SNAPSHOT_NAME,
    ReleaseListError,
    clear_cache,
    fetch_online,
    load_release_list,
    load_vendored,
    releases_from_pypi,
    write_snapshot,
)

PYPI_LIKE: dict[str, Any] = {
    "info": {"name": "vllm", "version": "0.3.0"},
    "releases": {
        "0.1.0": [
            {"filename": "vllm-0.1.0.tar.gz", "upload_time_iso_8601": "2024-01-02T10:00:00.5Z",
             "yanked": False},
            {"filename": "vllm-0.1.0-cp311.whl", "upload_time_iso_8601": "2024-01-01T09:30:00Z",
             "yanked": False},
        ],
        "0.2.0": [{"filename": "vllm-0.2.0.tar.gz",
                   "upload_time_iso_8601": "2024-02-01T00:00:00.123456Z", "yanked": True}],
        "0.2.5": [],
        "0.3.0": [{"filename": "vllm-0.3.0.tar.gz",
                   "upload_time_iso_8601": "2024-03-01T12:00:00Z", "yanked": False}],
    },
}


class _Handler(BaseHTTPRequestHandler):
    failures_left = 0
    status = 200
    calls = 0

    def do_GET(self) -> None:
        type(self).calls += 1
        if type(self).failures_left > 0:
            type(self).failures_left -= 1
            self.send_response(503)
            self.end_headers()
            return
        body = json.dumps(PYPI_LIKE).encode()
        self.send_response(type(self).status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def index_url() -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 answering like PyPI's JSON API."""
    _Handler.failures_left, _Handler.status, _Handler.calls = 0, 200, 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    # polls for shutdown() every 0.05 s (default 0.5 s: each teardown would wait for it)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/pypi/vllm/json"
    server.shutdown()
    server.server_close()


def test_pypi_answer_parsing() -> None:
    releases = releases_from_pypi(PYPI_LIKE)
    assert [str(r.version) for r in releases] == ["0.1.0", "0.2.0", "0.3.0"]  # 0.2.5: no files
    first = releases[0]
    assert first.uploaded == datetime(2024, 1, 1, 9, 30, tzinfo=UTC)  # earliest file wins
    assert first.date == "2024-01-01"
    assert releases[1].yanked and not releases[2].yanked
    with pytest.raises(ReleaseListError):
        releases_from_pypi({"info": {}})


def test_fetch_online_from_a_local_index(index_url: str) -> None:
    rl = fetch_online(index_url, timeout=5)
    assert rl.source == "online" and rl.origin == index_url
    assert rl.latest is not None and rl.latest.version == Version("0.3.0")
    assert rl.is_released(Version("0.1")) and not rl.is_released(Version("0.2.5"))
    first = rl.first_at_least(Version("0.2.1"))
    assert first is not None and first.version == Version("0.3.0")
    assert len(rl.sha256) == 64


def test_fetch_online_retries_server_errors(index_url: str) -> None:
    _Handler.failures_left = 2
    rl = fetch_online(index_url, timeout=5, retries=3)
    assert _Handler.calls == 3 and len(rl.releases) == 3


def test_fetch_online_failure_is_a_clear_error(index_url: str) -> None:
    _Handler.status = 404
    with pytest.raises(ReleaseListError, match="cannot fetch the vLLM release list"):
        fetch_online(index_url, timeout=5, retries=0)
    with pytest.raises(ReleaseListError):
        fetch_online("http://127.0.0.1:9/nothing", timeout=2, retries=0)


def test_vendored_snapshot_is_verified_and_current() -> None:
    """The committed snapshot matches its pinned digest and holds what PyPI reported on
    2026-11-29 (101 releases, newest 0.33.0 of 2026-11-02)."""
    rl = load_vendored()
    assert rl.source == "vendored"
    assert rl.sha256 == (SNAPSHOT_DIR / DIGEST_NAME).read_text().split()[0]
    assert len(rl.releases) == 101
    assert rl.latest is not None and str(rl.latest.version) == "0.33.0"
    assert rl.latest.date == "2026-11-02"
    release = rl.get(Version("0.28.0"))
    assert release is not None and release.date == "2026-08-26"
    assert rl.is_released(Version("0.10.1.1"))


def test_tampered_snapshot_is_refused(tmp_path: Path) -> None:
    shutil.copy(SNAPSHOT_DIR / SNAPSHOT_NAME, tmp_path / SNAPSHOT_NAME)
    shutil.copy(SNAPSHOT_DIR / DIGEST_NAME, tmp_path / DIGEST_NAME)
    assert load_vendored(tmp_path).sha256 == load_vendored().sha256
    data = (tmp_path / SNAPSHOT_NAME).read_text().replace('"0.33.0"', '"0.34.0"')
    (tmp_path / SNAPSHOT_NAME).write_text(data)
    with pytest.raises(ReleaseListError, match="does not match the pinned"):
        load_vendored(tmp_path)
    (tmp_path / DIGEST_NAME).unlink()
    with pytest.raises(ReleaseListError, match="pinned digest"):
        load_vendored(tmp_path)


def test_snapshot_round_trip(index_url: str, tmp_path: Path) -> None:
    fresh = fetch_online(index_url, timeout=5)
    digest = write_snapshot(fresh, tmp_path)
    again = load_vendored(tmp_path)
    assert again.sha256 == digest == fresh.sha256
    assert again.releases == fresh.releases
    assert (tmp_path / DIGEST_NAME).read_text() == f"{digest}  {SNAPSHOT_NAME}\n"


def test_load_release_list_defaults_to_vendored(index_url: str) -> None:
    clear_cache()
    assert load_release_list().source == "vendored"
    online = load_release_list(online=True, url=index_url)
    assert online.source == "online" and len(online.releases) == 3
    assert load_release_list(online=True, url=index_url) is online  # cached
    clear_cache()


def test_data_refresh_and_show(index_url: str, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "refresh", "--url", index_url, "--vendored-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "vllm releases: 3" in out and "latest 0.3.0 (2024-03-01)" in out
    assert main(["data", "show", "--vendored-dir", str(tmp_path)]) == 0
    assert "verified against the pinned digest" in capsys.readouterr().out
    # a failed fetch: 404, answered at once (a 5xx is retried with back-off sleeps, which
    # test_fetch_online_retries_server_errors pins; both fail fetch_online alike)
    _Handler.status = 404
    before = (tmp_path / SNAPSHOT_NAME).read_bytes()
    assert main(["data", "refresh", "--url", index_url, "--vendored-dir", str(tmp_path),
                 "--timeout", "2"]) == 2
    assert (tmp_path / SNAPSHOT_NAME).read_bytes() == before  # untouched on failure
    assert "cannot fetch" in capsys.readouterr().err


def test_check_reports_the_release_list(corpus_repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    code = main(["check", str(corpus_repo / "models/zai-org/GLM-5.1.yaml"), "--format", "json",
                 "--output", str(out)])
    assert code in (0, 1)
    context = json.loads(out.read_text())["context"]["release_list"]
    assert context["source"] == "vendored"
    assert context["sha256"] == (SNAPSHOT_DIR / DIGEST_NAME).read_text().split()[0]
    assert main(["check", str(corpus_repo / "models/zai-org/GLM-5.1.yaml"), "--offline",
                 "--online-releases"]) == 2


def test_data_refresh_keeps_the_digest_when_the_releases_are_unchanged(
        index_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "refresh", "--url", index_url, "--vendored-dir", str(tmp_path)]) == 0
    # the same releases, fetched at another time (as a later run would)
    vendored = load_vendored(tmp_path)
    write_snapshot(dataclasses.replace(vendored, fetched="2020-01-01T00:00:00Z"), tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    capsys.readouterr()
    assert main(["data", "refresh", "--url", index_url, "--vendored-dir", str(tmp_path)]) == 0
    assert "(unchanged)" in capsys.readouterr().out
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    # a release more is a change: written, digest re-pinned
    PYPI_LIKE["releases"]["0.4.0"] = [{"filename": "vllm-0.4.0.tar.gz",
                                      "upload_time_iso_8601": "2024-04-01T00:00:00Z",
                                      "yanked": False}]
    try:
        assert main(["data", "refresh", "--url", index_url, "--vendored-dir",
                     str(tmp_path)]) == 0
        assert "(was " in capsys.readouterr().out
        assert (tmp_path / "vllm-releases.sha256").read_bytes() != before["vllm-releases.sha256"]
    finally:
        del PYPI_LIKE["releases"]["0.4.0"]
