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
import re
from collections.abc import Callable, Sequence
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from validator.fix.model import DataChange, expected_data
from validator.load import scalar_spans
from validator.load.lines import LIBYAML_ONLY_BREAKS
from validator.suppress import ScalarContent, comment_hashes

_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")
_COMMENT_END = re.compile(f"[{LIBYAML_ONLY_BREAKS}]")


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


def without_comments(text: str) -> str:
    """``text`` with the body of every comment dropped (each ``#`` kept), which no reader
    turns into data. ruamel.yaml's round-trip scanner gathers a comment into a string one
    character at a time (``comment += ch``), which is quadratic in the comment's length:
    a 2 MiB comment line took minutes to read. The comments are found as the suppression
    directives are (:class:`validator.suppress.ScalarContent`): a ``#`` at a line's start
    or after a blank, outside every quoted and block scalar."""
    if "#" not in text:
        return text
    content = ScalarContent(*scalar_spans(text))
    parts = _LINE_BREAK.split(text)  # lines and their terminators, alternately
    for index in range(0, len(parts), 2):
        line, number, cuts = parts[index], index // 2 + 1, []
        hashes = comment_hashes(line)
        while hashes:
            start = content.comment_start(line, number, hashes)
            if start is None:
                break
            # U+0085, U+2028 and U+2029 end a comment for ruamel.yaml: keep what follows
            found = _COMMENT_END.search(line, start)
            stop = found.start() if found else len(line)
            cuts.append((start + 1, stop))
            hashes = [h for h in hashes if h > stop]
        for start, stop in reversed(cuts):
            line = line[:start] + line[stop:]
        parts[index] = line
    return "".join(parts)


def read(text: str) -> Any | None:
    """``text`` as ruamel.yaml reads it (plain data), ``None`` when it cannot; its
    comments are dropped first (:func:`without_comments`)."""
    yaml = YAML(typ="rt")
    try:
        return _plain(yaml.load(without_comments(text)))
    except (YAMLError, ValueError, TypeError, RecursionError):
        return None


def disagrees(old_text: str, new_text: str, changes: Sequence[DataChange],
              reader: Callable[[str], Any | None] = read) -> str | None:
    """Why ruamel.yaml does not read ``new_text`` as ``old_text`` with ``changes`` made,
    or ``None`` (also when it cannot read ``old_text`` at all: nothing to compare).
    ``reader`` is :func:`read` or one that remembers what it read (never changed here)."""
    old = reader(old_text)
    if old is None:
        return None
    new = reader(new_text)
    if new is None:
        return "ruamel.yaml cannot read the edited file"
    try:
        want = expected_data(old, changes)
    except (KeyError, IndexError, TypeError, ValueError):
        return "ruamel.yaml reads the file's structure differently"
    if json.dumps(new, default=str) != json.dumps(want, default=str):
        return "ruamel.yaml would read the edited file as other data than intended"
    return None
