"""``YAML001``: the file is not YAML (emitted by :func:`validator.load.load_yaml`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

YAML_INVALID = declare(
    "YAML001",
    Severity.ERROR,
    "File is not valid YAML",
    """The file could not be parsed as YAML. The finding gives libyaml's problem and the
    line and column where it was detected; nothing else is checked in that file.

    Failing::

        model:
          base_args: ["--max-model-len", "32768"
        variants: {}

    Passing::

        model:
          base_args: ["--max-model-len", "32768"]
        variants: {}

    How to fix: correct the syntax at the line and column given (an unclosed bracket or
    quote, a tab, a misaligned key).""",
)
