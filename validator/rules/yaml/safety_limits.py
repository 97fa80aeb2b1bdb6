"""``YAML007``: the document exceeds a size, depth or node limit (emitted by
:func:`validator.load.load_yaml`, :mod:`validator.load.builder` and
:mod:`validator.checker`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

YAML_LIMIT = declare(
    "YAML007",
    Severity.ERROR,
    "Document exceeds a safety limit",
    """The file is larger than the size limit, nests deeper than the depth limit, or expands
    (through aliases) to more nodes than the node limit. Such input is refused rather than
    processed ("billion laughs" alias bombs, pathological nesting). A recipe whose
    configurations (variants × hardware × strategies × feature modes) number more than
    10,000 is reported too: only the first 10,000 are rendered and judged.

    Failing::

        a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
        b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
        c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
        d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
        e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
        f: [*e, *e, *e, *e, *e, *e, *e, *e, *e]

    Passing::

        model:
          base_args: &args ["--max-model-len", "32768"]
        variants:
          fp8: {precision: fp8, vram_minimum_gb: 10, extra_args: *args}

    How to fix: write the values out, or use aliases only for small shared fragments; split
    deep nesting.""",
)
