"""The rule catalogue: every finding recipe-check can emit has a registered :class:`Rule`.

A rule is either a *check* (a function over a loaded recipe and its context, registered
with :func:`validator.rules.api.rule`) or a *stage rule* emitted by a pipeline stage (the
loader, the schema validator, provenance), registered with :func:`declare`. A
:class:`Hit` becomes a finding through the document it is about
(:meth:`validator.load.LoadedDocument.finding`). Ids are stable
forever once released (the conda-smithy message-catalogue model); ``recipe-check rules``
and ``docs/rules.md`` are generated from this registry.

This module imports nothing above :mod:`validator.findings`: every stage may declare
rules with it. The complete list (every module that declares rules, imported) is
:mod:`validator.rule_index`, which is where :func:`~validator.rule_index.all_rules` and
:func:`~validator.rule_index.check_rules` live.
"""

from __future__ import annotations

import enum
import inspect
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from validator.findings import Related, Severity

__all__ = ["CONTEXT_FILES", "FAMILIES", "FIXABLE", "READS_EVERYTHING", "RECIPE_ONLY",
           "RELEASE_DATA", "RULES", "TREE_PARTS", "UNDECLARED_READS", "AnyCheck", "Hit", "Reads",
           "Rule", "Severity", "declare", "declare_fix", "register", "source_location"]

FAMILIES: dict[str, str] = {
    "YAML": "parsing, duplicate keys, type ambiguity",
    "SCHEMA": "shape, types, enums",
    "REF": "references between documents",
    "HW": "hardware allowlists, precision x generation, VRAM fit",
    "VER": "minimum versions, nightly flag, docker tags, guide vs declared version",
    "FLAG": "vLLM CLI flags, values, JSON-valued flags, env vars, conflicts",
    "ENV": "vendor environment variables (NCCL, HIP/ROCr, CUDA, OpenMP, PyTorch, CANN)",
    "GUIDE": "commands and claims in the markdown guide vs the structured fields",
    "PROV": "pinning, digests, snapshots",
    "RC": "recipe-check's own configuration: suppression comments",
}



class Reads(enum.Enum):
    """A part of a rule's input besides the recipe document itself (its YAML data, source
    map and guide text are always available), declared with ``@rule(..., reads=...)``.

    The history audit keys cached results on the digests of exactly the declared parts of
    a revision (:mod:`validator.history.keys`); ``tests/test_rule_reads.py`` runs every
    rule with the undeclared parts made unreadable (:meth:`validator.context.Context.
    limited_to`) and fails when a rule reads one.
    """

    TAXONOMY = "taxonomy"
    """``taxonomy.yaml``: ``Context.taxonomy`` and what is derived from it
    (``hardware_profiles``, ``hardware_groups``)."""
    STRATEGIES = "strategies"
    """``strategies/*.yaml``: ``Context.strategies``, ``Context.strategy_data``."""
    KV_STORES = "kv_stores"
    """``kv_store/*.yaml``: ``Context.kv_stores``."""
    RECIPE_LIST = "recipe_list"
    """The paths of every recipe of the revision: ``Context.recipe_paths``."""
    TREE = "tree"
    """Any other file of the revision (sibling recipes' contents): ``Context.tree``."""
    PLATFORMS = "platforms"
    """``platforms.yaml`` (the deploy dialog's platforms): ``Context.tree``, of which only
    that file is readable."""
    VARIANT_CLAIMS = "variant_claims"
    """The ``model_id`` each recipe of the revision gives its variants: ``Context.tree``,
    of which only the recipe files are readable, and a rule declaring this may use only
    those ids of them (the history audit keys its results on them,
    :func:`validator.history.claims.variant_claims_digest`)."""
    CLI_REGISTRY = "cli_registry"
    """The vendored vLLM (and plugin) CLI registries of the run's release window
    (:mod:`validator.analysis.cli_plan`)."""
    RELEASES = "releases"
    """The vLLM release list and its publication dates (:mod:`validator.releases`)."""


READS_EVERYTHING: frozenset[Reads] = frozenset(Reads)
"""Every part."""
TREE_PARTS: frozenset[Reads] = frozenset({Reads.TREE, Reads.PLATFORMS, Reads.VARIANT_CLAIMS})
"""The parts read through ``Context.tree``: all its files, or only some of them."""
UNDECLARED_READS: frozenset[Reads] = READS_EVERYTHING - TREE_PARTS
"""What a rule without a declaration is taken to read: every part of the context and the
release data, but not the other files of the tree (no rule reads ``Context.tree``;
``tests/test_rule_reads.py`` runs undeclared rules with this set too, so one that starts
to is caught). Keeping the tree out keeps the history audit from re-running undeclared
rules at every commit."""
RECIPE_ONLY: frozenset[Reads] = frozenset()
"""The declaration of a rule that reads the recipe and nothing else."""
CONTEXT_FILES: frozenset[Reads] = frozenset({Reads.TAXONOMY, Reads.STRATEGIES,
                                             Reads.KV_STORES})
"""The data files of a revision's context (taxonomy, strategies, kv-store options)."""
RELEASE_DATA: frozenset[Reads] = frozenset({Reads.CLI_REGISTRY, Reads.RELEASES})
"""What depends on the release window rather than on the revision."""

_ID = re.compile(r"^(?P<family>[A-Z]+)(?P<number>\d{3})$")


@dataclass(frozen=True)
class Hit:
    """What a check reports; the runner turns it into a :class:`Finding`.

    Attributes:
        pointer: JSON Pointer of the offending node.
        message: what is wrong, one sentence.
        hint: what would be right.
        block_index: 0-based line inside a block scalar at ``pointer`` (guide lines).
        related: other lines the message names.
        on_key: point at the mapping key rather than its value.
        value_after: the text before the judged value inside the scalar at ``pointer``
            (``"--max-model-len="`` of the item ``--max-model-len=abc``): the finding's
            column is the first character after it (a quoted scalar's quote and ``''``
            escapes are skipped); where the file does not spell it literally at the
            scalar's start, the scalar's own column is kept.
        reason: which kind of defect of its rule the hit is, when the rule reports several
            (:attr:`~validator.findings.Finding.reason`).
        severity: the hit's severity when it is not its rule's (a defect the rule reports
            as an error where the recipe states it, and as a warning where it only
            reaches the recipe's commands from a file the recipe does not name).
        unchosen: the hit is about a list no line of the recipe chose (a KV offload
            option the site offers it unlisted), its rule's error lowered to ``severity``
            for that reason (:attr:`~validator.findings.Finding.unchosen`).
    """

    pointer: str
    message: str
    hint: str | None = None
    block_index: int | None = None
    related: tuple[Related, ...] = ()
    on_key: bool = False
    value_after: str = ""
    reason: str | None = None
    severity: Severity | None = None
    unchosen: bool = False


AnyCheck = Callable[..., Iterable[Hit]]
"""A check function as the catalogue holds it; :data:`validator.rules.api.CheckFn` is its
full type (over a loaded document and its context), which this bottom module cannot name
without importing the loader."""


@dataclass(frozen=True)
class Rule:
    """One catalogue entry.

    Attributes:
        id: ``FAMILY`` + 3 digits, e.g. ``"REF001"``.
        severity: default severity; warnings become errors under ``--strict``.
        summary: one line, used as SARIF ``shortDescription`` and in ``rules``.
        description: the full text (the check's docstring), with the upstream source of
            the rule where there is one.
        check: the function for check rules, ``None`` for stage rules.
        declared_reads: what the check reads besides the recipe (see :class:`Reads`);
            ``None`` when it did not declare it (then :attr:`reads` is
            :data:`UNDECLARED_READS`).
            Stage rules read the document only.
    """

    id: str
    severity: Severity
    summary: str
    description: str
    check: AnyCheck | None = field(default=None, compare=False)
    declared_reads: frozenset[Reads] | None = field(default=RECIPE_ONLY, compare=False)
    needs_root: bool = field(default=False, compare=False)
    """The check looks names up in the recipes root (its taxonomy, strategies, recipe
    list): it cannot judge a tree without ``taxonomy.yaml`` and is skipped there."""
    where: str = field(default="", compare=False)
    """Where the rule is declared: ``validator/<module path>.py:<line>`` (its check
    function, or the :func:`declare` call of a stage rule)."""

    @property
    def module(self) -> str:
        """The file that declares the rule, e.g. ``validator/rules/ref/model_id.py`` (its
        :attr:`where` without the line)."""
        return self.where.rpartition(":")[0]

    @property
    def reads(self) -> frozenset[Reads]:
        """The parts of the input the rule may read: its declaration, or
        :data:`UNDECLARED_READS` when it has none."""
        return UNDECLARED_READS if self.declared_reads is None else self.declared_reads

    @property
    def fix(self) -> str | None:
        """``"safe"`` or ``"unsafe"`` when the rule has a fix (see :mod:`validator.fix`),
        else ``None``."""
        return FIXABLE.get(self.id)

    @property
    def family(self) -> str:
        """The id's prefix, e.g. ``"REF"``."""
        m = _ID.match(self.id)
        assert m is not None
        return m.group("family")

    def effective_severity(self, strict: bool, severity: Severity | None = None) -> Severity:
        """``severity`` (or the hit's own ``severity``), with warnings raised to errors
        when ``strict``."""
        chosen = self.severity if severity is None else severity
        if strict and chosen is Severity.WARNING:
            return Severity.ERROR
        return chosen


RULES: dict[str, Rule] = {}

FIXABLE: dict[str, str] = {}
"""Rule id -> ``"safe"``/``"unsafe"``: the rules :mod:`validator.fix` can fix."""


def declare_fix(rule_id: str, applicability: str) -> None:
    """Record that ``rule_id`` has a fix of ``applicability`` (``"safe"``/``"unsafe"``)."""
    if applicability not in ("safe", "unsafe"):
        raise ValueError(f"bad applicability {applicability!r} for {rule_id}")
    if rule_id in FIXABLE:
        raise ValueError(f"rule {rule_id} has two fixes")
    FIXABLE[rule_id] = applicability


def register(entry: Rule) -> Rule:
    """Add ``entry`` to :data:`RULES` (its id well formed, new, and described)."""
    if not _ID.match(entry.id) or entry.family not in FAMILIES:
        raise ValueError(f"bad rule id {entry.id!r}")
    if entry.id in RULES:
        raise ValueError(f"rule {entry.id} registered twice")
    if not entry.description.strip():
        raise ValueError(f"rule {entry.id} needs a description")
    RULES[entry.id] = entry
    return entry


def source_location(module: str, line: int) -> str:
    """``validator/rules/yaml/tags.py:12`` for module ``validator.rules.yaml.tags`` and line
    12 (a package's ``__init__`` module is named as its ``__init__.py``)."""
    spec = sys.modules.get(module)
    file = getattr(spec, "__file__", None) or ""
    name = module.replace(".", "/") + (
        "/__init__.py" if file.endswith("__init__.py") else ".py")
    return f"{name}:{line}"


def declare(rule_id: str, severity: Severity, summary: str, description: str) -> Rule:
    """Register a stage rule (emitted by the loader, schema or provenance stage)."""
    caller = sys._getframe(1)
    where = source_location(caller.f_globals.get("__name__", ""), caller.f_lineno)
    return register(Rule(rule_id, severity, summary, inspect.cleandoc(description),
                          where=where))
