"""A minimal progress bar on standard error, drawn only when it is a terminal."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``label [#####.....] done/total`` redrawn in place on ``stream``.

    Silent (no output at all) unless ``stream`` is a terminal, so redirected runs and CI
    logs stay clean. Redraws at most every 0.1 s.

    Args:
        label: what is being counted.
        total: number of steps.
        stream: where to draw (standard error by default).
    """

    def __init__(self, label: str, total: int, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
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
