"""``SCHEMA004``: a key the schema does not know (emitted by :mod:`validator.schema`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

SCHEMA_UNKNOWN_KEY = declare(
    "SCHEMA004",
    Severity.WARNING,
    "Unknown key",
    """A mapping holds a key the format does not define: often a typo, sometimes a newer
    format than this tool knows. A warning, or an error under ``--strict``.

    Failing::

        variants:
          default: {supported_hardwares: [h100, b200]}

    Passing::

        variants:
          default: {supported_hardware: [h100, b200]}

    How to fix: correct the key's spelling, or remove it if this format has no such field.""",
)
