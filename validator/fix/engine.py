"""The fix loop of one document: check, compute the fixes of its findings, verify and
apply them, check again, until nothing more applies (ruff's loop).

Every pass applies at most one fix per file line and only fixes whose edits do not
overlap. A fix is kept only when the edited text loads (with the loader every check
uses) to exactly the data the fix intends: the old data with the fix's changes and
nothing else, keys in the same order, types included; and ruamel.yaml, a second parser,
must read it so too (:mod:`validator.fix.second_reader`). A safe fix must bring no new
finding, an unsafe one no new error (checked by running every rule on the edited text).
:func:`suggested_patch` is the same loop as a unified diff, for reports that show the
patch of some findings.
"""

from __future__ import annotations

import bisect
import codecs
import difflib
import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import validator.rule_index  # noqa: F401  (imports every module that declares a fix)
from validator.checker import Checker, RunResult
from validator.findings import Finding, Severity
from validator.fix import second_reader
from validator.fix.model import (
    Applicability,
    DocumentFixes,
    Fix,
    Skip,
    TextIndex,
    apply_edits,
    expected_data,
    through_aliases,
)
from validator.fix.registry import FIXES, FixRequest
from validator.fix.spans import NotApplicable
from validator.load import LoadedDocument, load_yaml

MAX_PASSES = 10
"""Passes of the loop; each pass needs a finding that is still there and fixable."""

_FATAL = ("YAML001", "YAML002", "YAML005", "YAML006", "YAML007")


@dataclass
class Checked:
    """One text of a document checked as ``check`` reports it: through
    :meth:`~validator.checker.Checker.document_findings`, so a finding the run's
    configuration or the document's own suppression comments remove is never fixed."""

    doc: LoadedDocument
    findings: list[Finding]
    """Every finding (sorted; shared: never changed in place)."""
    install_ranges: Any
    """The install ranges the rules recorded (``None``: none)."""
    crashed: bool
    """Whether a rule crashed on it (then it is checked again when asked again, as the
    crash is said on stderr each time)."""


def document_findings(checker: Checker, doc: LoadedDocument) -> list[Finding]:
    """Every finding ``checker`` reports on ``doc``, as ``check`` reports it."""
    return check_document(checker, doc).findings


def check_document(checker: Checker, doc: LoadedDocument) -> Checked:
    """``doc`` checked by ``checker`` (see :class:`Checked`)."""
    scratch = RunResult()
    findings = checker.document_findings(doc, doc.text.encode("utf-8"), scratch)
    return Checked(doc, findings, scratch.install_ranges.get(doc.path),
                   bool(scratch.internal_errors))


class TextUnits(Protocol):
    """Checks of the texts of one recipe kept by content across runs (``--fix``: the
    result cache of ``check``, :mod:`validator.unit_cache`): the findings and install
    ranges of checking ``data`` as ``check`` checks a file of those bytes."""

    def get(self, data: bytes) -> tuple[list[Finding], Any] | None:
        """What checking ``data`` found, when kept; else ``None``."""

    def put(self, data: bytes, findings: list[Finding], install_ranges: Any) -> None:
        """Keep what checking ``data`` found (no rule crashed on it)."""


def _dump(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, allow_nan=True)


class _Document:
    """The text being fixed, with its loaded form. Each text (the one read, each candidate
    edit, the text a pass leaves) is loaded and checked once: the check of a candidate
    fix is the next pass's check of the text it leaves."""

    def __init__(self, raw: bytes, path: str, checker: Checker,
                 units: TextUnits | None = None) -> None:
        self.bom = raw.startswith(codecs.BOM_UTF8)
        self.path = path
        self.checker = checker
        self.units = units
        self._loaded: dict[str, LoadedDocument] = {}
        self._checked: dict[str, Checked] = {}
        self._second: dict[str, Any] = {}
        self.doc = load_yaml(raw, self.path, max_bytes=self.checker.context.settings.max_bytes)
        self.text = self.doc.text
        self._loaded[self.text] = self.doc
        self.index = TextIndex(self.text)

    def load(self, text: str) -> LoadedDocument:
        """``text`` (edited) loaded, once per text."""
        doc = self._loaded.get(text)
        if doc is None:
            doc = load_yaml(self.encode(text), self.path,
                            max_bytes=self.checker.context.settings.max_bytes)
            self._loaded[text] = doc
        return doc

    def read_second(self, text: str) -> Any | None:
        """``text`` as ruamel.yaml reads it (:func:`second_reader.read`), once per text."""
        if text not in self._second:
            self._second[text] = second_reader.read(text)
        return self._second[text]

    def check(self, text: str) -> Checked:
        """``text`` loaded and checked, once per text (unless a rule crashed on it)."""
        found = self._checked.get(text)
        if found is None:
            found = self._check_unit(self.load(text))
            if not found.crashed:
                self._checked[text] = found
        return found

    def _check_unit(self, doc: LoadedDocument) -> Checked:
        """``doc`` checked, or what :attr:`units` kept of checking its bytes. Only where
        ``doc`` was loaded from exactly the bytes the check judges (``doc.text`` encoded:
        no BOM), so that a kept check is exactly this check."""
        data = doc.text.encode("utf-8")
        units = self.units if self.units is not None and \
            hashlib.sha256(data).hexdigest() == doc.sha256 else None
        kept = units.get(data) if units is not None else None
        if kept is not None:
            return Checked(doc, kept[0], kept[1], False)
        found = check_document(self.checker, doc)
        if units is not None and not found.crashed:
            units.put(data, found.findings, found.install_ranges)
        return found

    def encode(self, text: str) -> bytes:
        return (codecs.BOM_UTF8 if self.bom else b"") + text.encode("utf-8")

    def why_not(self, fixes: Sequence[Fix]) -> str | None:
        """``None`` when ``fixes`` applied together load as intended, else why not."""
        try:
            new_text = apply_edits(self.text, [e for f in fixes for e in f.edits])
        except ValueError:
            return "its edits overlap"
        new = self.load(new_text)
        fatal = [f for f in new.findings if f.rule in _FATAL]
        if fatal or not new.ok:
            return "the edited file would not load" + (f" ({fatal[0].message})" if fatal else "")
        changes = through_aliases(self.doc, [c for f in fixes for c in f.changes])
        try:
            want = expected_data(self.doc.data, changes)
        except (KeyError, IndexError, TypeError, ValueError):
            return "the data the fix intends cannot be computed"
        if _dump(new.data) != _dump(want):
            return "the edited file would load as other data than intended"
        return second_reader.disagrees(self.text, new_text, changes, self.read_second)

    def new_findings(self, fixes: Sequence[Fix], findings: Sequence[Finding]) -> str | None:
        """Why ``fixes`` (applied together) are refused: the findings they would bring
        that no fix of their own removes in the next pass (a raised minimum makes an image
        tag too old: the tag's fix follows); ``None`` when they bring none. A finding is
        new when ``findings`` has none of its rule, pointer and message (versions aside).
        Safe fixes may bring no new finding at all; with an unsafe one no new error (it
        changes what users get, so a guide stating the old version, say, is a warning it
        may leave)."""
        checked = self.check(apply_edits(self.text, [e for f in fixes for e in f.edits]))
        edited, after = checked.doc, checked.findings
        unsafe = any(f.applicability is Applicability.UNSAFE for f in fixes)
        counted = (Severity.ERROR,) if unsafe else tuple(Severity)
        had = Counter(_finding_key(f) for f in findings if f.severity in counted)
        new: list[Finding] = []
        for f in after:
            key = _finding_key(f)
            if f.severity not in counted:
                continue
            if had[key] > 0:
                had[key] -= 1
            elif not self.fixable(edited, f, after):
                new.append(f)
        if not new:
            return None
        what = "error" if unsafe else "finding"
        return (f"it would bring {len(new)} new {what}(s), e.g. {new[0].rule} "
                f"{new[0].message[:160]}")

    def fixable(self, doc: LoadedDocument, finding: Finding,
                findings: Sequence[Finding]) -> bool:
        """Whether ``finding`` of ``doc`` has a fix that computes (not yet verified)."""
        spec = FIXES.get(finding.rule)
        if spec is None:
            return False
        try:
            spec.make(FixRequest(doc, TextIndex(doc.text), finding, findings,
                                 self.checker.context))
        except NotApplicable:
            return False
        return True

    def apply(self, fixes: Sequence[Fix]) -> None:
        self.text = apply_edits(self.text, [e for f in fixes for e in f.edits])
        self.doc = self.load(self.text)
        self.index = TextIndex(self.text)


_VERSION = re.compile(r"\d+(?:\.\d+)+(?:(?:a|b|rc)\d+)?(?:\.post\d+)?")


def _finding_key(finding: Finding) -> tuple[str, str, str]:
    """What makes a finding "the same" before and after a fix (a raised minimum): rule,
    pointer and the message with its version numbers blanked ("... minimum is #")."""
    return finding.rule, finding.pointer, _VERSION.sub("#", finding.message)


def _lines(index: TextIndex, fix: Fix) -> set[int]:
    out: set[int] = set()
    for edit in fix.edits:
        first = _line_of(index, edit.start)
        last = _line_of(index, max(edit.start, edit.end - 1))
        out.update(range(first, last + 1))
    return out


def _line_of(index: TextIndex, offset: int) -> int:
    return bisect.bisect_right(index.starts, offset)


def fix_document(raw: bytes, path: str, checker: Checker, *, unsafe: bool = False,
                 select: Callable[[Finding], bool] | None = None,
                 units: TextUnits | None = None) -> DocumentFixes:
    """Fix ``raw`` (the bytes of recipe ``path``) as far as the fixes allow.

    Args:
        raw: the file's bytes.
        path: its display path (repository-relative; ``REF001`` and ``REF019`` read it).
        checker: the checker of the document's revision (context and rules).
        unsafe: apply unsafe fixes too.
        select: fix only the findings it accepts (of the document as read; later passes
            fix what those fixes leave of the same rules, never a finding it refused).
        units: where checks of the recipe's texts are kept across runs (none: each text
            is checked once in this call).

    Returns:
        The outcome; ``fixed`` is ``raw`` when nothing applied or the file does not load.
    """
    work = _Document(raw, path, checker, units)
    result = DocumentFixes(path, raw, raw)
    if not work.doc.ok:
        problem = work.doc.findings[0].message if work.doc.findings else "not a mapping"
        result.error = f"not fixed: the file does not load ({problem})"
        return result
    rules: set[str] | None = None
    left_alone: Counter[tuple[str, str, str]] = Counter()
    checked = work.check(work.text)
    findings = checked.findings
    initial = Counter((f.rule, f.pointer) for f in findings)
    for passes in range(MAX_PASSES + 1):
        wanted = [f for f in findings if f.rule in FIXES and (
            unsafe or FIXES[f.rule].applicability is Applicability.SAFE)]
        if select is not None:
            if rules is None:
                left_alone = Counter(_finding_key(f) for f in wanted if not select(f))
                wanted = [f for f in wanted if select(f)]
                rules = {f.rule for f in wanted}
            else:  # what the selected fixes left (a split item's flag), not the others
                wanted = [f for f in wanted if f.rule in rules
                          and not left_alone[_finding_key(f)]]
        skipped: list[Skip] = []
        chosen = _choose(work, wanted, findings, skipped)
        result.skipped = skipped  # those of the last pass: the findings left
        if not chosen or passes == MAX_PASSES:  # the last pass only says what is left
            break
        if len(chosen) > 1 and (work.why_not(chosen) is not None
                                or work.new_findings(chosen, findings) is not None):
            chosen = chosen[:1]  # verified alone; together they interact: one per pass
        work.apply(chosen)
        result.applied += chosen
        checked = work.check(work.text)
        findings = checked.findings
    result.fixed = work.encode(work.text)
    if not checked.crashed and checked.doc.text.encode("utf-8") == result.fixed:
        result.checked = checked  # what check finds in the bytes it leaves
    if result.applied:
        result.resolved = sum((initial - Counter((f.rule, f.pointer) for f in findings)).values())
    return result


def _choose(work: _Document, wanted: list[Finding], findings: list[Finding],
            skipped: list[Skip]) -> list[Fix]:
    """The fixes of one pass, verified one by one, no two on one line; the findings whose
    fix does not apply go to ``skipped`` with the reason."""
    chosen: list[Fix] = []
    keys: set[tuple[tuple[int, int, str], ...]] = set()
    used: set[int] = set()
    for finding in wanted:
        spec = FIXES[finding.rule]
        request = FixRequest(work.doc, work.index, finding, findings, work.checker.context)
        try:
            fix = spec.make(request)
            if fix.key in keys:
                continue  # one edit fixing several findings (a raised minimum)
            lines = _lines(work.index, fix)
            if lines & used:
                continue  # the next pass, on the text this one leaves
            problem = work.why_not([fix])
            if problem is None:
                problem = work.new_findings([fix], findings)
            if problem is not None:
                raise NotApplicable(problem)
        except NotApplicable as exc:
            skipped.append(Skip(finding.rule, finding.line, str(exc)))
            continue
        except Exception as exc:  # a bug in one fix must not stop the others
            skipped.append(Skip(finding.rule, finding.line,
                                f"internal error in the fix of {finding.rule}: {exc!r}"))
            continue
        keys.add(fix.key)
        used |= lines
        chosen.append(fix)
    return chosen


_C_ESCAPES = {0x07: "\\a", 0x08: "\\b", 0x09: "\\t", 0x0a: "\\n", 0x0b: "\\v",
              0x0c: "\\f", 0x0d: "\\r", 0x22: '\\"', 0x5c: "\\\\"}
"""The C escapes git writes in a quoted path (the other bytes to quote as octal)."""


def diff_name(name: str) -> str:
    """``name`` as git writes a path in a diff header: as it is when it is printable ASCII
    without ``"`` or ``\\``; else in double quotes with C escapes and each other byte
    of its UTF-8 as octal (``"a/x\\n+++ b.yaml"``), which ``git apply`` and GNU
    ``patch`` read back, so a line break in a file name cannot begin a header or hunk of
    its own."""
    data = name.encode("utf-8", "surrogateescape")
    if all(0x20 <= b < 0x7f and b not in _C_ESCAPES for b in data):
        return name
    return '"' + "".join(_C_ESCAPES.get(b) or (chr(b) if 0x20 <= b < 0x7f else f"\\{b:03o}")
                         for b in data) + '"'


def unified_diff(path: str, before: bytes, after: bytes) -> str:
    """A ``git apply``-able unified diff of one file (``a/PATH``, ``b/PATH``); ``""`` when
    the bytes are equal. Line endings (and a BOM) are kept as they are in the file."""
    if before == after:
        return ""
    # lines end at LF only, as patch and git apply read them (not at the other characters
    # str.splitlines breaks at: a form feed in a guide is not a line break to git)
    old = [ln for ln in re.split(r"(?<=\n)", before.decode("utf-8")) if ln]
    new = [ln for ln in re.split(r"(?<=\n)", after.decode("utf-8")) if ln]
    # as git, a tab after a name holding a space (where GNU patch's name ends)
    tab = "\t" if " " in path else ""
    lines = list(difflib.unified_diff(old, new, diff_name(f"a/{path}") + tab,
                                      diff_name(f"b/{path}") + tab))
    return "".join(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n"
                   for ln in lines)


def suggested_patch(checker: Checker, path: str, raw: bytes, findings: Iterable[Finding], *,
                    unsafe: bool = False) -> str:
    """The unified diff that fixes ``findings`` of document ``path`` (matched by rule,
    pointer and message), or ``""`` when none of them has a fix that applies.

    For reports that show the patch of some findings (the PR job summary shows the patch
    of the new ones): ``checker`` is the checker that found them, ``raw`` the bytes it
    checked."""
    wanted = {(f.rule, f.pointer, f.message) for f in findings}
    if not wanted:
        return ""
    outcome = fix_document(raw, path, checker, unsafe=unsafe,
                           select=lambda f: (f.rule, f.pointer, f.message) in wanted)
    return unified_diff(path, outcome.original, outcome.fixed)
