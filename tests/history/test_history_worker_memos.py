"""A history worker meets a blob's argument lists again in each revision context of the
blob, a pass over all of them later: its CLI registries keep parses and verdicts for
:data:`~validator.history.worker.KEEP_MORE` times the sizes a check run keeps."""

from __future__ import annotations

import subprocess
from pathlib import Path

from validator.context import Settings
from validator.history.worker import KEEP_MORE, Worker


def test_a_worker_keeps_more_parsed_lists_than_a_check_run(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    worker = Worker(tmp_path, {}, Settings(), None)
    try:
        made: list[int] = []

        def parse(k: int) -> int:
            made.append(k)
            return k

        def ask(k: int) -> int:
            return worker.session.cli.bounded("test:space", k, lambda: parse(k), limit=2)

        for k in range(2 * KEEP_MORE):
            ask(k)
        made.clear()
        for k in range(2 * KEEP_MORE):
            ask(k)
        assert made == []  # a check run's limit of 2 would have parsed all again
    finally:
        worker.objects.close()
