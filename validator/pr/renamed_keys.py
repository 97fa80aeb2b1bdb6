"""Mapping keys a change renames, so that a finding under a renamed key keeps its identity.

A finding's identity anchors it by its JSON Pointer (:mod:`validator.identity`): a pull
request that renames a variant (``variants.mobile`` to ``variants.edge``) or a feature
moves every finding below that key to another anchor, and ``pr`` would report the
findings of lines the change leaves as they were as new (blocking) and, at once, as fixed.
:func:`key_renames` finds the renamed keys of a document's mappings (on paths of mappings
only: a list item is anchored by its content already), and :func:`carry_renamed` matches
each head finding still marked new with a base finding gone whose identity, its anchor
moved to the new key, is the same: that finding is existing, not new and not fixed.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import Any

from validator.findings import Finding
from validator.identity import Identity, identity_of
from validator.load import load_yaml
from validator.sourcemap import join_pointer

MAX_MAPPINGS = 20_000
"""Most mappings :func:`key_renames` compares in one document (a bound for hostile input:
past it, the renames found so far)."""
MAX_PAIRS = 64
"""Most (removed key, added key) pairs of one mapping compared by value."""


def key_renames(base: Any, head: Any) -> list[tuple[str, str]]:
    """``(pointer at the base, pointer at the head)`` of each mapping key the change
    renamed, outer keys first: a removed key whose value equals the value of one added key
    of the same mapping, or the only removed key beside the only added one (its value
    edited too). A key inside a renamed one is given under its new parent."""
    renames: list[tuple[str, str]] = []
    queue: list[tuple[str, Any, Any]] = [("", base, head)]
    for pointer, old, new in queue:
        if len(queue) > MAX_MAPPINGS:
            break
        if not (isinstance(old, dict) and isinstance(new, dict)):
            continue
        for gone, added in _renamed_pairs(old, new).items():
            renames.append((join_pointer(pointer, gone), join_pointer(pointer, added)))
            queue.append((join_pointer(pointer, added), old[gone], new[added]))
        queue += [(join_pointer(pointer, key), value, new[key])
                  for key, value in old.items() if isinstance(key, str) and key in new]
    return renames


def _renamed_pairs(old: dict[Any, Any], new: dict[Any, Any]) -> dict[str, str]:
    removed = [k for k in old if isinstance(k, str) and k not in new]
    added = [k for k in new if isinstance(k, str) and k not in old]
    if not removed or not added:
        return {}
    pairs: dict[str, str] = {}
    if len(removed) * len(added) <= MAX_PAIRS:
        for key in removed:
            same = [a for a in added if a not in pairs.values() and new[a] == old[key]]
            if len(same) == 1:
                pairs[key] = same[0]
    left = [k for k in removed if k not in pairs]
    fresh = [k for k in added if k not in pairs.values()]
    if len(left) == 1 and len(fresh) == 1:
        pairs[left[0]] = fresh[0]
    return pairs


def moved(ident: Identity, renames: Sequence[tuple[str, str]]) -> Identity:
    """``ident`` of a base finding with its anchor under each renamed key moved to the
    key's new name."""
    anchor = ident.anchor
    for old, new in renames:
        if anchor == old or anchor.startswith(old + "/"):
            anchor = new + anchor[len(old):]
    return ident._replace(anchor=anchor)


def carry_renamed(findings: list[Finding], gone: list[Finding], base: bytes | None,
                  head: bytes | None, path: str) -> tuple[list[Finding], list[Finding]]:
    """``(findings, gone)`` of one document (as :func:`validator.pr.baseline.compare`
    marked them) with each new finding that is a gone one under a renamed key
    (``base``/``head``: the document's bytes at each side) marked ``"unchanged"`` and
    that gone one taken out of ``gone`` (not fixed)."""
    if base is None or head is None or not gone or \
            not any(f.baseline == "new" for f in findings):
        return findings, gone
    renames = key_renames(_data(base, path), _data(head, path))
    if not renames:
        return findings, gone
    left = Counter(moved(identity_of(f), renames) for f in gone)
    carried: Counter[Identity] = Counter()
    out = []
    for f in findings:
        ident = identity_of(f)
        if f.baseline == "new" and left[ident] > 0:
            left[ident] -= 1
            carried[ident] += 1
            f = dataclasses.replace(f, baseline="unchanged")
        out.append(f)
    still_gone = []
    for f in gone:
        ident = moved(identity_of(f), renames)
        if carried[ident] > 0:
            carried[ident] -= 1
            continue
        still_gone.append(f)
    return out, still_gone


def _data(raw: bytes, path: str) -> Any:
    try:
        loaded = load_yaml(raw, path, characters=False)
    except Exception:  # a document that does not load has no keys to compare
        return None
    return loaded.data if loaded.ok else None
