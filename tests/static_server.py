"""A folder served over HTTP on 127.0.0.1 (a real server on a free port, in a thread)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve_folder(folder: Path) -> Iterator[str]:
    """``folder`` served over HTTP on 127.0.0.1; yields its base URL
    (``http://127.0.0.1:PORT/``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(folder)))
    # serve_forever checks for shutdown() every poll interval: 0.05 s, not the default
    # 0.5 s, so a test's teardown does not wait half a second for the thread.
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
