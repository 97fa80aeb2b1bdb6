"""What a :class:`~validator.session.Session` checks: a tree it has opened
(:class:`Opened`: the tree's context and the checker over it), one recipe of such a tree
(:class:`Unit`: its bytes, provenance and cache key) and what checking that recipe gave
(:class:`UnitOutcome`). A unit is checked in the session's process or in a forked worker
(:func:`validator.unit_pool.run_units`) and its outcome recorded by the session; a unit
another session of the run checked already (``--fix``'s loop) is handed over by its
:func:`unit_identity` (:data:`KnownUnits`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from validator.checker import Checker, DocumentResult
from validator.context import Context
from validator.findings import Finding
from validator.source.provenance import Provenance, sha256_hex
from validator.unit_cache import context_digest

KnownUnits = dict[tuple[str, ...], tuple[list[Finding], Any]]
"""Units another session of the run already checked: :func:`unit_identity` -> (findings
as reported, install ranges recorded). ``--fix`` hands its final check what its loop
found in the bytes it left."""


@dataclass
class Opened:
    """A tree the session has built the context of: the context, the checker over it,
    and the paths of its context documents (never checked as recipes)."""

    context: Context
    checker: Checker
    context_paths: frozenset[str]
    unit_prefix: tuple[str, str, tuple[str, ...]] | None = None
    """With a cache: what every unit key of the tree shares (context digest, policy,
    the ids of the rules run)."""


@dataclass
class Unit:
    """One recipe to check: its tree, path, verified bytes and provenance, and its cache
    key ("" without a cache)."""

    opened: Opened
    path: str
    data: bytes
    prov: Provenance
    key: str


@dataclass
class UnitOutcome:
    """What checking a unit gave: its result, the install ranges its rules recorded and
    the messages of rules that crashed on it."""

    result: DocumentResult
    ranges: Any
    crashes: list[str]


def unit_identity(opened: Opened, path: str, data: bytes,
                  prov: Provenance) -> tuple[str, ...]:
    """What decides the findings of checking ``data`` as ``path`` in ``opened`` within one
    run (the unit cache's key without the run-wide parts): the context's digest, the
    policy, the rules run, the path, the bytes' digest and the provenance."""
    return (context_digest(opened.context), repr(opened.checker.policy.config),
            ",".join(r.id for r in opened.checker.rules), path, sha256_hex(data), repr(prov))
