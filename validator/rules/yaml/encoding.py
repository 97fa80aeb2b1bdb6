"""``YAML006``: the file is not UTF-8 text (emitted by :func:`validator.load.load_yaml`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

YAML_ENCODING = declare(
    "YAML006",
    Severity.ERROR,
    "File is not UTF-8 text",
    """YAML files must be UTF-8 text (a byte-order mark is tolerated). Binary content and
    other encodings are rejected with the offset of the first bad byte.""",
)
