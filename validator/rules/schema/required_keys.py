"""``SCHEMA003``: a required key is missing (emitted by :mod:`validator.schema`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

SCHEMA_REQUIRED = declare(
    "SCHEMA003",
    Severity.ERROR,
    "Required key is missing",
    """A key the format requires is absent. The finding points at the mapping that
    should hold it.

    Failing::

        variants:
          fp8: {precision: fp8}

    Passing::

        variants:
          fp8: {precision: fp8, vram_minimum_gb: 10}

    How to fix: add the missing key to the mapping the finding points at.""",
)
