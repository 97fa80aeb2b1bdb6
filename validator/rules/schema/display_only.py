"""``SCHEMA006``: a display-only field (the site prints it as text) not in its documented
form (emitted by :mod:`validator.schema`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

SCHEMA_DISPLAY_ONLY = declare(
    "SCHEMA006",
    Severity.WARNING,
    "Display-only field not in the documented form",
    """``model.parameter_count`` and ``model.active_parameters`` are documented as a size
    (``"8B"``, ``"2.4T"``), but the site only prints them as text, so ``"Undisclosed"`` or
    a phrase renders fine: a warning, not an error (``HW009``/``HW010`` cannot check the
    VRAM formula without a size).

    Failing::

        model:
          parameter_count: "Undisclosed"

    Passing::

        model:
          parameter_count: "8B"

    How to fix: write the size when it is known; otherwise leave the text.""",
)


#: Fields the site prints as text only: a pattern violation there is SCHEMA006.
DISPLAY_ONLY = frozenset({"/model/parameter_count", "/model/active_parameters"})
