"""Defensive accessors for recipe data that may not match the schema.

Checks run on documents that may have schema errors; these helpers return empty values
for wrong shapes so that a malformed node yields a ``SCHEMA`` finding, not a crash.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from validator.sourcemap import join_pointer


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a mapping, else ``{}``."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` if it is a sequence, else ``[]``."""
    return value if isinstance(value, list) else []


def get(data: Any, *path: str) -> Any:
    """``data[p0][p1]...`` or ``None`` when any step is missing or not a mapping."""
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def items(data: Any, pointer: str) -> Iterator[tuple[str, Any, str]]:
    """``(key, value, child_pointer)`` for each entry of a mapping at ``pointer``."""
    for key, value in as_dict(data).items():
        yield key, value, join_pointer(pointer, key)


def elements(data: Any, pointer: str) -> Iterator[tuple[int, Any, str]]:
    """``(index, value, child_pointer)`` for each item of a sequence at ``pointer``."""
    for index, value in enumerate(as_list(data)):
        yield index, value, join_pointer(pointer, index)
