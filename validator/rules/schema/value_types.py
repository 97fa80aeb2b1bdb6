"""``SCHEMA001``, ``SCHEMA002``, ``SCHEMA005``: a value of the wrong type, not one of the
allowed values, or breaking a format constraint (emitted by :mod:`validator.schema`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

SCHEMA_TYPE = declare(
    "SCHEMA001",
    Severity.ERROR,
    "Value has the wrong type",
    """A value's JSON type differs from the one the format defines (for example a list
    where a mapping is expected, or a number where a quoted string is required).

    Failing::

        variants:
          default: {precision: bf16, vram_minimum_gb: "20 GB"}

    Passing::

        variants:
          default: {precision: bf16, vram_minimum_gb: 20}

    How to fix: write the value in the type the message names (here a number of GB).""",
)


SCHEMA_ENUM = declare(
    "SCHEMA002",
    Severity.ERROR,
    "Value is not one of the allowed values",
    """A field with a closed vocabulary (difficulty, tasks, hardware status, precision,
    architecture...) holds a value outside it.

    Failing::

        meta:
          difficulty: easy

    Passing::

        meta:
          difficulty: beginner

    How to fix: use one of the allowed values the message lists.""",
)


SCHEMA_CONSTRAINT = declare(
    "SCHEMA005",
    Severity.ERROR,
    "Value breaks a format constraint",
    """A value has the right type but breaks another constraint of the format: a pattern
    (versions, dates, ids), a minimum, a length, or a combination of keys.

    Failing::

        model:
          model_id: "Example-Chat-8B"

    Passing::

        model:
          model_id: "example-org/Example-Chat-8B"

    How to fix: write the value in the form the message describes (here ``<org>/<repo>``).""",
)
