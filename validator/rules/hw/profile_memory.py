"""``HW012``: a taxonomy hardware profile whose ``vram_gb`` is not ``gpu_count`` times the
memory of one of its GPUs (emitted by :meth:`validator.checker.Checker.context_findings`
on ``taxonomy.yaml`` itself).

The fit rules (``HW005``-``HW007``, ``HW011``) judge a recipe's ``vram_minimum_gb``
against a profile's ``vram_gb``, and the site renders ``gpu_count`` as the
tensor-parallel size of ``single_node_tp``: a profile whose two numbers disagree with its
GPUs makes every fit verdict on it meaningless. The size of one GPU is known only where
the taxonomy states it: a size in the profile's ``description`` (``141 GB``; ``192 GB
HBM3e/GPU`` and ``4× 72 GB`` are sizes per GPU, a plain size may be the GPU's or the
whole profile's), else a profile of the same device (same brand and generation, the same
id but for a count suffix: ``rtx_pro_6000`` for ``rtx_pro_6000_8x``) whose ``vram_gb``
and ``gpu_count`` give one that its own description agrees with. Nothing else (a brand's
other GPUs, a CPU node's memory) is a GPU's size, and a profile of no known size is not
judged.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from validator.analysis.recipe_data import as_dict, get
from validator.findings import Related, Severity, printable
from validator.load import LoadedDocument
from validator.rules.metadata import Hit, declare
from validator.sourcemap import join_pointer

PROFILE_MEMORY = declare("HW012", Severity.ERROR,
                         "A hardware profile's vram_gb is not gpu_count times its GPU's memory",
                         """
    A hardware profile of ``taxonomy.yaml`` states its GPUs' total memory (``vram_gb``)
    and their number (``gpu_count``); the fit rules judge recipes against the total, and
    the site runs ``gpu_count`` GPUs. Where the taxonomy states the memory of one GPU (a
    size in the profile's ``description``, or a profile of the same device), ``vram_gb``
    must be ``gpu_count`` times it (a plain size in the description may also be the
    total). A profile whose description states no size, and no profile of the same device
    gives one, is not judged. Reported at the profile's ``vram_gb`` line.

    Failing (``taxonomy.yaml``)::

        hardware_profiles:
          h200:
            description: "NVIDIA H200 SXM 141 GB HBM3e · 4-GPU node"
            gpu_count: 4
            vram_gb: 1128

    Passing (``taxonomy.yaml``)::

        hardware_profiles:
          h200:
            description: "NVIDIA H200 SXM 141 GB HBM3e · 4-GPU node"
            gpu_count: 4
            vram_gb: 564

    How to fix: set ``vram_gb`` to ``gpu_count`` times one GPU's memory, or ``gpu_count``
    to the profile's number of GPUs.
    """)

_SIZE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?GB\b")
"""A size in GB in a description (``141 GB``, ``80GB``; not ``GB200``, a product name)."""
_COUNT_BEFORE = re.compile(r"\d+\s*[×x]\s*$")
"""``4× `` right before a size: that many GPUs of that size each."""
_PER_GPU_AFTER = re.compile(r"^[^·,;()]*?(?:/\s*(?:GPU|chip|card|NPU|device)\b|\bper "
                            r"(?:GPU|chip|card|NPU|device)\b|\beach\b)", re.IGNORECASE)
"""After a size, before the next separator: it is the size of one GPU (``/GPU``)."""
_COUNT_SUFFIX = re.compile(r"_\d+x$")
"""The count suffix of a profile id of several of one device (``rtx_pro_6000_8x``)."""


def stated_sizes(description: Any) -> list[tuple[float, bool]]:
    """``(GB, per_gpu)`` of each size ``description`` states: ``per_gpu`` when the text
    says it is one GPU's (``/GPU``, ``per chip``, ``4× 72 GB``), else it may be the
    whole profile's too."""
    if not isinstance(description, str):
        return []
    return [(float(m.group(1)), bool(_COUNT_BEFORE.search(description[:m.start()])
                                     or _PER_GPU_AFTER.match(description[m.end():])))
            for m in _SIZE.finditer(description)]


def _numbers(profile: Any) -> tuple[int, float] | None:
    """``(gpu_count, vram_gb)`` of a profile that states both as numbers (a count of at
    least 1), else ``None`` (the schema reports what is missing or malformed)."""
    count, vram = get(profile, "gpu_count"), get(profile, "vram_gb")
    if isinstance(count, bool) or isinstance(vram, bool) or not isinstance(count, int) \
            or not isinstance(vram, int | float) or count < 1 or vram <= 0:
        return None
    return count, float(vram)


GIB = 1024 ** 3 / 1000 ** 3
"""GB in a GiB: a size stated in GB may be a GiB count that ``vram_gb`` keeps (``68.7 GB``
of one GPU, 64 GiB; four of them ``vram_gb: 256``)."""


def _close(a: float, b: float) -> bool:
    """Equal up to rounding (1 %: a GPU's ``141 GB`` may be 141.x)."""
    return abs(a - b) <= 0.01 * max(a, b)


def _total_is(size: float, vram: float) -> bool:
    """``vram`` is ``size`` GB, in GB or in GiB."""
    return _close(size, vram) or _close(size / GIB, vram)


def _device(key: str, profile: Any) -> tuple[str, str, str]:
    return (str(get(profile, "brand")), str(get(profile, "generation")),
            _COUNT_SUFFIX.sub("", key))


def agrees(count: int, vram: float, sizes: list[tuple[float, bool]]) -> bool:
    """Whether ``vram`` is ``count`` times one of the stated ``sizes`` (or, for a size not
    stated per GPU, that size itself)."""
    return any(_total_is(count * s, vram) or (not per and _total_is(s, vram))
               for s, per in sizes)


def sibling_size(key: str, profiles: dict[str, Any]) -> tuple[float, list[str]] | None:
    """The memory of one GPU that the other profiles of ``key``'s device give, and their
    ids, else ``None``: their ``vram_gb`` over ``gpu_count``, all alike, of profiles whose
    description states a size those numbers agree with (a profile stating none gives no
    size to another: two profiles of no stated size do not judge each other)."""
    device = _device(key, profiles[key])
    sizes = {k: n[1] / n[0] for k, p in profiles.items()
             if k != key and _device(k, p) == device and (n := _numbers(p)) is not None
             and (stated := stated_sizes(get(p, "description"))) and agrees(*n, stated)}
    values = list(sizes.values())
    if not values or not all(_close(v, values[0]) for v in values):
        return None
    return values[0], sorted(printable(str(k)) for k in sizes)


def profile_memory_hits(doc: LoadedDocument) -> Iterator[Hit]:
    """``HW012`` hits of the taxonomy ``doc``: each profile whose ``vram_gb`` is not
    ``gpu_count`` times the memory of one of its GPUs that the taxonomy states."""
    profiles = as_dict(get(doc.data, "hardware_profiles"))
    for key, profile in profiles.items():
        numbers = _numbers(profile)
        if numbers is None or not isinstance(key, str):
            continue
        count, vram = numbers
        sizes = stated_sizes(get(profile, "description"))
        if sizes:
            if agrees(count, vram, sizes):
                continue
            size, source = sizes[0][0], "its description states"
        else:
            implied = sibling_size(key, profiles)
            if implied is None or _total_is(count * implied[0], vram):
                continue
            size, source = implied[0], f"profile(s) {', '.join(implied[1])} of the same " \
                "device give"
        yield _hit(doc, key, count, vram, size, source)


def _gb(value: float) -> str:
    return f"{value:g}"


def _hit(doc: LoadedDocument, key: str, count: int, vram: float, size: float,
         source: str) -> Hit:
    pointer = join_pointer(join_pointer("/hardware_profiles", key), "vram_gb")
    count_line = doc.source_map.key_position(join_pointer(pointer.rsplit("/", 1)[0],
                                                          "gpu_count"))[0]
    whole = vram / size
    other_count = f", or gpu_count to {int(whole)}" if whole >= 1 and whole.is_integer() \
        and int(whole) != count else ""
    gib = size / GIB
    in_gib = f" ({_gb(count * round(gib))} if vram_gb counts GiB)" \
        if not size.is_integer() and abs(gib - round(gib)) < 0.05 else ""
    return Hit(pointer, f"hardware profile {printable(key)!r}: vram_gb {_gb(vram)} is not "
               f"gpu_count {count} × the {_gb(size)} GB of one GPU that {source} "
               f"({_gb(count * size)} GB): the fit rules judge every recipe's claims on it "
               "against a total its GPUs do not have",
               f"set vram_gb to {_gb(count * size)}{in_gib}{other_count}",
               related=(Related(count_line, "gpu_count"),))
