"""Scalar typing with YAML 1.2 (js-yaml) semantics: the core schema's plain-scalar
resolution (https://yaml.org/spec/1.2.2/#1032-tag-resolution), js-yaml's default-schema
timestamps, explicit core tags as js-yaml constructs them, and the YAML 1.1 forms that a
1.1 reader types differently (for ``YAML003``)."""

from __future__ import annotations

import math
import re
from typing import Any

# YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution)
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL_TRUE = re.compile(r"^(?:true|True|TRUE)$")
_BOOL_FALSE = re.compile(r"^(?:false|False|FALSE)$")
_INT10 = re.compile(r"^[-+]?[0-9]+$")
_INT8 = re.compile(r"^0o[0-7]+$")
_INT16 = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN = re.compile(r"^\.(?:nan|NaN|NAN)$")
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


def resolve_plain(text: str) -> Any:
    """Resolve a plain scalar with the YAML 1.2 core schema (plus js-yaml timestamps).

    Returns ``None``, ``bool``, ``int``, ``float`` or ``str``. Timestamps stay strings
    (their source text) so that loaded data is JSON-compatible.
    """
    if _NULL.match(text):
        return None
    if _BOOL_TRUE.match(text):
        return True
    if _BOOL_FALSE.match(text):
        return False
    if _INT10.match(text):
        try:
            return int(text, 10)
        except ValueError:  # over Python's 4,300-digit limit: a float, as js-yaml reads it
            return float(text)
    if _INT8.match(text):
        return int(text[2:], 8)
    if _INT16.match(text):
        return int(text[2:], 16)
    if _FLOAT.match(text):
        return float(text)
    if _INF.match(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.match(text):
        return math.nan
    return text

