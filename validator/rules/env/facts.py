"""What the ``ENV`` rules share: the environment variable names that NCCL, HIP/ROCr, CUDA,
OpenMP, PyTorch and Ascend CANN read (vendored in ``validator/data/vendor_env.json``) and
the near-miss matcher (:func:`near_miss`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache

from validator.analysis.edit_distance import edit_distance
from validator.paths import PACKAGE_DIR

DATA_FILE = PACKAGE_DIR / "data" / "vendor_env.json"


@dataclass(frozen=True)
class VendorList:
    """One vendored list: the names a library reads, and where they come from."""

    id: str
    prefixes: frozenset[str]
    project: str
    version: str
    url: str
    names: frozenset[str]


@cache
def vendor_lists() -> tuple[VendorList, ...]:
    """The lists of ``validator/data/vendor_env.json``."""
    raw = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    return tuple(VendorList(e["id"], frozenset(e["prefixes"]), e["project"], e["version"],
                            e["url"], frozenset(e["names"])) for e in raw["lists"])


@cache
def _by_prefix() -> dict[str, tuple[frozenset[str], VendorList]]:
    out: dict[str, tuple[frozenset[str], VendorList]] = {}
    for vl in vendor_lists():
        for prefix in vl.prefixes:
            names = frozenset(n for n in vl.names if n.split("_", 1)[0] == prefix)
            out[prefix] = (names, vl)
    return out


def _segment_typo(a: str, b: str) -> bool:
    """``a`` and ``b`` (one ``_`` segment each) differ by a typo: at most one edit for a
    segment of 4-7 characters, two from 8; segments under 4 characters (``IB``, ``TC``,
    ``NPU``) are too short to tell a typo from another real word."""
    shortest = min(len(a), len(b))
    if shortest < 4:
        return False
    return edit_distance(a, b) <= (2 if shortest >= 8 else 1)


def _near(name: str, known: str) -> bool:
    ours, theirs = name.split("_"), known.split("_")
    if len(ours) == len(theirs):
        differ = [i for i, (x, y) in enumerate(zip(ours, theirs, strict=True)) if x != y]
        return len(differ) == 1 and _segment_typo(ours[differ[0]], theirs[differ[0]])
    # a separator dropped or doubled: NCCL_SOCKETIFNAME, NCCL_SOCKET__IFNAME
    return "".join(ours) == "".join(theirs)


@dataclass(frozen=True)
class NearMiss:
    """``name`` is not read; ``nearest`` of list ``source`` is, and ``how`` they differ."""

    name: str
    nearest: str
    how: str
    source: VendorList


def near_miss(name: str) -> NearMiss | None:
    """The listed variable ``name`` is a misspelling of, or ``None``.

    A name is judged when its first ``_`` segment is a list's prefix (or one edit from a
    prefix of four or more letters and not a prefix itself: ``NCLL_``). It is a near miss
    when it is not listed and (a) it is a listed name in another case or with ``-``/``.``
    for ``_``, (b) the rest is a listed name under a misspelled prefix, (c) exactly one
    segment differs from a listed name's by a typo (:func:`_segment_typo`), or (d) only
    the ``_`` separators differ. When several names qualify, the closest wins."""
    if not name or name.startswith("VLLM_"):
        return None
    table = _by_prefix()
    norm = name.upper().replace("-", "_").replace(".", "_")
    prefix = norm.split("_", 1)[0]
    entry = table.get(prefix)
    if entry is None:
        close = [p for p in table if len(p) >= 4 and edit_distance(prefix, p) == 1]
        if len(close) != 1:
            return None
        names, source = table[close[0]]
        fixed = close[0] + norm[len(prefix):]
        if fixed in names:
            return NearMiss(name, fixed, f"prefix `{prefix}_` for `{close[0]}_`", source)
        return None
    names, source = entry
    if name in names:
        return None
    if norm in names:
        return NearMiss(name, norm, "wrong case or separator", source)
    found = sorted((edit_distance(norm, k), k) for k in names if _near(norm, k))
    if not found:
        return None
    return NearMiss(name, found[0][1], "one misspelled word" if len(name.split("_")) == len(
        found[0][1].split("_")) else "the `_` separators differ", source)


