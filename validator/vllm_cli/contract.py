"""The contract between the extraction subprocess and :mod:`validator.vllm_cli.extract`.

``_introspect.py`` runs inside the release's own source tree (a separate ``python -I``
process) and writes one JSON document; :func:`validator.vllm_cli.extract.build_snapshot`
turns it into the vendored snapshot. The document's shape is the JSON Schema
``schemas/introspection.schema.json`` (shipped with the package, see
:mod:`validator.paths`). :func:`check_dump` holds every dump to it, so a change on
one side that the other does not follow fails with a message naming the JSON Pointer of
each violation, never with a ``KeyError`` in the middle of building a snapshot.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from jsonschema import Draft202012Validator

from validator.errors import RecipeCheckError
from validator.paths import SCHEMAS_DIR

#: JSON Schema of what ``_introspect.py`` writes and ``build_snapshot`` reads.
DUMP_SCHEMA = SCHEMAS_DIR / "introspection.schema.json"
#: How many violations a message lists.
SHOWN = 5


class ContractError(RecipeCheckError, ValueError):
    """An introspection dump does not satisfy :data:`DUMP_SCHEMA`."""


@functools.cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(DUMP_SCHEMA.read_text(encoding="utf-8")))


def _pointer(path: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path) or "/"


def check_dump(data: Any, where: str) -> dict[str, Any]:
    """``data`` when it satisfies :data:`DUMP_SCHEMA`; else :class:`ContractError` naming
    ``where``, the number of violations and the first :data:`SHOWN` by JSON Pointer."""
    found = sorted(_validator().iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    if found:
        lines = [f"  {_pointer(e.absolute_path)}: {e.message[:300]}" for e in found[:SHOWN]]
        if len(found) > SHOWN:
            lines.append(f"  ... and {len(found) - SHOWN} more")
        raise ContractError(
            f"{where}: the output breaks the extraction contract ({DUMP_SCHEMA.name}), "
            f"{len(found)} violation(s):\n" + "\n".join(lines))
    assert isinstance(data, dict)  # the schema's top-level "type": "object"
    return data
