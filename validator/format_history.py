"""The recipes format has a history: a revision is judged by the format of its date.

``schemas/format-history.json`` lists dated changes of the format (a key that became
required, a value that stopped being allowed), each with the upstream commit that made it
and how to undo it in today's schema. :func:`schema_as_of` gives the schema of a date:
today's, with every change dated after it undone. ``--as-of`` judges with it, so that a
pull request is held to the format of its day, not to a rule written after it.

Undo operations (``undo.op``), at a JSON Pointer into the schema (``undo.at``):

* ``unrequire``: drop ``undo.key`` from that node's ``required``;
* ``allow``: add ``undo.value`` to that node's ``enum``.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

from validator.paths import SCHEMAS_DIR

HISTORY_FILE = "format-history.json"


@dataclass(frozen=True)
class FormatChange:
    """One dated change of the format (see the module docstring)."""

    id: str
    schema: str
    since: date
    upstream: str
    what: str
    undo: dict[str, Any]


@cache
def format_changes(schema_dir: Path = SCHEMAS_DIR) -> tuple[FormatChange, ...]:
    """Every change of ``schemas/format-history.json``, oldest first.

    Raises:
        ValueError: the file is not a list of changes of the documented shape.
    """
    raw = json.loads((schema_dir / HISTORY_FILE).read_text("utf-8"))
    out = []
    for entry in raw["changes"]:
        undo = entry["undo"]
        if undo.get("op") not in ("unrequire", "allow") or not str(undo.get("at", "")).startswith(
                "/"):
            raise ValueError(f"{HISTORY_FILE}: change {entry.get('id')!r}: bad undo {undo!r}")
        out.append(FormatChange(entry["id"], entry["schema"], date.fromisoformat(entry["since"]),
                                entry["upstream"], entry["what"], undo))
    return tuple(sorted(out, key=lambda c: c.since))


def undone_at(name: str, as_of: date | None) -> tuple[str, ...]:
    """Ids of the changes of schema ``name`` made after ``as_of`` (none without a date):
    what the schema of that date does not have yet."""
    if as_of is None:
        return ()
    return tuple(c.id for c in format_changes() if c.schema == name and c.since > as_of)


def _node(schema: dict[str, Any], pointer: str) -> dict[str, Any]:
    node: Any = schema
    for part in pointer.split("/")[1:]:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    if not isinstance(node, dict):
        raise ValueError(f"{HISTORY_FILE}: {pointer} is not a schema object")
    return node


def schema_as_of(schema: dict[str, Any], name: str, undone: tuple[str, ...]) -> dict[str, Any]:
    """``schema`` (today's schema ``name``) with the changes ``undone`` undone; the same
    object when there are none.

    Raises:
        KeyError, ValueError: a change does not fit the schema (its pointer names no
            object): the history file and the schema disagree.
    """
    if not undone:
        return schema
    out = copy.deepcopy(schema)
    for change in format_changes():
        if change.schema != name or change.id not in undone:
            continue
        node = _node(out, change.undo["at"])
        if change.undo["op"] == "unrequire":
            node["required"] = [k for k in node.get("required", []) if k != change.undo["key"]]
        else:
            node["enum"] = [*node.get("enum", []), change.undo["value"]]
    return out
