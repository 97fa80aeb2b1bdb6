"""``YAML012``: a tab before a comment that only js-yaml accepts (emitted by
:func:`validator.load.load_yaml`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

YAML_TAB_COMMENT = declare(
    "YAML012",
    Severity.WARNING,
    "Tab before a comment that only js-yaml accepts",
    """A comment line (or a blank line) is indented with a tab. js-yaml (the recipes site)
    skips the line and reads the file, so the site is unaffected; libyaml, and so PyYAML
    and other YAML 1.1 tools, stops there with a syntax error. The file is checked as the
    site reads it. (A tab that indents a key or a value is still
    ``YAML001``: js-yaml refuses it too.)

    Failing (``→`` is the tab; a rule description cannot hold one)::

        model:
          base_args:
            - "--trust-remote-code"
        →   # more args later
            - "--max-model-len"
            - "32768"

    Passing::

        model:
          base_args:
            - "--trust-remote-code"
            # more args later
            - "--max-model-len"
            - "32768"

    How to fix: indent the comment with spaces.""",
)
