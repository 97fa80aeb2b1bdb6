"""The complete rule list: every module that declares rules, imported here and only here.

A rule is declared in its family's folder, ``validator/rules/<family>/`` (a check with
:func:`validator.rules.api.rule`, a rule a pipeline stage emits with
:func:`validator.rules.metadata.declare`), and its fix beside it. This module imports
every module of every family folder (found on disk, so that a new module of rules or
fixes needs nothing here), so that the rule list is complete whatever else was imported,
and looks rules up by id. Nothing below this module imports it
(``validator.config``, the reporters and the fix engine read it lazily, at run time);
``tests/test_architecture.py`` checks that every module declaring a rule is in
:data:`RULE_MODULES`.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from validator.rules.metadata import RULES, Rule, source_location

FAMILY_FOLDERS: tuple[str, ...] = ("env", "flag", "guide", "hw", "prov", "rc", "ref", "schema",
                                   "ver", "yaml")
"""The families whose rules live in ``validator/rules/<family>/``."""


def _family_modules(family: str) -> tuple[ModuleType, ...]:
    """Every module of ``validator/rules/<family>/``, imported, in name order."""
    package = importlib.import_module(f"validator.rules.{family}")
    names = sorted(info.name for info in pkgutil.iter_modules(package.__path__))
    return tuple(importlib.import_module(f"{package.__name__}.{name}") for name in names)


FAMILY_MODULES: tuple[ModuleType, ...] = tuple(
    module for family in FAMILY_FOLDERS for module in _family_modules(family))
"""Every module of the family folders: rules, their fixes, and what they share."""


def _declares_rules(module: ModuleType) -> bool:
    file = source_location(module.__name__, 0).rpartition(":")[0]
    return any(r.where.rpartition(":")[0] == file for r in RULES.values())


RULE_MODULES: tuple[ModuleType, ...] = tuple(
    module for module in FAMILY_MODULES if _declares_rules(module))
"""Every module that declares rules (with :func:`~validator.rules.api.rule` or
:func:`~validator.rules.metadata.declare`)."""


def all_rules() -> list[Rule]:
    """Every rule, in id order."""
    return [r for _, r in sorted(RULES.items())]


def check_rules() -> list[Rule]:
    """The check rules (those with a function), in id order."""
    return [r for r in all_rules() if r.check is not None]


def rule_by_id(rule_id: str) -> Rule:
    """The rule ``rule_id`` (``KeyError`` when there is none)."""
    return RULES[rule_id]
