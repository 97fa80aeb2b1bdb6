"""The rule registry, as check families import it.

The catalogue itself lives in :mod:`validator.rules` (outside this package, so that the
loader and schema stages can declare their rules without importing every family); this
module re-exports it for rule authors. The complete list of rules is
:mod:`validator.catalogue`.
"""

from validator.rules.metadata import (
    CONTEXT_FILES,
    FAMILIES,
    RECIPE_ONLY,
    RULES,
    CheckFn,
    Hit,
    Reads,
    Rule,
    declare,
    rule,
)

__all__ = ["CONTEXT_FILES", "FAMILIES", "RECIPE_ONLY", "RULES", "CheckFn", "Hit", "Reads",
           "Rule", "declare", "rule"]
