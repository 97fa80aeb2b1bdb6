"""The checker core: load -> schema -> rules, for one document at a time.

Like check-jsonschema's checker, it is given its collaborators (the schema validator, the
rules, the context) and knows nothing of argument parsing or output formats.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import sys
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from validator.analysis.install_range import described_ranges
from validator.context import Context
from validator.findings import MAX_FINDINGS_PER_RULE, Finding, Severity, count_by_severity
from validator.identity import with_identities
from validator.load import LoadedDocument, load_yaml
from validator.policy import Policy
from validator.render.api_paths import QUICKSTART
from validator.render.cache import recent_renderings
from validator.render.renderer import CONFIGURATION_LIMIT
from validator.rules.flag.context_files import context_arg_findings, context_shell_findings
from validator.rules.hw.profile_memory import PROFILE_MEMORY, profile_memory_hits
from validator.rules.metadata import Hit, Rule
from validator.rules.ref.context_names import NAME_CLAIM, name_claim_hits
from validator.rules.ref.platform_ids import duplicate_platform_hits
from validator.rules.ref.quickstart import quickstart_hits, quickstart_paths
from validator.rules.ref.site_rendering import context_count_hits
from validator.rules.yaml.document_shape import YAML_SHAPE
from validator.rules.yaml.safety_limits import YAML_LIMIT
from validator.schema import SchemaValidator
from validator.source.provenance import Provenance
from validator.source.tree import SourceError
from validator.source.verify import REFUSED, VerificationError


@dataclass
class DocumentResult:
    """Findings for one document, with the provenance of its bytes.

    ``findings`` are sorted by (path, line, column, rule).
    """

    path: str
    provenance: Provenance
    findings: list[Finding]
    checked: str = "recipe"
    fixed: list[Finding] = field(default_factory=list)
    """PR mode: findings of this document at the merge base that the change removed."""
    hidden: list[Finding] = field(default_factory=list)
    """PR mode: findings of the merge base the head no longer reports without fixing them
    (suppressed at the head, or the head's file does not load): not counted as fixed."""

    @property
    def sha256(self) -> str:
        """Hex SHA-256 of the document's bytes."""
        return self.provenance.sha256

    @classmethod
    def unverified(cls, exc: VerificationError, revision: str | None) -> DocumentResult:
        """The result of a document whose bytes failed verification: its ``PROV`` finding
        only (nothing else is checked in untrusted bytes), with the digests of the bytes
        that failed when known and the revision they were read at."""
        prov = exc.actual or Provenance(exc.path, "", "")
        prov = dataclasses.replace(prov, commit=prov.commit or revision)
        return cls(exc.path, prov, [exc.finding()])

    @classmethod
    def refused(cls, path: str, exc: Exception, revision: str | None) -> DocumentResult:
        """The result of a file that was not read (a symbolic link leaving the root, a
        FIFO, a file too large; ``exc`` says which): one ``PROV005`` error at line 1, so
        the run fails rather than passing the file by (the same in check and PR mode)."""
        finding = Finding(rule=REFUSED.id, severity=REFUSED.severity, path=path, pointer="",
                          line=1, column=1, message=f"not read: {exc}",
                          hint="replace the link or special file by the recipe itself")
        return cls(path, Provenance(path, "", "", commit=revision), [finding])


JUDGED_TEXTS = 512
"""How many texts' findings a checker keeps (:meth:`Checker.document_findings`): more
than the recipes of one ``pr`` run (its suggested patches start from each)."""

_Judged = tuple[tuple[Finding, ...], Any]
"""The findings of a text and the install ranges its rules recorded (``None``: none)."""


def _text_key(doc: LoadedDocument, data: bytes | None) -> tuple[str, str, str, str] | None:
    """What a checker's findings of ``doc`` depend on besides the checker: its path, the
    bytes it was loaded from, what the loader found (its limits and options decide that,
    and the data beside it) and ``data`` (the suppression comments); ``None`` for a
    document built by hand (no digest)."""
    if not doc.sha256:
        return None
    return (doc.path, doc.sha256, repr(doc.findings),
            "" if data is None else hashlib.sha256(data).hexdigest())


@dataclass
class RunResult:
    """Everything one run found.

    Attributes:
        documents: per-document results, in the order checked.
        context: run-level facts for reports (revision, data sources and their digests).
        internal_errors: messages of checks that crashed (a bug in recipe-check; exit 2).
        fail_on: ``"all"``: any error fails the run; ``"new"``: only errors whose
            ``baseline`` is not ``"unchanged"`` do (PR mode, errors already at the base
            are reported but do not fail).
    """

    documents: list[DocumentResult] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)
    internal_errors: list[str] = field(default_factory=list)
    fail_on: str = "all"
    user_changes: Any = None
    """PR mode: a :class:`validator.pr.user_changes.UserChanges` for the job summary."""
    suggested_patches: dict[str, str] = field(default_factory=dict)
    """PR mode: path -> unified diff of the fixes of that document's new findings (only
    the safe fixes; see :func:`validator.fix.suggested_patch`), for the job summary."""
    install_ranges: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Path -> the install ranges of each recipe the rules ran on
    (:meth:`Checker.run_rules`); the session puts those of the recipes it reports in
    ``context["install_ranges"]``."""

    def all_findings(self) -> list[Finding]:
        """Every finding of every document."""
        return [f for d in self.documents for f in d.findings]

    def summary(self) -> dict[str, int]:
        """``{"documents": n, "errors": n, "warnings": n, "infos": n}``."""
        return {"documents": len(self.documents), **count_by_severity(self.all_findings())}

    def has_baseline(self) -> bool:
        """Whether the findings were compared with a base revision (PR mode)."""
        return "baseline" in self.context

    def baseline_counts(self) -> dict[str, int]:
        """``{"new": n, "existing": n, "fixed": n}`` over every document, and ``"hidden"``
        (:attr:`DocumentResult.hidden`) when there are any."""
        found = self.all_findings()
        return {"new": sum(f.baseline == "new" for f in found),
                "existing": sum(f.baseline == "unchanged" for f in found),
                "fixed": sum(len(d.fixed) for d in self.documents),
                **({"hidden": hidden} if (hidden := sum(len(d.hidden)
                                                        for d in self.documents)) else {})}

    def failing(self) -> list[Finding]:
        """The errors that fail the run under :attr:`fail_on`."""
        errors = [f for f in self.all_findings() if f.severity is Severity.ERROR]
        if self.fail_on == "new":
            return [f for f in errors if f.baseline != "unchanged"]
        return errors

    @property
    def exit_code(self) -> int:
        """0 no failing errors, 1 errors found (see :attr:`fail_on`), 2 a check crashed."""
        if self.internal_errors:
            return 2
        return 1 if self.failing() else 0


class Checker:
    """Runs the pipeline on documents of one :class:`Context`.

    Args:
        context: taxonomy, strategies and settings of the revision being checked.
        rules: check rules to run (normally :func:`validator.rule_index.check_rules`).
        schema: the JSON Schema stage.
    """

    def __init__(self, context: Context, rules: Sequence[Rule], schema: SchemaValidator,
                 policy: Policy | None = None) -> None:
        self.policy = policy or Policy(strict=context.settings.strict)
        self.context = context
        self.rules = [r for r in rules if self.policy.selected(r.id)]
        self.schema = schema
        self._judged_texts: OrderedDict[tuple[str, str, str, str], _Judged] = OrderedDict()

    def check_recipe(self, path: str, data: bytes, provenance: Provenance,
                     result: RunResult, extra: Sequence[Finding] = ()) -> DocumentResult:
        """Load, validate and run every rule on one recipe's bytes; append to ``result``
        (with ``extra`` findings about the document found elsewhere, e.g. pinning)."""
        doc = load_yaml(data, path, max_bytes=self.context.settings.max_bytes)
        findings = self.document_findings(doc, data, result, extra)
        return self._add(result, path, provenance, findings, "recipe", None)

    def document_findings(self, doc: LoadedDocument, data: bytes | None, result: RunResult,
                          extra: Sequence[Finding] = ()) -> list[Finding]:
        """The findings of one loaded recipe as reported: loader, schema, every selected
        rule and the configuration bound, then the run's policy (severities, selection,
        per-file ignores and the suppression comments of ``data``, the document's bytes).

        Every command that judges a recipe (check, pr, history, record, ``--fix`` and
        ``--diff``) goes through here, so none can see a finding the others suppress.

        Judged once per content: the findings of a text (path, the bytes loaded,
        ``data``; no ``extra``) this checker judged before without a crash are its
        findings again, with the install ranges recorded then (``pr`` checks a head
        recipe, then its suggested patch starts from the same text). The checker's
        context, rules and policy are fixed, so nothing else enters them."""
        key = _text_key(doc, data) if not extra else None
        known = self._judged_texts.get(key) if key is not None else None
        if known is None:
            scratch = RunResult()  # the crashes and ranges of this text alone
            found = self._judge(doc, data, scratch, extra)
            known = (tuple(found), scratch.install_ranges.get(doc.path))
            result.internal_errors += scratch.internal_errors
            if key is not None and not scratch.internal_errors:
                self._judged_texts[key] = known
                while len(self._judged_texts) > JUDGED_TEXTS:
                    self._judged_texts.popitem(last=False)
        elif key is not None:
            self._judged_texts.move_to_end(key)
        findings, ranges = known
        if ranges is not None:
            result.install_ranges[doc.path] = ranges
        return list(findings)

    def _judge(self, doc: LoadedDocument, data: bytes | None, result: RunResult,
               extra: Sequence[Finding]) -> list[Finding]:
        findings = list(doc.findings) + list(extra)
        if self._judged(doc):
            findings += self.schema.validate(doc, "recipe")
            findings += self.run_rules(doc, result)
            findings += configuration_limit(doc, self.context)  # before it is forgotten
            self.context.forget_document(doc.path, doc.sha256)  # its rules are done
        findings = with_identities(self.policy.apply(doc.path, findings, data), doc.data,
                                   doc.source_map)
        return sorted(findings, key=Finding.sort_key)

    def _judged(self, doc: LoadedDocument) -> bool:
        """Whether the schema and the rules judge ``doc``: its data loaded, and, for a
        file of several documents (the first one is loaded), ``YAML005`` is not an error
        of this run. Then that one error stands for the file, as for any file that does
        not load; demoted or ignored, the first document is judged rather than passed
        unread."""
        return doc.ok and not any(
            f.rule == YAML_SHAPE.id and self.policy.keep(doc.path, f.rule)
            and self.policy.severity(f) is Severity.ERROR for f in doc.findings)

    def run_rules(self, doc: LoadedDocument, result: RunResult) -> list[Finding]:
        """Findings of every rule on a loaded recipe; a crashing rule is recorded in
        ``result.internal_errors`` and the others still run. The rules see the releases
        of the settings' window (``--as-of``, ``--vllm``) in the context's CLI registries
        (``context.cli``). The document's install ranges go to ``result.install_ranges``
        (:func:`~validator.analysis.install_range.described_ranges`) whichever rules are
        selected."""
        found = self._run_rules(doc, result)
        try:  # a report field: recorded whichever rules ran (--ignore FLAG too)
            ranges = described_ranges(doc, self.context)
        except Exception as exc:  # a bug must not hide the findings
            msg = f"internal error recording the install ranges of {doc.path}: {exc!r}"
            print(f"recipe-check: {msg}", file=sys.stderr)
            result.internal_errors.append(msg)
        else:
            if ranges is not None:
                result.install_ranges[doc.path] = ranges
        return found

    def _run_rules(self, doc: LoadedDocument, result: RunResult) -> list[Finding]:
        strict = self.context.settings.strict
        out: list[Finding] = []
        for rule in self.rules:
            assert rule.check is not None
            try:
                hits = itertools.islice(rule.check(doc, self.context), MAX_FINDINGS_PER_RULE + 1)
                found = [doc.finding(rule, hit, strict=strict) for hit in hits]
                if len(found) > MAX_FINDINGS_PER_RULE:
                    # a hostile document must not make the report unbounded
                    found[-1] = dataclasses.replace(
                        found[-1], message=f"more {rule.id} findings in this file are not "
                        f"shown (at most {MAX_FINDINGS_PER_RULE} per rule)", hint=None,
                        related=())
                out.extend(found)
            except Exception as exc:  # a bug in a rule must not hide the other findings
                msg = f"internal error in rule {rule.id} on {doc.path}: {exc!r}"
                print(f"recipe-check: {msg}", file=sys.stderr)
                result.internal_errors.append(msg)
        return out

    def context_findings(self, doc: LoadedDocument, schema_name: str, result: RunResult,
                         *, args: bool) -> list[Finding]:
        """The loader and schema findings of a taxonomy/strategy/kv-store file (before the
        run's policy); with ``args`` also those of its ``vllm serve`` argument lists
        (:mod:`validator.rules.flag.context_files`), judged at the settings' release window;
        without, still the ``REF018`` findings of the values it adds to the commands.
        A crash of the argument check goes to ``result.internal_errors``."""
        settings = self.context.settings
        if schema_name == "quickstart":  # no schema: the site reads one field of it
            return list(doc.findings) + [
                doc.finding(rule, hit, strict=settings.strict)
                for rule, hit in quickstart_hits(doc, self._quickstart_documents(),
                                                 self._hardware_ids())]
        findings = list(doc.findings) + self.schema.validate(doc, schema_name)
        if not doc.ok:
            return findings
        if schema_name in ("strategy", "kv_store"):
            findings += [doc.finding(NAME_CLAIM, hit, strict=settings.strict)
                         for hit in name_claim_hits(doc, self.context)]
        if schema_name == "taxonomy":
            findings += [doc.finding(PROFILE_MEMORY, hit, strict=settings.strict)
                         for hit in profile_memory_hits(doc)]
        rules = {r.id: r for r in self.rules}
        if schema_name == "platforms" and "REF026" in rules:
            findings += [doc.finding(rules["REF026"], hit, strict=settings.strict)
                         for hit in duplicate_platform_hits(doc.data)]
        if "REF014" in rules:  # a count expanded past the bound: always on the file
            findings += [doc.finding(rules["REF014"], hit, strict=settings.strict)
                         for hit in context_count_hits(schema_name, doc.data)]
        if not args:  # shell code it adds to the commands is always judged on the file
            return findings + context_shell_findings(doc, schema_name, rules,
                                                     strict=settings.strict)
        try:
            findings += context_arg_findings(self.context.cli, doc, schema_name, rules,
                                             strict=settings.strict)
        except Exception as exc:  # a bug in a check must not hide the other findings
            msg = f"internal error checking the arguments of {doc.path}: {exc!r}"
            print(f"recipe-check: {msg}", file=sys.stderr)
            result.internal_errors.append(msg)
        return findings

    def _quickstart_documents(self) -> list[LoadedDocument]:
        """The quickstart files of the context's tree, loaded (in the build's order)."""
        tree = self.context.tree
        max_bytes = self.context.settings.max_bytes
        out = []
        for path in quickstart_paths(tree.list(QUICKSTART)):
            try:
                out.append(load_yaml(tree.read(path), path, max_bytes=max_bytes))
            except (OSError, SourceError):
                continue  # refused or gone: reported when that file itself is checked
        return out

    def _hardware_ids(self) -> list[str] | None:
        """The taxonomy's hardware ids, ``None`` without a taxonomy."""
        return None if self.context.taxonomy is None else list(self.context.hardware_profiles)

    def check_context_document(self, doc: LoadedDocument, schema_name: str,
                               result: RunResult) -> None:
        """Report the findings of a taxonomy/strategy/kv-store/platforms file (loader,
        schema, its ``vllm serve`` argument lists, shown commands and links), only when it
        has any (a clean context file adds no document to the output)."""
        findings = self.context_findings(doc, schema_name, result, args=True)
        if findings:
            tree = self.context.tree
            data = tree.read(doc.path)
            prov = tree.provenance(doc.path, data)
            findings = self.reported(doc, findings, data)
            if findings:
                self._add(result, doc.path, prov, findings, schema_name, None)

    def reported(self, doc: LoadedDocument, findings: list[Finding], data: bytes
                 ) -> list[Finding]:
        """The findings of a context document (:meth:`context_findings`) as a run reports
        them: after the run's policy (its selection, suppressions in ``data`` and
        severities), each with its identity (:func:`validator.identity.with_identities`:
        what ``pr`` matches with the merge base's, so that a list item inserted before
        another does not make the latter's findings new), in report order."""
        kept = self.policy.apply(doc.path, findings, data)
        return sorted(with_identities(kept, doc.data, doc.source_map), key=Finding.sort_key)

    def _add(self, result: RunResult, path: str, provenance: Provenance,
             findings: list[Finding], kind: str, data: bytes | None) -> DocumentResult:
        """Append the document's findings, after the run's configuration and the
        document's suppression comments (``data``; ``None`` when already applied)."""
        if data is not None:
            findings = self.policy.apply(path, findings, data)
        findings.sort(key=Finding.sort_key)
        doc_result = DocumentResult(path, provenance, findings, kind)
        result.documents.append(doc_result)
        return doc_result


def configuration_limit(doc: LoadedDocument, ctx: Context) -> list[Finding]:
    """``YAML007`` when the renderings of ``doc`` the rules made stopped at
    :data:`~validator.render.renderer.MAX_CONFIGURATIONS` (none when no rule rendered it)."""
    for rendered in recent_renderings(doc, ctx):
        for problem in rendered.problems:
            if problem.code == CONFIGURATION_LIMIT:
                return [doc.finding(YAML_LIMIT, Hit("", problem.message, (
                    "split the recipe, or drop variants, strategies or feature modes the "
                    "site need not offer")))]
    return []
