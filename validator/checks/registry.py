"""The check API, as the check families still in this package import it.

It is :mod:`validator.rules.api` (the :func:`rule` decorator, :class:`Hit`, :class:`Reads`)
re-exported, until these families move to ``validator/rules/<family>/``; new rule modules
import :mod:`validator.rules.api` directly.
"""

from validator.rules.api import (
    CONTEXT_FILES,
    FAMILIES,
    RECIPE_ONLY,
    RULES,
    CheckFn,
    Hit,
    Reads,
    Rule,
    rule,
)

__all__ = ["CONTEXT_FILES", "FAMILIES", "RECIPE_ONLY", "RULES", "CheckFn", "Hit", "Reads",
           "Rule", "rule"]
