"""``YAML005``: the document is not a single mapping (emitted by
:func:`validator.load.load_yaml`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

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
