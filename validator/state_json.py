"""The one parser of JSON that recipe-check reads back from disk: its cache entries
(results, REF025's claims, history), the state files of its output folders (publish's
inputs manifest and ``index.json``, the catalogue's and the API folder's ownership
markers, the records publish compares), the package's compact CLI data, and the few
JSON inputs it is given (an event payload, a sources manifest, a release list).

Such a file may hold anything: truncated text, another program's bytes, or JSON nested
deeper than Python's decoder can follow (``[[[...]]]`` 200,000 deep makes
:func:`json.loads` raise :class:`RecursionError`, which is not a :class:`ValueError`).
:func:`parse_json` turns every way the text can fail to decode into :class:`NotJSON`, a
:class:`ValueError`, so each reader's existing handling of a damaged file (an entry
recomputed, a manifest ignored, a clear message and exit 2) covers all of them. What a
decoded value holds (its types) remains the reader's to check.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

ORJSON_BOUNDED = (3, 9, 15)
"""The first orjson whose ``loads`` refuses nesting past 1,024 levels; older releases
recurse without bound and crash the process (a segmentation fault, CVE-2024-27454) on
``[[[...]]]`` 200,000 deep, so they are not used to read back what may be damaged."""


@cache
def _orjson_is_bounded() -> bool:
    import orjson
    from packaging.version import InvalidVersion, Version

    try:
        return Version(orjson.__version__).release >= ORJSON_BOUNDED
    except InvalidVersion:
        return False


class NotJSON(ValueError):
    """Text that does not decode as JSON (invalid, or nested too deep to decode)."""


def parse_json(raw: bytes | str, *, fast: bool = False) -> Any:
    """The JSON value of ``raw``: decoded with orjson when ``fast`` and the installed
    orjson bounds its nesting (:data:`ORJSON_BOUNDED`; the standard library where orjson
    refuses the text, e.g. an escaped lone surrogate), else the standard library.

    Raises:
        NotJSON: ``raw`` is not JSON, is not UTF-8, or is nested too deep to decode.
    """
    if fast and _orjson_is_bounded():
        import orjson

        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(raw)
    except RecursionError:
        raise NotJSON("nested too deep to decode") from None
    except ValueError as exc:  # UnicodeDecodeError too
        raise NotJSON(str(exc)) from exc
