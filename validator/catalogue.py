"""The complete rule list: every module that declares rules, imported here and only here.

A rule is declared where its logic is (a check family in :mod:`validator.checks`, a stage
such as :mod:`validator.load` or :mod:`validator.schema`, or :mod:`validator.rules.prov.digests`)
with :func:`validator.rules.api.rule` or :func:`validator.rules.metadata.declare`; this
module lists
those modules statically, so that the catalogue is complete whatever else was imported,
and looks rules up by id. Nothing below this module imports it (``validator.config`` and
the reporters read it lazily, at run time); ``tests/test_architecture.py`` checks that
every module declaring a rule is in :data:`RULE_MODULES`.

Adding a rule to an existing family module needs nothing here; adding a new module of
rules means adding it to :data:`RULE_MODULES`.
"""

from __future__ import annotations

from types import ModuleType

import validator.checks.flag
import validator.checks.flag_combined
import validator.checks.flag_range
import validator.checks.guide
import validator.checks.guide_nodes
import validator.checks.guide_range
import validator.checks.guide_structured
import validator.checks.shell_words
import validator.checks.ver_claims
import validator.checks.ver_dates
import validator.checks.ver_guide
import validator.checks.ver_images
import validator.checks.ver_minimum
import validator.fix.removed
import validator.fix.safe
import validator.fix.unsafe
import validator.load.hidden
import validator.rules.env.facts
import validator.rules.hw.claims
import validator.rules.hw.fit
import validator.rules.hw.hardware_keys
import validator.rules.hw.multi_node_text
import validator.rules.hw.precision
import validator.rules.hw.vram_formula
import validator.rules.prov.digests
import validator.rules.ref.api_path
import validator.rules.ref.features_and_modes
import validator.rules.ref.shell_code
import validator.rules.ref.site_rendering
import validator.rules.yaml.invalid_yaml
import validator.schema
from validator.rules.metadata import RULES, Rule

RULE_MODULES: tuple[ModuleType, ...] = (
    validator.rules.yaml.invalid_yaml,
    validator.load.hidden,
    validator.schema,
    validator.rules.prov.digests,
    validator.rules.env.facts,
    validator.checks.flag,
    validator.checks.flag_combined,
    validator.checks.flag_range,
    validator.checks.guide,
    validator.checks.guide_nodes,
    validator.checks.guide_range,
    validator.checks.guide_structured,
    validator.rules.hw.claims,
    validator.rules.hw.fit,
    validator.rules.hw.hardware_keys,
    validator.rules.hw.precision,
    validator.rules.hw.multi_node_text,
    validator.rules.hw.vram_formula,
    validator.rules.ref.features_and_modes,
    validator.rules.ref.api_path,
    validator.rules.ref.shell_code,
    validator.rules.ref.site_rendering,
    validator.checks.shell_words,
    validator.checks.ver_claims,
    validator.checks.ver_dates,
    validator.checks.ver_guide,
    validator.checks.ver_images,
    validator.checks.ver_minimum,
)
"""Every module that declares rules (with :func:`~validator.rules.metadata.rule` or
:func:`~validator.rules.metadata.declare`)."""

FIX_MODULES: tuple[ModuleType, ...] = (
    validator.fix.removed,
    validator.fix.safe,
    validator.fix.unsafe,
)
"""Every module that declares fixes (:attr:`Rule.fix` is read from them)."""


def all_rules() -> list[Rule]:
    """Every rule, in id order."""
    return [r for _, r in sorted(RULES.items())]


def check_rules() -> list[Rule]:
    """The check rules (those with a function), in id order."""
    return [r for r in all_rules() if r.check is not None]


def rule_by_id(rule_id: str) -> Rule:
    """The rule ``rule_id`` (``KeyError`` when there is none)."""
    return RULES[rule_id]
