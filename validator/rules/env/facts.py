"""``ENV001``: a vendor environment variable spelled almost like a real one.

NCCL, HIP/ROCr, CUDA, OpenMP, PyTorch and Ascend CANN read environment variables by exact
name, and an unknown name is silently ignored: ``NCCL_SOCKET_IFNAMES=eth0`` leaves NCCL on
its default interface, ``CUDA_VISIBLE_DEVICE=0,1`` exposes every GPU. The names these
libraries read are vendored in ``validator/data/vendor_env.json``, one list per source
(project, version, URL and how the names were collected). ``VLLM_*`` names are judged by
``FLAG016``/``GUIDE010`` against the vendored vLLM registries, not here.

Only near-typos of a listed name are reported, never a name merely missing from a list:
the lists cannot hold every variable a library will ever read, so an unknown but plausible
name (``HCCL_SOCKET_IFNAME``, ``PYTORCH_XPU_ALLOC_CONF``) passes. See :func:`near_miss`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from validator.checks._data import as_dict, as_list, get
from validator.checks.registry import Hit, Reads, rule
from validator.context import Context
from validator.findings import Related, Severity
from validator.guide.commands import parse_guide
from validator.load import LoadedDocument
from validator.paths import PACKAGE_DIR
from validator.sourcemap import join_pointer

DATA_FILE = PACKAGE_DIR / "data" / "vendor_env.json"
_ENV_KEYS = frozenset({"env", "extra_env", "base_env"})


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


def _distance(a: str, b: str) -> int:
    """Optimal string alignment distance (Levenshtein plus adjacent transpositions)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def _segment_typo(a: str, b: str) -> bool:
    """``a`` and ``b`` (one ``_`` segment each) differ by a typo: at most one edit for a
    segment of 4-7 characters, two from 8; segments under 4 characters (``IB``, ``TC``,
    ``NPU``) are too short to tell a typo from another real word."""
    shortest = min(len(a), len(b))
    if shortest < 4:
        return False
    return _distance(a, b) <= (2 if shortest >= 8 else 1)


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
        close = [p for p in table if len(p) >= 4 and _distance(prefix, p) == 1]
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
    found = sorted((_distance(norm, k), k) for k in names if _near(norm, k))
    if not found:
        return None
    return NearMiss(name, found[0][1], "one misspelled word" if len(name.split("_")) == len(
        found[0][1].split("_")) else "the `_` separators differ", source)


def _env_maps(data: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """``(pointer, mapping)`` of every ``env``/``extra_env``/``base_env`` mapping in
    ``data`` (model, variants, features, modes, overrides, prefill/decode roles)."""
    if isinstance(data, dict):
        for key, value in data.items():
            child = join_pointer(pointer, str(key))
            if key in _ENV_KEYS and isinstance(value, dict):
                yield child, value
            else:
                yield from _env_maps(value, child)
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _env_maps(value, join_pointer(pointer, i))


def _message(miss: NearMiss, where: str) -> tuple[str, str]:
    src = miss.source
    return (f"{where}: `{miss.name}` is not an environment variable {src.project} reads "
            f"({miss.how}; the library ignores unknown names); did you mean "
            f"`{miss.nearest}`?", f"rename it to {miss.nearest} (list: {src.version}, "
            f"{src.url})")


@rule("ENV001", Severity.WARNING, "Vendor environment variable misspelled",
      reads=frozenset({Reads.STRATEGIES}))
def vendor_env_typo(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """An environment variable of a recipe (``model.base_env``, a variant's, hardware
    override's, feature's, mode's or strategy override's ``env``/``extra_env``, the
    ``env`` of a selected strategy file, or a guide ``export``/``VAR=x`` prefix/``docker
    -e``) is one typo away from a variable that NCCL, HIP/ROCr, CUDA, OpenMP, PyTorch or
    Ascend CANN reads (``NCCL_*``, ``HIP_*``/``HSA_*``/``ROCR_*``, ``CUDA_*``, ``OMP_*``,
    ``PYTORCH_*``, ``HCCL_*``/``ASCEND_*``). These libraries ignore names they do not
    read, so the setting silently has no effect. The message names the nearest real
    variable and the vendored list it comes from (``validator/data/vendor_env.json``,
    each list with project, version and URL). A name in no list that is not near one is
    never reported; ``VLLM_*`` names are ``FLAG016``'s.

    Failing::

        model:
          base_env:
            NCCL_SOCKET_IFNAMES: eth0      # NCCL reads NCCL_SOCKET_IFNAME
            CUDA_VISIBLE_DEVICE: "0,1"     # CUDA reads CUDA_VISIBLE_DEVICES

    Passing::

        model:
          base_env:
            NCCL_SOCKET_IFNAME: eth0
            CUDA_VISIBLE_DEVICES: "0,1"
            HCCL_SOCKET_IFNAME: eth0       # not in the CANN list, but near no listed name

    How to fix: rename the variable to the one the message names."""
    data = doc.data
    for pointer, env in _env_maps(data):
        where = pointer[1:].replace("/", ".")
        for name in env:
            miss = near_miss(name) if isinstance(name, str) else None
            if miss is not None:
                msg, hint = _message(miss, where)
                yield Hit(join_pointer(pointer, name), msg, hint, on_key=True)
    for i, sname in enumerate(as_list(get(data, "compatible_strategies"))):
        sdoc = ctx.strategies.get(sname) if isinstance(sname, str) else None
        if sdoc is None or not sdoc.ok:
            continue
        for sptr, env in _env_maps(sdoc.data):
            for name in as_dict(env):
                miss = near_miss(name) if isinstance(name, str) else None
                if miss is not None:
                    line = sdoc.source_map.key_position(join_pointer(sptr, name))[0]
                    msg, hint = _message(miss, f"{sdoc.path} {sptr[1:].replace('/', '.')}")
                    yield Hit(f"/compatible_strategies/{i}", msg, hint,
                              related=(Related(line, name, sdoc.path),))
    text = get(data, "guide")
    if not isinstance(text, str) or not text:
        return
    parsed = parse_guide(text)
    seen: set[tuple[str, int]] = set()
    entries = list(parsed.exports) + [e for cmd in parsed.commands for e in cmd.env]
    for name, _, line in sorted(entries, key=lambda e: e[2]):
        if (name, line) in seen:
            continue
        seen.add((name, line))
        miss = near_miss(name)
        if miss is not None:
            msg, hint = _message(miss, "guide")
            yield Hit("/guide", msg, hint, block_index=line)
