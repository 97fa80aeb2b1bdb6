"""JavaScript's ``String(value)`` of YAML data (js-yaml's values: ``None``, ``bool``,
``int``, ``float``, ``str``, lists and mappings), for the loader, which names a mapping key
as js-yaml does, and for the renderer (:mod:`validator.render.jsval` re-exports these)."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any


def is_number(value: Any) -> bool:
    """``typeof value === "number"`` (YAML data: exactly ``int`` or ``float``, not bool)."""
    return type(value) is int or type(value) is float


def js_number(value: float) -> float:
    """The JavaScript number of a YAML number: an integer beyond ±2**53 is the nearest
    double (``Infinity`` past the largest), as js-yaml reads it; Python's ``math`` would
    raise on it instead."""
    if type(value) is int and not -2**53 <= value <= 2**53:
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    return value


def js_str(value: Any) -> str:
    """``String(value)`` / template-literal conversion."""
    if type(value) is str:
        return value
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if is_number(value):
        return number_str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join("" if v is None else js_str(v) for v in value)
    return "[object Object]"


def number_str(value: float) -> str:
    """``Number.prototype.toString()`` (ECMAScript Number::toString, radix 10)."""
    if isinstance(value, int) and abs(value) < 2**53:
        return str(value)
    x = float(js_number(value))
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    _, digit_tuple, exponent = Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    k = len(digits)
    n = int(exponent) + k
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    e = n - 1
    return f"{sign}{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
