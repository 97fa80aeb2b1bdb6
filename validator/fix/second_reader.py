"""A second, independent reading of an edited file: ruamel.yaml (YAML 1.2, round-trip
loader, pure Python) must agree with the fix too.

The engine's first verification uses the loader every check uses (libyaml's composer
with YAML 1.2 resolution, :mod:`validator.load`). ruamel.yaml is another parser with its
own scanner; where it reads the original file, it must read the edited file as the
original data with the fix's changes, or the fix is not applied. Its values are compared
as JSON text (timestamps and other non-JSON scalars as their string form).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from validator.fix.model import DataChange, expected_data


def _plain(node: Any) -> Any:
    """ruamel's round-trip containers and scalars as plain Python data."""
    if isinstance(node, dict):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    return str(node)


def read(text: str) -> Any | None:
    """``text`` as ruamel.yaml reads it (plain data), ``None`` when it cannot."""
    yaml = YAML(typ="rt")
    try:
        return _plain(yaml.load(text))
    except (YAMLError, ValueError, TypeError, RecursionError):
        return None


def disagrees(old_text: str, new_text: str, changes: Sequence[DataChange]) -> str | None:
    """Why ruamel.yaml does not read ``new_text`` as ``old_text`` with ``changes`` made,
    or ``None`` (also when it cannot read ``old_text`` at all: nothing to compare)."""
    old = read(old_text)
    if old is None:
        return None
    new = read(new_text)
    if new is None:
        return "ruamel.yaml cannot read the edited file"
    try:
        want = expected_data(old, changes)
    except (KeyError, IndexError, TypeError, ValueError):
        return "ruamel.yaml reads the file's structure differently"
    if json.dumps(new, default=str) != json.dumps(want, default=str):
        return "ruamel.yaml would read the edited file as other data than intended"
    return None
