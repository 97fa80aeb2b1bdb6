"""``YAML008``, ``YAML009``: explicit tags (``!!int``, ``!custom``) that cannot type their value
or that js-yaml does not know (emitted by :mod:`validator.load.builder`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

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
