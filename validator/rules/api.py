"""What a check module imports: the :func:`rule` decorator, the type of a check function
(:data:`CheckFn`) and, re-exported from :mod:`validator.rules.metadata`, what a check
returns (:class:`Hit`) and declares (:class:`Reads`, :class:`Severity`).

A check is a function over a loaded recipe and its :class:`~validator.context.Context`
that yields :class:`Hit` objects; the runner turns each into a finding at the hit's
pointer. This module sits above :mod:`validator.load` and :mod:`validator.context` (it
names their types); the stages below them declare their rules with
:func:`validator.rules.metadata.declare` instead.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable

from validator.context import Context
from validator.load import LoadedDocument
from validator.rules.metadata import (
    CONTEXT_FILES,
    FAMILIES,
    RECIPE_ONLY,
    RULES,
    Hit,
    Reads,
    Rule,
    Severity,
    register,
    source_location,
)

__all__ = ["CONTEXT_FILES", "FAMILIES", "RECIPE_ONLY", "RULES", "CheckFn", "Hit", "Reads",
           "Rule", "Severity", "rule"]

CheckFn = Callable[[LoadedDocument, Context], Iterable[Hit]]
"""A check: the recipe document and its context -> what is wrong with it."""


def rule(rule_id: str, severity: Severity, summary: str, *,
         reads: frozenset[Reads] | None = None,
         needs_root: bool = False) -> Callable[[CheckFn], CheckFn]:
    """Decorator registering a check function; its docstring is the rule's description.

    ``reads``: what the check reads besides the recipe (:data:`RECIPE_ONLY` for nothing).
    Every rule declares it (``tests/test_rule_reads.py`` refuses a rule that does not,
    and proves the declarations true); an undeclared rule is treated as reading
    :data:`UNDECLARED_READS`. ``needs_root``: see :attr:`Rule.needs_root`.
    """
    if reads is not None and not isinstance(reads, frozenset):
        raise TypeError(f"rule {rule_id}: reads must be a frozenset of Reads")

    def wrap(fn: CheckFn) -> CheckFn:
        register(Rule(rule_id, severity, summary, inspect.cleandoc(fn.__doc__ or ""), fn,
                       reads, needs_root,
                       source_location(fn.__module__, fn.__code__.co_firstlineno)))
        return fn

    return wrap
