"""Scalar typing with YAML 1.2 (js-yaml) semantics: the core schema's plain-scalar
resolution (https://yaml.org/spec/1.2.2/#1032-tag-resolution) with js-yaml's numbers
(``_`` separators, ``0b`` integers), js-yaml's default-schema timestamps, explicit core
tags as js-yaml constructs them, and the YAML 1.1 forms that a 1.1 reader types
differently (for ``YAML003``)."""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta
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
    if text[:1].isalpha() and text[0] not in "nNtTfF":
        return text  # a letter starts no null, boolean or number (most scalars: names)
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



def json_number_problem(value: object) -> str | None:
    """What a number is that JSON cannot carry -- ``"NaN"``, ``"Infinity"``,
    ``"-Infinity"``, or ``"beyond the largest double"`` (an integer past ±1.8e308, which
    js-yaml reads as Infinity and no double holds) -- or ``None`` for a number JSON holds
    and for anything that is not a number (``bool`` included)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int):
        try:
            float(value)
        except OverflowError:
            return "beyond the largest double"
        return None
    if math.isnan(value):
        return "NaN"
    return None if math.isfinite(value) else "Infinity" if value > 0 else "-Infinity"


TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
BINARY_TAG = "tag:yaml.org,2002:binary"
# js-yaml's timestamp type (lib/type/timestamp.js): a date alone needs two-digit month
# and day; with a time both may be one digit
_JS_DATE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})$")
_JS_TIMESTAMP = re.compile(
    r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?$")
_BASE64_MAP = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=\n\r"


def js_timestamp_iso(text: str) -> str | None:
    """``Date.prototype.toISOString()`` of the ``Date`` js-yaml builds from ``text``
    (``2024-01-01`` -> ``2024-01-01T00:00:00.000Z``), or ``None`` when js-yaml's timestamp
    type does not take the text. js-yaml uses ``Date.UTC`` (months and days past their
    range roll over) and moves the instant by a zone offset."""
    match = _JS_DATE.match(text) or _JS_TIMESTAMP.match(text)
    if match is None:
        return None
    groups = list(match.groups()) + [None] * (11 - len(match.groups()))
    year, month, day = int(groups[0]), int(groups[1]) - 1, int(groups[2])
    if year <= 99:  # Date.UTC reads years 0-99 as 1900-1999
        year += 1900
    hour = int(groups[3] or 0)
    minute, second = int(groups[4] or 0), int(groups[5] or 0)
    millis = int(groups[6][:3].ljust(3, "0")) if groups[6] else 0
    offset = 0
    if groups[8]:
        offset = (int(groups[9]) * 60 + int(groups[10] or 0)) * (-1 if groups[8] == "-" else 1)
    try:
        start = datetime(year + month // 12, month % 12 + 1, 1)
        instant = start + timedelta(days=day - 1, hours=hour, minutes=minute - offset,
                                    seconds=second, milliseconds=millis)
    except (OverflowError, ValueError):
        return None
    # the year by hand: strftime's %Y does not pad years before 1000 to four digits
    return f"{instant.year:04d}" + instant.strftime("-%m-%dT%H:%M:%S.") + f"{millis:03d}Z"


def js_binary_bytes(text: str) -> bytes | None:
    """The bytes js-yaml's ``!!binary`` type decodes from ``text`` (lib/type/binary.js:
    base64 with line breaks ignored and ``=`` anywhere, no other whitespace; the text
    must make whole bytes; an empty text gives three zero bytes), or ``None`` when it
    refuses the text."""
    bits = 0
    for char in text:
        code = _BASE64_MAP.find(char)
        if code > 64:
            continue
        if code < 0:
            return None
        bits += 6
    if bits % 8:
        return None
    data = re.sub(r"[\r\n=]", "", text)
    out = bytearray()
    acc = 0
    for index, char in enumerate(data):
        if index and index % 4 == 0:
            out += bytes(((acc >> 16) & 255, (acc >> 8) & 255, acc & 255))
        acc = ((acc << 6) | _BASE64_MAP.find(char)) & 0xFFFFFFFF
    tail = len(data) % 4 * 6
    if tail == 0:
        out += bytes(((acc >> 16) & 255, (acc >> 8) & 255, acc & 255))
    elif tail == 18:
        out += bytes(((acc >> 10) & 255, (acc >> 2) & 255))
    elif tail == 12:
        out += bytes(((acc >> 4) & 255,))
    return bytes(out)
