"""``YAML011``: a timestamp or binary value where the recipes site needs a string (emitted
by :mod:`validator.load.builder`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

YAML_SITE_TYPE = declare(
    "YAML011",
    Severity.ERROR,
    "Timestamp or binary value where the site needs a string",
    """An unquoted date or time (``2024-01-01``, ``2024-01-01T10:00:00Z``) or a
    ``!!binary`` value in an argument list (``base_args``, ``extra_args``, ``args``) or as
    an environment value (``base_env``, ``extra_env``, ``env``). js-yaml (the recipes site)
    does not read it as the text written: a timestamp becomes a JavaScript ``Date``, a
    ``!!binary`` value a byte array. In an argument list the site's renderer calls
    ``.startsWith`` on it and throws, so the configuration's command is not built; as an
    environment value the site prints the ``Date``'s or the bytes' text (``Mon Jan 01
    2024 00:00:00 GMT+0000 ...``, ``104,105``), not what the recipe says. A ``!!binary``
    value anywhere else is a byte array too, never text.

    Failing::

        model:
          base_args: ["--served-model-name", 2024-01-01]

    Passing::

        model:
          base_args: ["--served-model-name", "2024-01-01"]

    How to fix: quote the value (and drop a ``!!binary`` tag: write the text itself).""",
)
