"""``YAML014``: a number JSON cannot hold (emitted by :mod:`validator.load.builder`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

YAML_NOT_JSON_NUMBER = declare(
    "YAML014",
    Severity.ERROR,
    "Number that JSON cannot hold",
    """A number is NaN (``.nan``), infinite (``.inf``, ``-.inf``, or a float such as
    ``1e400`` past the largest double), or an integer past the largest double (±1.8e308;
    js-yaml, and so the recipes site, reads it as Infinity). JSON has no NaN or Infinity:
    the site's JSON API writes ``null`` for it, and so do the records ``record`` and
    ``publish`` write (their JSON is strict), so what the recipe states is lost on the
    way.

    Failing::

        variants:
          fp8:
            precision: fp8
            vram_minimum_gb: .inf

    Passing::

        variants:
          fp8:
            precision: fp8
            vram_minimum_gb: 80

    How to fix: write the finite number meant (or leave the key out).""",
)
