"""The findings of the audit's blobs at its states, read from their cache entries once.

A blob's findings at a state are its schema stage's rows and, when it loaded, the rows of
each rule group's label there (:func:`~validator.history.keys.lookup`). An audit of every
ref meets each blob at hundreds of states, and consecutive states mostly share labels:
so each blob's entry is validated once (:meth:`FindingsAt.parts`), the merged list is
built once per blob and distinct ``(stage, labels)`` (:meth:`FindingsAt.at`), and whether
a blob's findings are the same at two states is answered from the labels that differ
alone (:meth:`FindingsAt.same`), without building either list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from validator.cache import FindingRow, as_row
from validator.history.revisions import State

_NONE: tuple[FindingRow, ...] = ()
"""The rows of a label without findings (shared: compared by identity first)."""


def _order(r: FindingRow) -> tuple[int, int, str, str, str]:
    return (r[3], r[4], r[0], r[2], r[5])


class FindingsAt:
    """Findings of blobs (by blob key) at states (by id).

    Args:
        results: the cache entry of each blob key (label -> value).
        refused: the one ``PROV005`` row of each blob key that is no file.
        states: the audit's states.
    """

    def __init__(self, results: Mapping[str, Mapping[str, Any]],
                 refused: Mapping[str, FindingRow], states: Mapping[str, State]) -> None:
        self.results = results
        self.refused = refused
        self.inputs: dict[str, tuple[str, tuple[str, ...]]] = {}
        """State id -> its ``(stage label, group labels)``."""
        self.combo: dict[str, int] = {}
        """State id -> the number of its distinct ``(stage, labels)``."""
        numbers: dict[tuple[str, tuple[str, ...]], int] = {}
        for s, state in states.items():
            inputs = self.inputs[s] = (state.stage, tuple(state.labels.values()))
            self.combo[s] = numbers.setdefault(inputs, len(numbers))
        self._parts: dict[str, dict[str, tuple[FindingRow, ...] | None]] = {}
        self._stages: dict[tuple[str, str], tuple[tuple[FindingRow, ...], bool] | None] = {}
        self._memo: dict[tuple[str, int], list[FindingRow]] = {}
        self._diffs: dict[tuple[int, int], tuple[tuple[str, str], ...] | None] = {}

    def parts(self, blob: str) -> dict[str, tuple[FindingRow, ...] | None]:
        """The validated rows of each label of ``blob``'s entry; ``None`` for a label
        whose value is malformed (as :func:`~validator.history.keys.lookup` takes them;
        a label the entry lacks is absent). Rows without findings share one tuple."""
        found = self._parts.get(blob)
        if found is None:
            found = self._parts[blob] = {}
            for label, value in self.results.get(blob, {}).items():
                try:
                    rows = value["rows"]
                    found[label] = _NONE if isinstance(rows, list) and not rows else \
                        tuple(as_row(r) for r in rows)
                except (KeyError, TypeError, ValueError):
                    found[label] = None
        return found

    def _stage(self, blob: str, stage: str) -> tuple[tuple[FindingRow, ...], bool] | None:
        """The stage's rows and whether the blob loaded; ``None`` when the entry lacks
        it or holds a malformed value."""
        key = (blob, stage)
        if key in self._stages:
            return self._stages[key]
        rows = self.parts(blob).get(stage)
        found = None
        if rows is not None:
            try:
                found = rows, bool(self.results[blob][stage]["ok"])
            except (KeyError, TypeError):
                found = None
        self._stages[key] = found
        return found

    def at(self, blob: str, state: str) -> list[FindingRow]:
        """The findings of ``blob`` at ``state``: ``lookup(...) or []`` of its entry (its
        ``PROV005`` row when it is no file); one list per blob and distinct
        ``(stage, labels)``, shared by every state that has them."""
        key = (blob, self.combo[state])
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._build(blob, state)
        return found

    def _build(self, blob: str, state: str) -> list[FindingRow]:
        refused = self.refused.get(blob)
        if refused is not None:
            return [refused]
        stage_label, labels = self.inputs[state]
        stage = self._stage(blob, stage_label)
        if stage is None:
            return []
        rows = list(stage[0])
        if stage[1]:
            parts = self.parts(blob)
            for label in labels:
                part = parts.get(label)
                if part is None:
                    return []
                rows += part
        rows.sort(key=_order)
        return rows

    def _differing(self, a: str, b: str) -> tuple[tuple[str, str], ...] | None:
        """The ``(label at a, label at b)`` pairs that differ between states ``a`` and
        ``b``; ``None`` when their stages differ."""
        key = (self.combo[a], self.combo[b])
        if key not in self._diffs:
            (stage_a, labels_a), (stage_b, labels_b) = self.inputs[a], self.inputs[b]
            self._diffs[key] = None if stage_a != stage_b else tuple(
                (la, lb) for la, lb in zip(labels_a, labels_b, strict=True) if la != lb)
        return self._diffs[key]

    def same(self, blob: str, a: str, b: str) -> bool:
        """Whether ``blob``'s findings at states ``a`` and ``b`` are surely equal: the same
        ``(stage, labels)``, or the same stage and equal valid rows under each label that
        differs. ``False`` means "not known": compare :meth:`at` of both."""
        if self.combo[a] == self.combo[b] or blob in self.refused:
            return True
        pairs = self._differing(a, b)
        return pairs is not None and self._same_rows(blob, self.inputs[a][0], pairs)

    def same_paths(self, before: Mapping[str, str], after: Mapping[str, str], a: str,
                   b: str) -> set[str]:
        """The paths that hold the same blob in ``before`` and ``after`` (path -> blob
        key, at states ``a`` and ``b``) whose findings are surely equal at both
        (:meth:`same` of each, with what the two states share worked out once)."""
        kept = [(p, blob) for p, blob in after.items() if before.get(p) == blob]
        if self.combo[a] == self.combo[b]:
            return {p for p, _blob in kept}
        pairs = self._differing(a, b)
        if pairs is None:
            return {p for p, blob in kept if blob in self.refused}
        stage_label = self.inputs[a][0]
        return {p for p, blob in kept if self._same_rows(blob, stage_label, pairs)}

    def _same_rows(self, blob: str, stage_label: str,
                   pairs: tuple[tuple[str, str], ...]) -> bool:
        """Whether ``blob``'s findings are surely equal at two states of stage
        ``stage_label`` whose labels differ by ``pairs``: it is no file, it did not load
        (the stage's rows alone), or each pair's valid rows are equal."""
        if blob in self.refused:
            return True
        stage = self._stage(blob, stage_label)
        if stage is None or not stage[1]:
            return stage is not None
        parts = self.parts(blob)
        return all((pa := parts.get(la)) is not None and (pb := parts.get(lb)) is not None
                   and (pa is pb or pa == pb) for la, lb in pairs)
