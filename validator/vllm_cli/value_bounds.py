"""Numeric bounds vLLM's own config classes state for some ``vllm serve`` options, per
release (``--gpu-memory-utilization`` at most 1, ``--max-num-batched-tokens`` at least 1),
vendored in ``validator/data/vllm_bounds.json`` with where each release states it. A
release the file lists for no bound of an option has none judged."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache

from validator.paths import PACKAGE_DIR

DATA_FILE = PACKAGE_DIR / "data" / "vllm_bounds.json"


@dataclass(frozen=True)
class ValueBound:
    """The numbers one option takes in one release: at least ``least`` (or above
    ``above``), at most ``most``; ``source`` says where the release states it;
    ``refuses_nan``: the release's check refuses NaN (a pydantic bound), not only a
    comparison NaN passes (``nan > 1.0`` is false)."""

    least: float | None
    above: float | None
    most: float | None
    source: str
    refuses_nan: bool = False

    def refuses(self, number: float) -> bool:
        """Whether the release refuses ``number`` (NaN: as its check treats it)."""
        if math.isnan(number):
            return self.refuses_nan
        return ((self.least is not None and number < self.least)
                or (self.above is not None and number <= self.above)
                or (self.most is not None and number > self.most))

    @property
    def described(self) -> str:
        """``"above 0 and at most 1"``, ``"of at least 1"``."""
        parts = [f"above {self.above:g}" if self.above is not None else None,
                 f"at least {self.least:g}" if self.least is not None else None,
                 f"at most {self.most:g}" if self.most is not None else None]
        return " and ".join(p for p in parts if p)


@cache
def _bounds() -> dict[tuple[str, str], ValueBound]:
    """(option string, release) -> its bound, from the vendored file."""
    raw = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    out: dict[tuple[str, str], ValueBound] = {}
    for entry in raw["bounds"]:
        bound = ValueBound(entry.get("min"), entry.get("above"), entry.get("max"),
                           entry["source"], entry.get("refuses_nan", False))
        out.update({(entry["option"], version): bound for version in entry["releases"]})
    return out


def bound_of(option: str, version: str) -> ValueBound | None:
    """The bound vLLM ``version`` states for ``option`` (its first option string)."""
    return _bounds().get((option, version))
