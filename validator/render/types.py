"""The plain data types the renderer's modules share (and :class:`once`, the memoised
property of their classes), imported by them and importing none of them (a leaf, so that
:mod:`validator.render.configuration` and :mod:`validator.render.problems` need not import
each other).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload


@dataclass(frozen=True)
class RenderProblem:
    """Something the site cannot render, or renders broken, for one configuration.

    Attributes:
        code: ``unknown-hardware``, ``unknown-variant``, ``unknown-strategy``,
            ``unknown-kv-offload``, ``unknown-feature``, ``internal-error`` (a gap in this port),
            ``not-offered`` (a strategy the
            site does not offer on that hardware), ``synthesis-error`` (the site's
            renderer throws: its build skips the configuration), ``no-model-id``
            (``vllm serve unknown``), ``broken-value`` (a token or env value such as
            ``NaN``, ``undefined``, ``[object Object]``), ``no-docker-image``,
            ``unloadable``.
        severity: ``error`` (the user gets no or a broken command) or ``warning``.
        message: what is wrong and what the site does about it.
        document: path of the document to blame.
        pointer: JSON Pointer of the node to blame inside ``document`` ("" = the root).
    """

    code: str
    severity: str
    message: str
    document: str
    pointer: str


_T = TypeVar("_T")


class once(Generic[_T]):
    """A property computed at its first read and kept in the instance's ``__dict__`` (so
    later reads, and copies of that ``__dict__``, find it there): ``cached_property``
    without the lock Python 3.11's takes on each first read (a
    :class:`~validator.render.layers.Composer` is made for every distinct choice of a
    recipe's renderings, four of these read at once)."""

    def __init__(self, compute: Callable[[Any], _T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    @overload
    def __get__(self, instance: None, owner: Any) -> once[_T]: ...

    @overload
    def __get__(self, instance: object, owner: Any) -> _T: ...

    def __get__(self, instance: Any, owner: Any) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.compute(instance)
        return value
