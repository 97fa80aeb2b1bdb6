"""Files in ``publish --out-dir`` that publish did not write, and so may not replace: an
``index.json`` without its :data:`~validator.evidence.publish.INDEX_FORMAT`, a
``schemas/<name>.json`` without the ``$id`` of the schema it copies there (as
:mod:`validator.owned_folder` judges the folders ``--site`` and ``--api-out`` replace)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from validator.evidence.model import SCHEMA_PATH
from validator.evidence.publish import INDEX, INDEX_FORMAT
from validator.state_json import parse_json


def foreign_file(out: Path, schemas: Iterable[Path] = (SCHEMA_PATH,)) -> str | None:
    """Why publish may not write into ``out``: its ``index.json`` (:func:`foreign_index`)
    or a ``schemas/<name>`` it would copy is a file publish did not write; ``None``:
    neither."""
    return foreign_index(out) or next(
        filter(None, (_foreign_schema(out / "schemas" / s.name, s) for s in schemas)), None)


def _foreign_schema(path: Path, ours: Path) -> str | None:
    """Why the file at ``path`` is not a copy of the schema ``ours`` publish made (any
    version: the same ``$id``), or ``None``: there is none, or it is one."""
    return _not_publishs(path, "$id", json.loads(ours.read_bytes()).get("$id"), "a schema")


def foreign_index(out: Path) -> str | None:
    """Why ``out/index.json`` is a file publish did not write (so it may not replace it),
    or ``None``: there is none, or it is a regular file holding a record index
    (:data:`INDEX_FORMAT`), as :mod:`validator.owned_folder` judges the folders ``--site``
    and ``--api-out`` replace."""
    return _not_publishs(out / INDEX, "format", INDEX_FORMAT, "an index")


def _not_publishs(path: Path, key: str, value: object, what: str) -> str | None:
    """Why ``path`` is not ``what`` publish wrote -- a JSON object whose ``key`` is
    ``value`` -- or ``None``: there is none, or it is. A link is refused by name where
    publish meets it (:class:`~validator.atomic.ConfinedFolder`)."""
    if not os.path.lexists(path) or path.is_symlink():
        return None
    if not path.is_file():
        return f"{path} is not a regular file publish wrote"
    try:
        doc = parse_json(path.read_bytes()[:64 * 2**20])
    except (OSError, ValueError):
        doc = None
    if isinstance(doc, dict) and doc.get(key) == value:
        return None
    return (f"{path} is not {what} publish wrote (no \"{key}\": \"{value}\"); "
            "publishing there would replace it (move it out, or choose another --out-dir)")
