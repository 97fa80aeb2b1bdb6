"""``recipe-check --fix [--unsafe-fixes] [--diff] PATH...``.

``--diff`` prints the unified diff of every fix and writes nothing (exit 1 when there is
one, as ``ruff --diff``). ``--fix`` writes each changed file atomically
(:func:`validator.atomic.replace_unchanged`, permissions kept) unless its bytes changed
since they were read (also while it is being replaced), then checks again and reports
what remains, as ``check`` does; stderr lists what was fixed and which fixable findings
were left, and why.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass
from typing import Any, TextIO

from validator.atomic import replace_unchanged
from validator.checker import RunResult
from validator.context import Settings
from validator.errors import UsageError
from validator.findings import Finding, printable
from validator.fix.engine import fix_document, unified_diff
from validator.fix.model import Applicability, DocumentFixes
from validator.fix.registry import FIXES
from validator.progress import NO_PROGRESS, Display, display_of
from validator.rules.metadata import Rule
from validator.schema import SchemaValidator
from validator.session import ConfigOf, Session
from validator.session_units import KnownUnits, Opened, unit_identity
from validator.source.local import Target
from validator.source.tree import LocalTree, SourceError
from validator.source.verify import pinning_findings
from validator.unit_cache import UnitCache

LINK_NOT_FIXED = "a symbolic link; not fixed (fix the file it points to)"
"""Why a recipe that is a symbolic link is neither fixed by ``--fix`` nor in ``--diff``'s
patch: writing it would replace the link by a file (or edit a file elsewhere)."""


def fix_targets(targets: list[Target], settings: Settings, rules: list[Rule], *,
                unsafe: bool, config: ConfigOf | None = None,
                progress: Display = NO_PROGRESS,
                known: KnownUnits | None = None,
                cache: UnitCache | None = None) -> list[DocumentFixes]:
    """Fix every target in memory (nothing is written here); the contexts and the
    configuration of each tree (``config``, as ``check`` reads it) come from the same
    :class:`~validator.session.Session` as a check's, so a finding the check does not
    report is not fixed. ``progress`` shows the targets done (on stderr, never in the
    patch; none by default). ``known`` receives the check of each fixed text (as
    ``check`` would find it in those bytes) for the check that follows the writes.
    ``cache``: the result cache of ``check``; each text the fix loop checks is a unit of
    it (the text read, each candidate fix, what a pass leaves), taken from it when
    checked before with the same inputs (by ``check``, or by an earlier ``--fix``)."""
    session = Session(settings, rules, config=config, cache=cache,
                      schema=SchemaValidator(strict=settings.strict, as_of=settings.as_of))
    out: list[DocumentFixes] = []
    bar = progress("fixing", len(targets))
    try:
        for target in targets:
            fixed = _fix_target(session, target, unsafe, known)
            if fixed is not None:
                out.append(fixed)
            bar.advance()
    finally:
        bar.close()
    return out


def _fix_target(session: Session, target: Target, unsafe: bool,
                known: KnownUnits | None = None) -> DocumentFixes | None:
    """One target fixed in memory; ``None`` (said on stderr) when it cannot be."""
    tree = target.tree
    if not isinstance(tree, LocalTree):
        raise UsageError("--fix and --diff edit local files; a pinned source spec "
                         "cannot be fixed")
    opened = session.open(tree)
    if opened is None:
        print(f"recipe-check: {target.path}: not fixed: the context of {tree.label} "
              "failed verification", file=sys.stderr)
        return None
    if target.path in opened.context_paths:
        return None
    if (tree.root / target.path).is_symlink():  # --diff shows only what --fix writes
        return DocumentFixes(target.path, b"", b"", error=LINK_NOT_FIXED)
    try:
        raw = tree.read(target.path)
    except (SourceError, FileNotFoundError) as exc:
        print(f"recipe-check: {target.path}: not fixed: {exc}", file=sys.stderr)
        return None
    units = _CachedTexts(session, opened, tree, target.path) if session.cache else None
    outcome = fix_document(raw, target.path, opened.checker, unsafe=unsafe, units=units)
    if known is not None and outcome.checked is not None:
        data = outcome.fixed
        identity = unit_identity(opened, target.path, data, tree.provenance(target.path, data))
        known[identity] = (outcome.checked.findings, outcome.checked.install_ranges)
    return outcome


@dataclass
class _CachedTexts:
    """The texts of recipe ``path`` of ``tree`` as units of the session's result cache
    (:class:`~validator.fix.engine.TextUnits`): keyed as ``check`` keys the file with
    those bytes (:meth:`~validator.session.Session.unit_key`), so either command reuses
    what the other checked. Not for a revision resolved by name (its pinning finding is
    part of the check, not of the fix loop's)."""

    session: Session
    opened: Opened
    tree: LocalTree
    path: str

    def _key(self, data: bytes) -> str:
        prov = self.tree.provenance(self.path, data)
        if pinning_findings(prov, strict=self.session.settings.strict):
            return ""
        return self.session.unit_key(self.opened, self.path, data, prov)

    def get(self, data: bytes) -> tuple[list[Finding], Any] | None:
        key = self._key(data)
        found = self.session.cache.get(key) if self.session.cache and key else None
        return None if found is None else (found.findings, found.install_ranges)

    def put(self, data: bytes, findings: list[Finding], install_ranges: Any) -> None:
        key = self._key(data)
        if self.session.cache and key:
            self.session.cache.put(key, findings, install_ranges)


def write_fixed(target: Target, outcome: DocumentFixes) -> str | None:
    """Write ``outcome.fixed`` over the file unless it changed since it was read or is a
    link; returns why it was not written, or ``None``."""
    assert isinstance(target.tree, LocalTree)
    file = target.tree.root / target.path
    if file.is_symlink():  # a link made after the fix loop read the file
        return LINK_NOT_FIXED
    try:
        if target.tree.read(target.path) != outcome.original:
            return "changed since it was read; not written"
        return replace_unchanged(file, outcome.original, outcome.fixed)
    except (OSError, SourceError) as exc:
        return f"not written: {exc}"


def report_fixes(outcomes: list[DocumentFixes], stream: TextIO, *, verb: str) -> None:
    """One line per fix and per fixable finding left, then the counts: findings gone, fixes
    applied (per rule), files changed."""
    counts: Counter[str] = Counter()
    for o in outcomes:
        path = printable(o.path)  # a line break in a file name stays on its line
        if o.error:
            print(f"{path}: {printable(o.error)}", file=stream)
        for fix in o.applied:
            counts[fix.rule] += 1
            print(f"{path}:{fix.line}: {verb} {fix.rule} ({fix.applicability.value}): "
                  f"{printable(fix.title)}", file=stream)
        for skip in o.skipped:
            print(f"{path}:{skip.line}: {skip.rule} not fixed: {printable(skip.reason)}",
                  file=stream)
    files = sum(1 for o in outcomes if o.changed and o.applied)  # not those left unwritten
    resolved = sum(o.resolved for o in outcomes if o.applied)
    per_rule = ", ".join(f"{rule} {n}" for rule, n in sorted(counts.items()))
    print(f"{verb} {resolved} finding(s) with {sum(counts.values())} fix(es) in {files} "
          "file(s)" + (f"; fixes per rule: {per_rule}" if per_rule else ""), file=stream)


def run_fix(args: argparse.Namespace, targets: list[Target], settings: Settings,
            rules: list[Rule], config: ConfigOf | None = None,
            known: KnownUnits | None = None, cache: UnitCache | None = None) -> int | None:
    """``--diff``: print the patch, return 1 when there is one (0 otherwise). ``--fix``:
    write the files and return ``None`` (the caller checks again and reports; ``known``
    receives what the fix loop found in the bytes it left, see :func:`fix_targets`;
    ``cache``: the result cache the check after the writes uses too)."""
    if args.unsafe_fixes and not (args.fix or args.diff):
        raise UsageError("--unsafe-fixes needs --fix or --diff")
    if args.fix and args.diff:
        raise UsageError("--fix writes the fixes and --diff only shows them: choose one")
    outcomes = fix_targets(targets, settings, rules, unsafe=args.unsafe_fixes, config=config,
                           progress=display_of(args), known=known, cache=cache)
    by_path = {t.path: t for t in targets}
    if args.diff:
        patch = "".join(unified_diff(o.path, o.original, o.fixed) for o in outcomes)
        sys.stdout.write(patch)
        report_fixes(outcomes, sys.stderr, verb="would fix")
        return 1 if patch else 0
    for outcome in outcomes:
        if outcome.changed:
            problem = write_fixed(by_path[outcome.path], outcome)
            if problem is not None:
                outcome.error = problem
                outcome.applied = []
    report_fixes(outcomes, sys.stderr, verb="fixed")
    return None


def remaining_note(result: RunResult, unsafe: bool) -> str | None:
    """After ``--fix`` without ``--unsafe-fixes``: how many remaining findings are of rules
    with an unsafe fix; ``None`` when there are none (the fixable findings left by the
    fixes themselves are listed, with the reason, by :func:`report_fixes`)."""
    left = [f for f in result.all_findings() if f.rule in FIXES]
    gated = [] if unsafe else [
        f for f in left if FIXES[f.rule].applicability is Applicability.UNSAFE]
    if not gated:
        return None
    return (f"{len(gated)} remaining finding(s) are of rules with an unsafe fix; "
            "--unsafe-fixes tries them (--diff shows the patch first)")
