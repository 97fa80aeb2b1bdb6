"""JavaScript value semantics the site's renderer relies on, for plain JSON-like data.

The recipes site renders commands in JavaScript over data parsed by js-yaml. Where a recipe
holds an unexpected type (a number in an argument list, a string where a list belongs, an
empty mapping) the JS operators behave in ways Python's do not: ``[]`` and ``{}`` are truthy,
spreading a string yields its characters, ``String(1.0)`` is ``"1"``, integer-like object
keys enumerate first. These helpers reproduce exactly the operations the renderer uses, so
the Python port renders what the site renders, odd input included.

Values are what :mod:`validator.load` produces: ``dict``/``list``/``str``/``int``/``float``/
``bool``/``None`` (``None`` stands for both ``null`` and ``undefined``; the few places where
the difference matters test key presence instead).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from validator.load.jsstring import is_number as is_number  # re-exported: String() and numbers
from validator.load.jsstring import js_number as js_number
from validator.load.jsstring import js_str as js_str
from validator.load.jsstring import number_str as number_str

_ARRAY_INDEX = re.compile(r"^(?:0|[1-9][0-9]*)$")
_JS_NUMBER_TEXT = re.compile(
    r"^[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)$")


class JsTypeError(Exception):
    """What the JS renderer would throw (a ``TypeError``) at this point; the site's build
    then skips the configuration ("command synthesis failed").

    ``document``/``pointer`` name the YAML node holding the value that made it throw, where
    known ("" otherwise)."""

    def __init__(self, message: str, document: str = "", pointer: str = "") -> None:
        super().__init__(message)
        self.document = document
        self.pointer = pointer




def is_object(value: Any) -> bool:
    """``value && typeof value === "object"`` (a mapping or an array)."""
    return isinstance(value, dict | list)


def truthy(value: Any) -> bool:
    """JS truthiness: ``""``, ``0``, ``NaN``, ``null``, ``false`` are falsy; ``[]``/``{}`` not."""
    if value is None or value is False:
        return False
    if value is True:
        return True
    kind = type(value)
    if kind is dict or kind is list:
        return True
    if kind is str:
        return bool(value != "")
    if is_number(value):
        return value != 0 and not math.isnan(js_number(value))
    if isinstance(value, str):
        return value != ""
    return True




def or_(*values: Any) -> Any:
    """``a || b || c``: the first truthy value, else the last."""
    for value in values[:-1]:
        if value is None or value is False:
            continue
        kind = type(value)  # the common kinds inline, the rest by :func:`truthy`
        if kind is dict or kind is list or (kind is str and value != "") or truthy(value):
            return value
    return values[-1]


def nullish(*values: Any) -> Any:
    """``a ?? b ?? c``: the first value that is not null/undefined, else the last."""
    for value in values[:-1]:
        if value is not None:
            return value
    return values[-1]


class TracedKey(str):
    """A string key that records its lookups (the hardware id of a traced rendering, see
    :mod:`validator.render.hardware_reads`): :func:`get` and :func:`in_list` hand it the
    container."""

    def lookup(self, container: Any) -> Any:
        """``container?.[self]``."""
        raise NotImplementedError

    def listed(self, container: Any) -> bool:
        """``container.includes(self)``."""
        raise NotImplementedError


def get(obj: Any, key: Any) -> Any:
    """``obj?.[key]`` for JSON data: a mapping's value, an array element by index."""
    if type(obj) is dict:
        if type(key) is str:
            return obj.get(key)
        return key.lookup(obj) if isinstance(key, TracedKey) else obj.get(js_str(key))
    if obj is None:
        return None
    if isinstance(key, TracedKey):
        return key.lookup(obj)
    if isinstance(obj, dict):  # a traced hardware profile
        return obj.get(key if type(key) is str else js_str(key))
    if isinstance(obj, list):
        text = key if isinstance(key, str) else js_str(key)
        if _ARRAY_INDEX.match(text) and int(text) < len(obj):
            return obj[int(text)]
        if text == "length":
            return len(obj)
    if isinstance(obj, str):
        text = key if isinstance(key, str) else js_str(key)
        if text == "length":
            return len(obj)
        if _ARRAY_INDEX.match(text) and int(text) < len(obj):
            return obj[int(text)]
    return None


def has_key(obj: Any, key: str) -> bool:
    """``key in obj`` for a mapping (``false`` for anything else: for tests the site guards
    with ``typeof obj === "object"``)."""
    return isinstance(obj, dict) and key in obj


def js_in(key: str, obj: Any, what: str) -> bool:
    """The ``in`` operator: a mapping's key, an array's index; throws on a primitive."""
    if isinstance(obj, dict):
        return key in obj
    if isinstance(obj, list):
        return bool(_ARRAY_INDEX.match(key)) and int(key) < len(obj)
    raise JsTypeError(f"Cannot use 'in' operator to search for '{key}' in {what}")


def keys(obj: Any) -> list[str]:
    """``Object.keys(obj)`` in JS order: integer-like keys ascending, then insertion order."""
    if isinstance(obj, dict):
        for k in obj:
            if k[:1].isdigit():
                break
        else:
            return list(obj)
        index = sorted((k for k in obj if _is_index(k)), key=int)
        return index + [k for k in obj if not _is_index(k)]
    if isinstance(obj, list):
        return [str(i) for i in range(len(obj))]
    if isinstance(obj, str):
        return [str(i) for i in range(len(obj))]
    return []


def is_key(obj: Any, key: Any) -> bool:
    """``Object.keys(obj).includes(key)``, without listing a mapping's keys."""
    if isinstance(obj, dict):
        return isinstance(key, str) and key in obj
    return key in keys(obj)


def entries(obj: Any) -> list[tuple[str, Any]]:
    """``Object.entries(obj)`` in JS order."""
    if type(obj) is dict:  # (a plain mapping: its own values, without a :func:`get` each)
        return [(k, obj[k] if type(k) is str else get(obj, k)) for k in keys(obj)]
    return [(k, get(obj, k)) for k in keys(obj)]


def values(obj: Any) -> list[Any]:
    """``Object.values(obj)`` in JS order."""
    return [v for _, v in entries(obj)]


def ordered(obj: dict[str, Any]) -> dict[str, Any]:
    """A copy of a mapping in JS property order (what ``JSON.stringify`` would emit)."""
    return {k: obj[k] for k in keys(obj)}


def assign(target: dict[str, Any], source: Any) -> None:
    """``Object.assign(target, source)`` (strings and arrays copy their indices)."""
    if isinstance(source, dict):
        for k in keys(source):
            target[k] = source[k]
    elif isinstance(source, list | str):
        for i, v in enumerate(source):
            target[str(i)] = v


def spread(value: Any, what: str, pointer: str, document: str = "") -> list[Any]:
    """``[...value]``: an array's items, a string's characters; anything else throws
    (naming the node at ``pointer`` of ``document``, "" for the recipe, that holds it)."""
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return list(value)
    raise JsTypeError(f"{what} is not iterable", document, pointer)


def same_value_zero(a: Any, b: Any) -> bool:
    """``Array.prototype.includes`` equality: strict, no coercion, NaN equals NaN."""
    if is_number(a) and is_number(b):
        a, b = js_number(a), js_number(b)
        return bool(a == b or (math.isnan(a) and math.isnan(b)))
    if type(a) is not type(b):
        # a traced key compares (and records the comparison) as its plain string
        return bool(a == b) if isinstance(a, TracedKey) or isinstance(b, TracedKey) else False
    if isinstance(a, dict | list):
        return a is b
    return bool(a == b)


def includes(container: Any, item: Any, what: str) -> bool:
    """``container.includes(item)`` for an array or a string; anything else throws."""
    if isinstance(container, list):
        return in_list(container, item)
    if isinstance(container, str):
        return js_str(item) in container
    raise JsTypeError(f"{what}.includes is not a function")


def in_list(container: Iterable[Any], item: Any) -> bool:
    """``includes`` over a list built by the renderer itself."""
    if type(item) is str and type(container) in (list, tuple):
        # SameValueZero with a string is ``type(x) is str and x == item``: Python's own
        # ``in`` (equality, in C) rules out a list without an equal item
        return item in container and any((type(x) is str or isinstance(x, TracedKey))
                                         and x == item for x in container)
    if isinstance(item, TracedKey):
        return item.listed(container)
    return any(same_value_zero(x, item) for x in container)






def to_number(value: Any) -> float:
    """``Number(value)`` (ToNumber) for JSON data; ``None`` reads as ``null`` (0)."""
    if value is None or value is False:
        return 0
    if value is True:
        return 1
    if is_number(value):
        return js_number(value)
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return 0
        if re.fullmatch(r"0[xX][0-9a-fA-F]+", text):
            return int(text, 16)
        if re.fullmatch(r"0[oO][0-7]+", text):
            return int(text, 8)
        if re.fullmatch(r"0[bB][01]+", text):
            return int(text, 2)
        if _JS_NUMBER_TEXT.match(text):
            return float(text.replace("Infinity", "inf"))
        return math.nan
    if isinstance(value, list):
        return to_number(js_str(value))
    return math.nan


def number_or(value: Any, fallback: float) -> float:
    """``typeof value === "number" ? value : fallback``."""
    if is_number(value):
        return js_number(value)
    return fallback


def div(a: float, b: float) -> float:
    """``a / b`` with IEEE results for a zero divisor."""
    a, b = js_number(a), js_number(b)
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.inf if (a > 0) == (math.copysign(1, b) > 0) else -math.inf
    return a / b


def floor(x: float) -> float:
    """``Math.floor`` (NaN and infinities pass through)."""
    x = js_number(x)
    return x if math.isnan(x) or math.isinf(x) else math.floor(x)


def ceil(x: float) -> float:
    """``Math.ceil`` (NaN and infinities pass through)."""
    x = js_number(x)
    return x if math.isnan(x) or math.isinf(x) else math.ceil(x)


def js_max(*xs: float) -> float:
    """``Math.max`` (any NaN gives NaN)."""
    xs = tuple(js_number(x) for x in xs)
    return math.nan if any(math.isnan(x) for x in xs) else max(xs)


def js_min(*xs: float) -> float:
    """``Math.min`` (any NaN gives NaN)."""
    xs = tuple(js_number(x) for x in xs)
    return math.nan if any(math.isnan(x) for x in xs) else min(xs)


def starts_with(value: Any, prefix: str, what: str) -> bool:
    """``value.startsWith(prefix)`` on a value the JS assumes is a string (throws if not)."""
    if isinstance(value, str):
        return value.startswith(prefix)
    raise JsTypeError(f"{what}.startsWith is not a function")


def to_json_value(value: Any) -> Any:
    """Data as ``JSON.parse(JSON.stringify(value))`` gives it back: integral floats become
    integers, NaN/Infinity become ``null``, mappings take JS key order."""
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return None
        return int(value) if value.is_integer() and abs(value) < 2**63 else value
    if isinstance(value, dict):
        return {k: to_json_value(value[k]) for k in keys(value)}
    if isinstance(value, list):
        return [to_json_value(v) for v in value]
    return value


def _is_index(key: str) -> bool:
    return bool(_ARRAY_INDEX.match(key)) and int(key) < 2**32 - 1
