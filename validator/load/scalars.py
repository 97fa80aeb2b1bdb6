"""Scalar typing with YAML 1.2 (js-yaml) semantics: the core schema's plain-scalar
resolution (https://yaml.org/spec/1.2.2/#1032-tag-resolution) with js-yaml's numbers
(``_`` separators, ``0b`` integers), js-yaml's default-schema timestamps, explicit core
tags as js-yaml constructs them, and the YAML 1.1 forms that a 1.1 reader types
differently (for ``YAML003``)."""

from __future__ import annotations

import math
import re
from typing import Any

# YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution)
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL_TRUE = re.compile(r"^(?:true|True|TRUE)$")
_BOOL_FALSE = re.compile(r"^(?:false|False|FALSE)$")
# js-yaml's int and float resolvers (lib/type/int.js, float.js of js-yaml 4): YAML 1.2
# core numbers plus ``_`` separators and ``0b`` binary integers; a sign never precedes
# a leading-dot float (``-.5`` is a string)
_JS_FLOAT = re.compile(r"^(?:[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?"
                       r"|\.[0-9_]+(?:[eE][-+]?[0-9]+)?"
                       r"|[-+]?\.(?:inf|Inf|INF)"
                       r"|\.(?:nan|NaN|NAN))$")
_PARSE_FLOAT = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[-+]?[0-9]+)?")
"""The prefix JavaScript's ``parseFloat`` reads."""
_RADIX_DIGITS = {"b": ("01", 2), "o": ("01234567", 8), "x": ("0123456789abcdefABCDEF", 16)}
# js-yaml default schema timestamp (YAML 1.1 timestamp type)
_TIMESTAMP = re.compile(
    r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
    r"(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?$"
)
# YAML 1.1 forms that 1.2 reads differently (https://yaml.org/type/bool.html, int.html)
YAML11_BOOL = re.compile(r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$")
YAML11_OCTAL = re.compile(r"^[-+]?0[0-7_]+$")
YAML11_BINARY = re.compile(r"^[-+]?0b[01_]+$")
YAML11_SEXAGESIMAL = re.compile(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")
YAML11_UNDERSCORE = re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?$")

STR_TAG = "tag:yaml.org,2002:str"
MERGE_TAG = "tag:yaml.org,2002:merge"
VALUE_TAG = "tag:yaml.org,2002:value"  # PyYAML's implicit tag of a plain ``=``
JS_YAML_TAGS = frozenset(f"tag:yaml.org,2002:{t}" for t in (
    "str", "int", "float", "bool", "null", "seq", "map", "timestamp", "merge", "binary",
    "omap", "pairs", "set"))
"""Tags of js-yaml's ``DEFAULT_SCHEMA``; any other tag makes it throw."""
TAG_NOUN = {"int": "an integer", "float": "a number", "bool": "a boolean", "null": "null"}
CORE_TAGS = frozenset(f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null"))


def construct_tagged(tag: str, text: str) -> tuple[bool, Any]:
    """``(ok, value)`` of ``text`` under explicit core tag ``tag`` as js-yaml's default
    schema constructs it (underscores allowed in numbers, ``0b``/``0o``/``0x`` integers)."""
    kind = tag.rsplit(":", 1)[-1]
    bare = text.replace("_", "") if kind in ("int", "float") and not text.endswith("_") \
        else text
    value = resolve_plain(bare)
    if kind == "int":
        if re.fullmatch(r"[-+]?0b[01]+", bare):
            return True, int(bare.replace("0b", ""), 2)
        return (True, value) if isinstance(value, int) and not isinstance(value, bool) \
            else (False, text)
    if kind == "float":
        if isinstance(value, int | float) and not isinstance(value, bool):
            return True, float(value)
        return False, text
    if kind == "bool":
        return (True, value) if isinstance(value, bool) else (False, text)
    return (True, None) if value is None else (False, text)


def js_int(text: str) -> int | float | None:
    """The integer js-yaml reads from plain scalar ``text`` (``2_0``, ``0b101``, ``0x1F``,
    ``0o17``, ``010`` = 10), or ``None`` when its int resolver does not take the text.
    Beyond Python's 4,300-digit limit the value is a float, as in JavaScript."""
    sign, body = (-1 if text[:1] == "-" else 1), text[1:] if text[:1] in "+-" else text
    if body[:1] == "0" and len(body) > 1 and body[1] in _RADIX_DIGITS:
        allowed, radix = _RADIX_DIGITS[body[1]]
        digits = body[2:].replace("_", "")
        if not digits or body.endswith("_") or any(c not in allowed for c in digits):
            return None
        return sign * int(digits, radix)
    digits = body.replace("_", "")
    if (not digits or body[:1] == "_" or body.endswith("_") or not digits.isascii()
            or not digits.isdigit()):
        return None
    try:
        return sign * int(digits, 10)
    except ValueError:  # over Python's 4,300-digit limit: a float, as js-yaml reads it
        return sign * float(digits)


def js_float(text: str) -> float | None:
    """The number js-yaml's float resolver reads from ``text`` (underscores dropped, then
    JavaScript's ``parseFloat``), or ``None`` when the resolver does not take it."""
    if not _JS_FLOAT.match(text) or text.endswith("_"):
        return None
    value = text.replace("_", "").lower()
    sign = -1.0 if value.startswith("-") else 1.0
    value = value.lstrip("+-")
    if value == ".inf":
        return sign * math.inf
    if value == ".nan":
        return math.nan
    head = _PARSE_FLOAT.match(value)
    return sign * float(head[0]) if head else math.nan


def resolve_plain(text: str) -> Any:
    """Resolve a plain scalar as js-yaml's default schema does: the YAML 1.2 core schema's
    null and booleans, js-yaml's numbers (:func:`js_int`, :func:`js_float`).

    Returns ``None``, ``bool``, ``int``, ``float`` or ``str``. Timestamps stay strings
    (their source text) so that loaded data is JSON-compatible.
    """
    if _NULL.match(text):
        return None
    if _BOOL_TRUE.match(text):
        return True
    if _BOOL_FALSE.match(text):
        return False
    number = js_int(text)
    if number is None:
        number = js_float(text)
    if number is not None:
        return number
    return text

