"""Long runs show progress on stderr -- a bar on a terminal -- and never in their report:
``check``, ``check --diff``, ``publish`` (records, then the catalogue) and ``history``,
each run as a real process whose stderr is a pseudo-terminal and whose stdout is a pipe."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

from tests.catalogue.test_record_page_picker import MINI
from tests.evidence.conftest import MINI_STRATEGY, MINI_TAXONOMY, make_repo
from validator.source.snapshots import LOCK_NAME, SnapshotStore, snapshot_spec

PATHS = ("models/acme/Mini.yaml", "models/acme/Other.yaml")


def _on_terminal(args: list[str], cwd: Path) -> tuple[int, str, str]:
    """``recipe-check ARGS`` with stderr on a pseudo-terminal: exit code, stdout,
    stderr."""
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    env.pop("GITHUB_ACTIONS", None)
    env.pop("RECIPE_CHECK_PROGRESS", None)  # the test run's "off": a terminal draws a bar
    proc = subprocess.Popen([sys.executable, "-m", "validator", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # the terminal closed with the process
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    stdout, _ = proc.communicate(timeout=600)
    reader.join(timeout=30)
    os.close(master)
    return proc.returncode, stdout.decode("utf-8"), b"".join(chunks).decode("utf-8")


def _repo(tmp_path: Path) -> Path:
    files = {path: MINI for path in PATHS}
    files.update({"taxonomy.yaml": MINI_TAXONOMY,
                  "strategies/single_node_tp.yaml": MINI_STRATEGY})
    make_repo(tmp_path / "repo", files)
    return tmp_path / "repo"


def _bar(label: str, total: int, stderr: str) -> bool:
    """Whether ``stderr`` drew the bar of ``label`` to ``total`` and erased it."""
    return f"\r{label} [" in stderr and f"] {total}/{total} " in stderr and "\r\x1b[K" in stderr


def test_check_and_its_diff_draw_a_bar_on_stderr_not_in_the_report(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    code, out, err = _on_terminal(["check", "--offline", "--no-cache", "models/"], repo)
    assert code == 1 and _bar("checking", 2, err)
    assert "[#" not in out and "\r" not in out
    code, out, err = _on_terminal(["check", "--offline", "--no-cache", "--diff", "models/"],
                                  repo)
    assert _bar("fixing", 2, err), err
    assert out.startswith("--- ") and "[#" not in out and "\r" not in out  # the patch only


def test_publish_draws_a_bar_for_the_records_and_one_for_the_catalogue(
        tmp_path: Path) -> None:
    tree = make_repo(tmp_path / "repo", {**{p: MINI for p in PATHS},
                                         "taxonomy.yaml": MINI_TAXONOMY,
                                         "strategies/single_node_tp.yaml": MINI_STRATEGY})
    snapshot_spec(SnapshotStore(tmp_path / "store"), tree, tree.repository, list(PATHS))
    code, out, err = _on_terminal(
        ["publish", "--lock", str(tmp_path / "store" / LOCK_NAME), "--out-dir",
         str(tmp_path / "out"), "--checked-on", "2026-12-01", "--site", str(tmp_path / "site")],
        tmp_path)
    assert code == 0, err
    assert _bar("publishing", 2, err) and _bar("building the catalogue", 2, err)
    assert out.startswith("published 2 record(s)") and "\r" not in out


def test_history_draws_its_bars_on_stderr_not_in_the_report(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    code, out, err = _on_terminal(["history", "--rev", "HEAD", "--no-cache", "--jobs", "1",
                                   "--format", "json"], repo)
    assert code in (0, 1), err
    assert _bar("history: checking", 2, err), err
    assert out.lstrip().startswith("{") and "\r" not in out
