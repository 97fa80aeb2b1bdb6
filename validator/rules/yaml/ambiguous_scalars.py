"""``YAML003``, ``YAML004``: plain scalars that YAML 1.1 and YAML 1.2 type differently, and
version-looking numbers read as floats (emitted by :mod:`validator.load.builder`; the fix
that quotes them is in :mod:`validator.rules.yaml.fixes`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

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
