"""The ``YAML`` loader rules (YAML001-YAML014): declared here, emitted by
:mod:`validator.load` and :mod:`validator.load.builder`."""

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
YAML_AMBIGUOUS_SCALAR = declare(
    "YAML003",
    Severity.WARNING,
    "Plain scalar typed differently by YAML 1.1 and 1.2",
    """An unquoted scalar such as ``yes``, ``off``, ``0777`` or ``1:20`` is a string or a
    decimal in YAML 1.2 (js-yaml) but a boolean, octal or sexagesimal number in YAML 1.1
    (PyYAML and other 1.1 readers). Quote it. (``1_000`` and ``0b101`` are numbers in
    both: js-yaml reads ``_`` separators and ``0b`` integers.)

    Failing::

        model:
          nightly_required: yes

    Passing::

        model:
          nightly_required: true

    How to fix: write ``true``/``false`` for booleans and quote strings that look like
    something else (``"yes"``, ``"0777"``).""",
)
YAML_VERSION_FLOAT = declare(
    "YAML004",
    Severity.WARNING,
    "Version-looking number parsed as a float",
    """An unquoted ``0.10`` is the float 0.1: the trailing zero, which matters in a version,
    is lost. Version fields and any number whose text does not survive a float round trip
    should be quoted strings.

    Failing::

        model:
          min_vllm_version: 0.10

    Passing::

        model:
          min_vllm_version: "0.10"

    How to fix: quote the value so that its text is kept.""",
)
YAML_SHAPE = declare(
    "YAML005",
    Severity.ERROR,
    "Document is not a single YAML mapping",
    """A recipe, taxonomy or strategy file must hold exactly one YAML document whose root is
    a mapping. Empty files, several ``---`` documents, or a root list or scalar are
    rejected.

    Failing::

        meta: {title: "Example-Chat-8B"}
        ---
        model: {model_id: "example-org/Example-Chat-8B"}

    Passing::

        meta: {title: "Example-Chat-8B"}
        model: {model_id: "example-org/Example-Chat-8B"}

    How to fix: keep one document per file whose root is a mapping (drop the ``---``
    separators, or split the recipes into files).""",
)
YAML_ENCODING = declare(
    "YAML006",
    Severity.ERROR,
    "File is not UTF-8 text",
    """YAML files must be UTF-8 text (a byte-order mark is tolerated). Binary content and
    other encodings are rejected with the offset of the first bad byte.""",
)
YAML_BAD_TAG = declare(
    "YAML008",
    Severity.ERROR,
    "Explicit tag on a value it cannot type",
    """A scalar carries an explicit core tag (``!!int``, ``!!float``, ``!!bool``,
    ``!!null``) that js-yaml applies to its text even when quoted: ``!!int "42"`` is the
    number 42 (and is read so here), but ``!!int "4x"`` is refused and the recipes site
    cannot build the file. So is a tag on a node of another kind (js-yaml knows ``!!str``,
    ``!!int`` ... only for scalars, ``!!seq``, ``!!omap``, ``!!pairs`` only for sequences,
    ``!!map`` and ``!!set`` only for mappings: ``base_env: !!str {}``), ``!!merge`` on
    anything but ``<<``, and a ``<<`` merge key whose value is a scalar (``<<: x``) or a
    list holding one: js-yaml merges only mappings. Here such nodes are read as if
    untagged, and a scalar merge source adds nothing.

    Failing::

        vram_minimum_gb: !!int "80GB"

    Passing::

        vram_minimum_gb: 80

    How to fix: drop the tag and write the value in its own type.""",
)
YAML_UNKNOWN_TAG = declare(
    "YAML009",
    Severity.ERROR,
    "Tag that js-yaml does not know",
    """A node carries a tag outside js-yaml's default schema (the core types plus
    ``!!timestamp``, ``!!merge``, ``!!binary``, ``!!omap``, ``!!pairs``, ``!!set``): a
    local tag such as ``!secret`` or a language tag such as ``!!python/object``. js-yaml
    stops with "unknown tag", so the recipes site cannot build the file; here the value
    is read as if untagged.

    Failing::

        description: !fixme "Qwen3 served with vLLM"

    Passing::

        description: "Qwen3 served with vLLM"

    How to fix: remove the tag; YAML recipes need no custom types.""",
)
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
