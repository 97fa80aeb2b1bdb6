"""What a site rendering reads of its recipe, recorded by wrapping the recipe's data, and
whether each read lies inside the key its renderings are reused under for another text
of the recipe (:mod:`validator.render.recipe_reads`).

The renderer gets the recipe as a :class:`RecordedMapping`: the top-level mapping, and
each mapping value of a top-level key, record every key they are asked for (``get``,
``[]``), every key they are asked to hold (``in``) and every use of them as a whole
(iteration, length, ``repr``, comparison, copy); everything below them is the recipe's
own plain data, handed out unwrapped (the key holds or leaves out a top-level key or a
key of ``model``, ``variants`` or ``strategy_overrides``, never less: a value below them
counts as read whole).

A read is inside the key when every change of the data it would see changes
:func:`~validator.render.recipe_reads.text_digest` of the text or
:func:`~validator.render.recipe_reads.read_fingerprint` of the configuration's variant
and strategy (:func:`uncovered`): so the check reads the key functions themselves, and a
narrower key (a key of ``model`` less in ``MODEL_READ``, a fingerprint without
``pd_cluster``) leaves reads outside it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from validator.render.recipe_reads import read_fingerprint, text_digest

_MISSING = object()
SENTINEL = "\0changed by the read test"
"""A value no recipe holds (a changed value, an added key)."""

Read = tuple[str, tuple[Any, ...]]
"""``(kind, path)``: ``"get"`` (the value at ``path``, read whole), ``"kind"`` (that a
recorded mapping is at ``path``: what is read of it is recorded by it), ``"has"`` (whether
the key ``path[-1]`` is there), ``"whole"`` (the mapping at ``path``, read whole)."""


class ReadLog:
    """The reads of a :class:`RecordedMapping` tree while :attr:`on`."""

    def __init__(self) -> None:
        self.reads: set[Read] = set()
        self.on = True

    def add(self, kind: str, path: tuple[Any, ...]) -> None:
        if self.on:
            self.reads.add((kind, path))


class RecordedMapping(dict):  # type: ignore[type-arg]
    """A mapping of the recipe that records each read of it in :attr:`log` (see the
    module docstring)."""

    log: ReadLog
    path: tuple[Any, ...]
    __hash__ = None  # a dict: unhashable

    def _read(self, key: Any) -> Any:
        value = dict.get(self, key, _MISSING)
        self.log.add("kind" if isinstance(value, RecordedMapping) else "get",
                     (*self.path, key))
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
        self.log.add("has", (*self.path, key))
        return dict.__contains__(self, key)


def _whole_read(name: str) -> Callable[..., Any]:
    method = getattr(dict, name)

    def read(self: RecordedMapping, *args: Any, **kwargs: Any) -> Any:
        self.log.add("whole", self.path)
        return method(self, *args, **kwargs)

    read.__name__ = name
    return read


for _name in ("__iter__", "__len__", "__eq__", "__ne__", "__repr__", "__reversed__", "__or__",
              "__ror__", "keys", "items", "values", "copy", "__reduce__", "__reduce_ex__"):
    setattr(RecordedMapping, _name, _whole_read(_name))


def _recorded(items: Iterable[tuple[Any, Any]], log: ReadLog,
              path: tuple[Any, ...]) -> RecordedMapping:
    made = RecordedMapping(items)
    made.log, made.path = log, path
    return made


def recorded(data: Any, log: ReadLog) -> Any:
    """``data`` (a recipe's) as the renderer is to read it, recording into ``log``: a
    mapping and the mappings it holds as :class:`RecordedMapping` (the same object at
    each read); anything else as it is."""
    if type(data) is not dict:
        return data
    return _recorded(((k, _recorded(v.items(), log, (k,)) if type(v) is dict else v)
                      for k, v in data.items()), log, ())


def _changed(value: Any) -> Any:
    """``value`` changed inside (a mapping with a key more, a list with an item more), or
    another value."""
    if type(value) is dict:
        return {**value, SENTINEL: SENTINEL}
    if type(value) is list:
        return [*value, SENTINEL]
    return SENTINEL


def _changes(data: dict[Any, Any], kind: str, path: tuple[Any, ...]) -> list[dict[Any, Any]]:
    """Copies of ``data`` changed where a read ``(kind, path)`` would see it."""
    if kind == "whole":  # the recipe's mapping, or one it holds, read whole
        mapping = data[path[0]] if path else data

        def put(new: dict[Any, Any]) -> dict[Any, Any]:
            return {**data, path[0]: new} if path else new

        return [put({**mapping, SENTINEL: SENTINEL}),
                *(put({**mapping, k: _changed(v)}) for k, v in mapping.items())]
    parent = data[path[0]] if len(path) == 2 else data
    key = path[-1]

    def within(new: dict[Any, Any]) -> dict[Any, Any]:
        return {**data, path[0]: new} if len(path) == 2 else new

    if kind == "has" and key in parent:
        return [within({k: v for k, v in parent.items() if k != key})]
    if key not in parent:
        return [within({**parent, key: SENTINEL})]
    return [within({**parent, key: SENTINEL if kind == "kind" else _changed(parent[key])})]


def _key(data: Any, variant: Any, strategy: Any) -> tuple[str, Any]:
    return text_digest(data), read_fingerprint(data, variant, strategy, {})


def uncovered(data: dict[Any, Any], reads: Iterable[Read], variant: Any,
              strategy: Any) -> list[Read]:
    """The reads of a rendering of ``variant`` and ``strategy`` that some change of
    ``data`` (a recipe's plain data) would show them but leaves the key (the text digest
    and the configuration's read fingerprint) as it is."""
    key = _key(data, variant, strategy)
    return sorted((r for r in reads
                   if any(_key(changed, variant, strategy) == key
                          for changed in _changes(data, *r))), key=repr)
