"""Progress of a long run on standard error: a bar redrawn in place on a terminal, a
sparse line now and then in a GitHub Actions log (``GITHUB_ACTIONS=true``), nothing
otherwise (a redirected run's stderr stays as it was). Never on standard output, where
the report goes."""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

LINE_AFTER = 5.0
"""Seconds a run goes before a log gets its first progress line."""
LINE_EVERY = 15.0
"""Seconds between two progress lines in a log."""


class Progress:
    """``label [#####.....] done/total`` redrawn in place on ``stream``.

    On a terminal it redraws at most every 0.1 s. In a GitHub Actions log it writes a
    line ``label: done/total (N s)`` once the run has taken :data:`LINE_AFTER` seconds,
    then at most every :data:`LINE_EVERY` seconds, and one at the end: a short run logs
    nothing. Anywhere else it is silent.

    Args:
        label: what is being counted.
        total: number of steps.
        stream: where to draw (standard error by default).
    """

    def __init__(self, label: str, total: int, stream: TextIO | None = None) -> None:
        # a run recorded for the cache (validator.run_cache.Recorder) keeps no drawings
        self.stream = stream if stream is not None else \
            getattr(sys.stderr, "unrecorded", sys.stderr)
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.lines = not self.enabled and os.environ.get("GITHUB_ACTIONS") == "true"
        self.label = label
        self.total = max(total, 0)
        self.done = 0
        self.start = time.monotonic()
        self._last = 0.0

    def advance(self, steps: int = 1) -> None:
        """Count ``steps`` more and redraw when due."""
        self.done += steps
        now = time.monotonic()
        if self.enabled and (now - self._last >= 0.1 or self.done >= self.total):
            self._last = now
            self._draw(now)
        elif self.lines and now - self.start >= LINE_AFTER and (
                not self._last or now - self._last >= LINE_EVERY or self.done >= self.total):
            self._last = now
            self.stream.write(f"{self.label}: {self.done}/{self.total} "
                              f"({now - self.start:.0f} s)\n")
            self.stream.flush()

    def _draw(self, now: float) -> None:
        width = 30
        filled = width * self.done // self.total if self.total else width
        bar = "#" * filled + "." * (width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total} "
                          f"{now - self.start:5.1f}s")
        self.stream.flush()

    def close(self) -> None:
        """Erase the bar (only when one was drawn; closing twice is harmless)."""
        if self.enabled and self._last:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._last = 0.0
