"""``YAML002``: a mapping repeats a key (emitted by :mod:`validator.load.builder`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

YAML_DUPLICATE_KEY = declare(
    "YAML002",
    Severity.ERROR,
    "Duplicate mapping key",
    """A mapping repeats a key. YAML 1.2 forbids it and js-yaml (the recipes site) rejects
    the file, while PyYAML silently keeps the last value, so the two readers disagree.

    Failing::

        meta:
          hardware:
            h100: verified
            b200: verified
            h100: supported

    Passing::

        meta:
          hardware:
            h100: verified
            b200: verified

    How to fix: keep one of the entries (the site would refuse the file; PyYAML keeps the
    last).""",
)
