"""What one site rendering read of its configuration's mode selection, so that it is
reused for a configuration with another selection exactly where every one of those reads
gives the same value there.

The selection (``Configuration.feature_modes``: feature name -> chosen mode) reaches the
renderer as a :class:`TracedSelection`, a ``dict`` that logs each use of itself:

- a key read (``get``, ``[]``, ``in``) with the value found;
- a use of the whole mapping (iterating, counting, comparing, copying, ``repr``);
- a decision taken on one entry where only the decision counts (:func:`decided`: the
  feature layers' mode resolution, which turns the chosen mode into the mode the site
  applies: a chosen mode the variant or hardware does not allow resolves to the same mode
  as no choice).

:func:`holds` replays such a log against another selection (on the hardware of the
configuration that would reuse the rendering, for a decision). A layer the renderer
remembers for later renderings (the feature layers of one selection) keeps the reads of
its making (:func:`reads_since`), and a rendering that reuses it counts them as its own
(:func:`touch`), so a rendering's log holds every read its result depends on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from validator.render import jsval

_MISSING = object()

Read = tuple[Any, ...]
"""One logged read: ``("value", key, found)``, ``("whole", repr)`` or
``("decided", key, decide, result)``."""


class TracedSelection(dict):  # type: ignore[type-arg]
    """A mode selection that logs what is read of it (:attr:`reads`; see the module
    docstring). :attr:`plain` is the selection as a plain ``dict``."""

    reads: list[Read]
    plain: dict[Any, Any]
    __hash__ = None  # a dict: unhashable

    def __init__(self, pairs: Iterable[tuple[Any, Any]] = ()) -> None:
        super().__init__(pairs)
        self.plain = dict(dict.items(self))
        self.reads = []

    def _read(self, key: Any) -> Any:
        value = dict.get(self, key, _MISSING)
        self.reads.append(("value", key, value))
        return value

    def get(self, key: Any, default: Any = None) -> Any:
        value = self._read(key)
        return default if value is _MISSING else value

    def __getitem__(self, key: Any) -> Any:
        value = self._read(key)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return self._read(key) is not _MISSING

    def __bool__(self) -> bool:  # (``len``: a use of the whole mapping)
        return len(self) > 0


def _whole_read(name: str) -> Any:
    method = getattr(dict, name)

    def read(self: TracedSelection, *args: Any, **kwargs: Any) -> Any:
        self.reads.append(("whole", repr(self.plain)))
        return method(self, *args, **kwargs)

    read.__name__ = name
    return read


for _name in ("__iter__", "__len__", "__eq__", "__ne__", "__repr__", "__reversed__",
              "__or__", "__ror__", "keys", "items", "values", "copy", "__reduce__",
              "__reduce_ex__"):
    setattr(TracedSelection, _name, _whole_read(_name))


def selection_key(selection: Any) -> str:
    """``repr`` of the selection's plain value, for the key of a memo of what was made
    of it (not a read: the memo keeps the reads of its making, :func:`reads_since`)."""
    return repr(selection.plain if isinstance(selection, TracedSelection) else selection)


def decided(selection: Any, key: Any, decide: Callable[[Any, Any, Any], Any],
            profile: Any, hw_id: Any) -> Any:
    """``decide(selection?.[key], profile, hw_id)``; on a traced selection the decision,
    not the entry, is the read: replayed (:func:`holds`) with the other selection's entry
    and the plain profile and id of the hardware that would reuse the rendering, so
    ``decide`` must read nothing else that differs between the configurations of one
    site rendering key (the recipe, variant and strategy are the same there)."""
    if not isinstance(selection, TracedSelection):
        return decide(jsval.get(selection, key), profile, hw_id)
    result = decide(jsval.get(selection.plain, key), profile, hw_id)
    selection.reads.append(("decided", key, decide, result))
    return result


def reads_since(selection: Any, start: int) -> tuple[Read, ...]:
    """The reads a traced selection logged from index ``start`` on (``()`` untraced)."""
    return tuple(selection.reads[start:]) if isinstance(selection, TracedSelection) else ()


def read_count(selection: Any) -> int:
    """How many reads a traced selection logged so far (0 untraced)."""
    return len(selection.reads) if isinstance(selection, TracedSelection) else 0


def touch(selection: Any, reads: tuple[Read, ...]) -> None:
    """Count ``reads`` (made for a remembered result, :func:`reads_since`) as reads of the
    rendering in progress with ``selection``."""
    if isinstance(selection, TracedSelection):
        selection.reads.extend(reads)


def holds(reads: Iterable[Read], selection: dict[Any, Any], profile: Any,
          hw_id: Any) -> bool:
    """Whether each of ``reads`` gives the same value on the plain ``selection`` (a
    decision: taken with the plain ``profile`` and ``hw_id`` of the hardware that would
    reuse the rendering). A decision that throws there does not hold."""
    for read in reads:
        kind = read[0]
        if kind == "value":
            if not _same(dict.get(selection, read[1], _MISSING), read[2]):
                return False
        elif kind == "whole":
            if repr(selection) != read[1]:
                return False
        else:
            try:
                again = read[2](jsval.get(selection, read[1]), profile, hw_id)
            except (jsval.JsTypeError, TypeError, ValueError, AttributeError, KeyError,
                    IndexError, OverflowError, RecursionError):
                return False
            if not _same(again, read[3]):
                return False
    return True


def _same(a: Any, b: Any) -> bool:
    """Equal values of equal types (``1``, ``1.0`` and ``True`` apart)."""
    return a is b or (type(a) is type(b) and repr(a) == repr(b))
