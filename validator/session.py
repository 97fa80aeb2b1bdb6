"""The one driver of a run: every command that checks recipes goes through a :class:`Session`.

A session holds what one run shares — the settings, the rules, the JSON Schema stage, the
configuration of each tree and the context builder — and fills one :class:`RunResult`, in
the pipeline's order: per tree its context (taxonomy, strategies, kv stores) and their
loader/schema findings, then each recipe (read and verify -> load -> schema -> rules), with
the pinning findings of its provenance, a ``PROV`` finding for bytes that failed
verification or a file that was refused, and the install ranges the rules recorded.

``check`` (:meth:`Session.check_targets`), ``pr`` at the head and at the merge base
(:meth:`Session.check_files`) use it; :meth:`Session.check_bytes` and
:meth:`Session.run_rules` serve commands that already hold the bytes or a context of
their own (``record``, ``history``). :class:`~validator.checker.Checker` stays the
per-document core the session drives.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from validator.checker import Checker, DocumentResult, RunResult
from validator.config import Config
from validator.context import PLATFORMS, Context, Settings, build_context
from validator.context_findings import relocate
from validator.errors import UsageError
from validator.findings import Finding
from validator.load import LoadedDocument, load_yaml
from validator.paths import undecodable_name
from validator.policy import Policy
from validator.progress import Progress
from validator.render.api_paths import QUICKSTART, quickstart_folder_entries
from validator.rules.metadata import Rule
from validator.rules.prov.unread_files import NOT_UTF8, REFUSED, rename_hint
from validator.rules.ref.quickstart import (
    is_quickstart_path,
    quickstart_paths,
)
from validator.schema import SchemaValidator
from validator.session_root_files import ROOT_LINKS, RootFileChecks
from validator.session_units import KnownUnits, Opened, Unit, UnitOutcome, unit_identity
from validator.source.provenance import Provenance, sha256_hex
from validator.source.tree import RecipeTree, SourceError
from validator.source.verify import (
    UNHANDLED_PATH,
    VerificationError,
    check_sha256,
    pinning_findings,
    pinning_once,
    prov_finding,
)
from validator.suppress import DirectiveKey
from validator.unit_cache import UnitCache, context_digest, tree_reads_digest
from validator.unit_pool import run_units
from validator.vllm_cli.data_source import CliRegistries

ContextBuilder = Callable[[RecipeTree, Settings, CliRegistries, OrderedDict[Any, Any]], Context]
"""Builds the context of a tree (default :func:`validator.context.build_context`) with the
run's CLI registries and store of site renderings."""

ConfigOf = Callable[[RecipeTree], Config | None]
"""The configuration that applies to a tree (``check`` reads each local root's file)."""


class Session(RootFileChecks):
    """One run over one or more trees.

    Args:
        settings: run-wide options (strict, offline, max bytes, window, rendered ...).
        rules: the rules to run before the configuration's selection (normally
            :func:`validator.rule_index.check_rules`; the session sits below the rule index).
        config: the configuration (select/ignore/per-file-ignores), or a function giving
            it per tree; ``None``: no configuration.
        schema: the JSON Schema stage (default: one for ``settings.strict``).
        build: the context builder (default :func:`~validator.context.build_context`).
        cache: the persistent cache of document units (``None``: every recipe is
            checked); see :mod:`validator.unit_cache`.
        known: units this run checked already (:data:`KnownUnits`): taken, as if just
            computed, rather than checked again.
        trusted_comments: the suppression comments that may silence findings, per path
            (``pr``'s head: the merge base's; see :class:`~validator.policy.Policy`);
            ``None``: every comment. Not with ``cache`` (a unit's key does not hold it).

    Attributes:
        result: what the run found so far.
        checked: path -> (checker, bytes) of every recipe checked (what suggested fixes
            and ``--fix`` need); later trees overwrite equal paths.
    """

    def __init__(self, settings: Settings, rules: Sequence[Rule], *,
                 config: Config | ConfigOf | None = None,
                 schema: SchemaValidator | None = None,
                 build: ContextBuilder = build_context,
                 cache: UnitCache | None = None,
                 known: KnownUnits | None = None,
                 trusted_comments: Callable[[str], frozenset[DirectiveKey]] | None = None
                 ) -> None:
        if cache is not None and trusted_comments is not None:
            raise ValueError("trusted_comments with a unit cache: a unit's key holds no "
                             "comments")
        self.settings = settings
        self.cache = cache
        self.trusted_comments = trusted_comments
        self.known = known or {}
        self.rules = list(rules)
        self.schema = schema or SchemaValidator(strict=settings.strict, as_of=settings.as_of)
        self._config = config
        self._build = build
        #: The vendored CLI registries of the run (one data source, from the settings),
        #: given to every context the session checks against.
        self.cli = CliRegistries.from_settings(settings)
        #: The site renderings of the recipe texts the run rendered last (the store of
        #: :func:`validator.render.recipe_reads.kept_table`), given to every context the
        #: session builds: a recipe's next text (``pr``'s head after its base, a fix's
        #: next candidate) reuses them where what they read is the same.
        self.renderings: OrderedDict[Any, Any] = OrderedDict()
        self._opened: dict[int, Opened | None] = {}
        self._trees: list[RecipeTree] = []  # kept alive: an id is only unique while it lives
        self.result = RunResult()
        self.checked: dict[str, tuple[Checker, bytes]] = {}
        #: The context documents checked as files (named by ``check``, changed in
        #: ``pr``), by tree: what the recipes' findings they cause move to.
        self.context_checked: dict[tuple[str | None, str | None],
                                   dict[str, LoadedDocument]] = {}

    # -- trees and their context -------------------------------------------------------

    def policy(self, tree: RecipeTree) -> Policy:
        """The rule selection and suppressions that apply to ``tree``."""
        config = self._config(tree) if callable(self._config) else self._config
        return Policy(config, strict=self.settings.strict, trusted=self.trusted_comments)

    def open(self, tree: RecipeTree, context: Context | None = None) -> Opened | None:
        """The context and checker of ``tree``, built once per tree (``context``: use this
        one instead of building it). ``None`` when the tree's context failed
        verification: its ``PROV`` finding is then the tree's only document, and nothing
        of the tree is checked."""
        key = id(tree)
        if key in self._opened:
            return self._opened[key]
        self._trees.append(tree)
        if context is None:
            try:
                context = self._build(tree, self.settings, self.cli, self.renderings)
            except VerificationError as exc:  # untrusted context: check nothing of the tree
                self.result.documents.append(DocumentResult.unverified(exc, tree.revision))
                self._opened[key] = None
                return None
        checker = Checker(context, self.rules_for(context), self.schema, self.policy(tree))
        opened = Opened(context, checker,
                        frozenset(d.path for d in context.context_documents())
                        | ({PLATFORMS, *quickstart_paths(tree.list(QUICKSTART))}
                           if context.taxonomy is not None else set()))
        if self.cache is not None:
            self.cache.attach(context)
            opened.unit_prefix = (context_digest(context), repr(checker.policy.config),
                                  tuple(r.id for r in checker.rules))
        self._opened[key] = opened
        return opened

    def rules_for(self, context: Context, rules: Sequence[Rule] | None = None) -> list[Rule]:
        """``rules`` (default: the session's) that can judge ``context``: without a
        taxonomy the tree is no recipes root, and the rules that look names up in the root
        (:attr:`~validator.rules.metadata.Rule.needs_root`) are left out."""
        chosen = self.rules if rules is None else rules
        if context.taxonomy is not None:
            return list(chosen)
        return [r for r in chosen if not r.needs_root]

    def check_context(self, tree: RecipeTree,
                      files: Iterable[tuple[str, str]] | None = None) -> None:
        """Loader and schema findings of the context documents of ``tree``.

        ``files=None`` (``check``): every taxonomy, strategy and kv-store document, each
        reported only when it has findings (a warning on stderr when there is no
        taxonomy). Given ``files``, (path, schema name) pairs (``pr``: the changed
        context files, ``"taxonomy"``, ``"strategy"`` or ``"kv_store"``), each one is
        reported, with or without findings, and with the findings of its ``vllm serve``
        argument lists; one that is unreadable or refused is reported as
        :meth:`check_recipe` does, one that is gone raises ``FileNotFoundError``.
        """
        opened = self.open(tree)
        if opened is None:
            return
        ctx, checker = opened.context, opened.checker
        if files is None:
            refused = self._check_root_links(tree)
            if ctx.taxonomy is None:
                self._warn_without_taxonomy(tree, sorted(
                    r.id for r in self.rules if r.needs_root and checker.policy.selected(r.id)),
                    refused)
            else:
                checker.check_context_document(ctx.taxonomy, "taxonomy", self.result)
            for doc in ctx.strategies.values():
                checker.check_context_document(doc, "strategy", self.result)
            for doc in ctx.kv_stores.values():
                checker.check_context_document(doc, "kv_store", self.result)
            self._check_undecodable_context(tree)
            self._check_platforms(tree, checker)
            if ctx.taxonomy is not None:
                self._check_quickstart(tree, checker)
            return
        for path, kind in files:
            if kind == "quickstart" and path in quickstart_folder_entries(tree.list(QUICKSTART)):
                self._quickstart_folder(tree, path)
                continue
            read = self._read(tree, path)
            if read is None:
                continue
            data, prov = read
            doc = self._context_document(ctx, path, data)
            findings = checker.reported(
                doc, checker.context_findings(doc, kind, self.result, args=True), data)
            self.result.documents.append(DocumentResult(path, prov, findings, kind))
            self._context_checked(prov, doc)

    def _context_checked(self, prov: Provenance, doc: LoadedDocument) -> None:
        self.context_checked.setdefault((prov.repository, prov.commit), {})[doc.path] = doc

    def _context_document(self, ctx: Context, path: str, data: bytes) -> LoadedDocument:
        """The loaded context document of ``path`` (the context's own copy when it
        loaded that file, else loaded now from ``data``)."""
        loaded = {d.path: d for d in ctx.context_documents()}
        return loaded.get(path) or load_yaml(data, path, max_bytes=self.settings.max_bytes)

    # -- recipes -----------------------------------------------------------------------

    def check_recipe(self, tree: RecipeTree, path: str) -> DocumentResult | None:
        """Read, verify and check one recipe of ``tree``; append its result.

        Returns ``None`` when nothing was checked: the tree's context is untrusted, or the
        bytes failed verification (its ``PROV`` finding is recorded) or were refused (a
        symbolic link leaving the root, a FIFO, too large: ``PROV005``).

        Raises:
            FileNotFoundError: the file is not in the tree (the command says what that
                means: a usage error in ``check``, a skipped file in ``pr``).
        """
        opened = self.open(tree)
        if opened is None:
            return None
        read = self._read(tree, path)
        if read is None:
            return None
        data, prov = read
        return self.check_bytes(opened, path, data, prov)

    def check_bytes(self, opened: Opened, path: str, data: bytes,
                    prov: Provenance) -> DocumentResult:
        """Check a recipe whose bytes and provenance are already read and verified: load ->
        schema -> rules, with the pinning findings of ``prov``; records the install
        ranges the rules found (``result.context["install_ranges"]``). With a cache, a
        unit checked before with the same inputs is answered from it."""
        unit = Unit(opened, path, data, prov, self.unit_key(opened, path, data, prov))
        cached = self._cached(unit)
        return self._settle(unit, cached or self._known(unit) or self._compute(unit),
                            fresh=cached is None)

    def _known(self, unit: Unit) -> UnitOutcome | None:
        """The unit's outcome from :attr:`known` (only without pinning findings, which
        the check adds to what the rules found)."""
        if not self.known or pinning_findings(unit.prov, strict=self.settings.strict):
            return None
        found = self.known.pop(unit_identity(unit.opened, unit.path, unit.data, unit.prov),
                               None)
        if found is None:
            return None
        findings, ranges = found
        return UnitOutcome(DocumentResult(unit.path, unit.prov, list(findings), "recipe"),
                           ranges, [])

    def _cached(self, unit: Unit) -> UnitOutcome | None:
        found = self.cache.get(unit.key) if self.cache is not None and unit.key else None
        if found is None:
            return None
        doc_result = DocumentResult(unit.path, unit.prov, found.findings, "recipe")
        return UnitOutcome(doc_result, found.install_ranges, [])

    def _compute(self, unit: Unit) -> UnitOutcome:
        """Check one unit (in this process or a worker); changes nothing of the run."""
        scratch = RunResult()
        doc_result = unit.opened.checker.check_recipe(
            unit.path, unit.data, unit.prov, scratch,
            extra=pinning_findings(unit.prov, strict=self.settings.strict))
        ranges = scratch.install_ranges.get(unit.path)
        return UnitOutcome(doc_result, ranges, scratch.internal_errors)

    def _settle(self, unit: Unit, outcome: UnitOutcome, *, fresh: bool,
                slot: int | None = None) -> DocumentResult:
        """Record a unit's outcome in the run (at ``slot`` of the documents, else last);
        keep a ``fresh`` one in the cache unless a rule crashed on it."""
        self.result.internal_errors += outcome.crashes
        if fresh:
            self._keep(unit, outcome)
        if slot is None:
            self.result.documents.append(outcome.result)
        else:
            self.result.documents[slot] = outcome.result
        self.checked[unit.path] = (unit.opened.checker, unit.data)
        if outcome.ranges is not None:
            self.result.context.setdefault("install_ranges", {})[unit.path] = outcome.ranges
        return outcome.result

    def _keep(self, unit: Unit, outcome: UnitOutcome) -> None:
        """Store a freshly computed unit in the cache (each entry written atomically),
        unless a rule crashed on it: at once, so an interrupted run keeps what it did."""
        if self.cache is not None and unit.key and not outcome.crashes:
            self.cache.put(unit.key, outcome.result.findings, outcome.ranges)

    def unit_key(self, opened: Opened, path: str, data: bytes, prov: Provenance) -> str:
        """The cache key of checking ``data`` as ``path`` in ``opened`` ("" without a
        cache)."""
        if self.cache is None or opened.unit_prefix is None:
            return ""
        context, policy, rules = opened.unit_prefix
        tree = tree_reads_digest(opened.context, rules, path, data)
        return self.cache.key(f"{context}\0{tree}", policy, rules, path, sha256_hex(data), prov)

    def run_rules(self, context: Context, doc: LoadedDocument,
                  rules: Sequence[Rule] | None = None) -> list[Finding]:
        """Findings of ``rules`` (default: the session's, after its policy's selection)
        on an already loaded document against ``context`` (no schema, no suppression
        comments); a crashing rule goes to ``result.internal_errors``. ``context`` was
        built with the session's CLI registries (:attr:`cli`) or its own."""
        checker = Checker(context, self.rules_for(context, rules), self.schema,
                          self.policy(context.tree))
        scratch = RunResult()  # the install ranges it records are no report's here
        found = checker.run_rules(doc, scratch)
        self.result.internal_errors += scratch.internal_errors
        return found

    def unhandled(self, tree: RecipeTree, path: str, why: str, what: str = "changed file",
                  hint: str | None = None) -> DocumentResult:
        """A changed file (``what``) that cannot be checked (``PROV006``: not a UTF-8 path
        ...): one error, so the run fails rather than passing it by. ``hint``: default,
        rename the file in its folder."""
        doc_result = DocumentResult(
            path, Provenance(path, "", "", commit=tree.revision),
            [prov_finding(UNHANDLED_PATH.id, path, f"{what} not checked: {why}",
                          hint or (rename_hint(path) if NOT_UTF8 in why else None))])
        self.result.documents.append(doc_result)
        return doc_result

    def _read(self, tree: RecipeTree, path: str) -> tuple[bytes, Provenance] | None:
        """The bytes and provenance of ``path``, or ``None`` with the reason recorded
        (failed verification: its ``PROV`` finding; refused: ``PROV005``)."""
        try:
            data = tree.read(path)
            prov = tree.provenance(path, data)
            for sha, origin in getattr(tree, "expected", {}).get(path, ()):
                check_sha256(prov, sha, origin)  # a local file named with --expect-sha256
            return data, prov
        except VerificationError as exc:  # untrusted bytes: report, check nothing else
            self.result.documents.append(DocumentResult.unverified(exc, tree.revision))
        except SourceError as exc:  # refused (link leaving the root, FIFO, too large)
            self.result.documents.append(DocumentResult.refused(path, exc, tree.revision))
        return None

    # -- the two command loops -----------------------------------------------------------

    def check_targets(self, targets: Iterable[tuple[RecipeTree, str]],
                      jobs: int = 1, progress: Progress | None = None) -> RunResult:
        """``check``: each (tree, path) against the context of its own tree, the tree's
        context documents reported before its first recipe; a path that is one of the
        tree's context documents is not checked again as a recipe. With ``jobs`` > 1 the
        recipes not in the cache are checked on that many processes
        (:func:`validator.unit_pool.run_units`); the result is the same, in the same
        order. ``progress`` counts the targets done.

        Raises:
            UsageError: a path is not in its tree.
        """
        deferred: list[tuple[int, Unit]] | None = [] if jobs > 1 else None
        advance = progress.advance if progress is not None else (lambda _n=1: None)
        self._visit_targets(targets, deferred, advance)
        if deferred:
            units = [u for _slot, u in deferred]
            outcomes = run_units(self._compute, units, jobs, done=advance,
                                 arrived=lambda i, outcome: self._keep(units[i], outcome))
            for (slot, unit), outcome in zip(deferred, outcomes, strict=True):
                self._settle(unit, outcome, fresh=False, slot=slot)  # kept as it arrived
            ranges = self.result.context.get("install_ranges")
            if ranges:  # in the order of the documents, as one job records them
                self.result.context["install_ranges"] = {
                    d.path: ranges[d.path] for d in self.result.documents if d.path in ranges}
        relocate(self.result, self.context_checked)
        pinning_once([d.findings for d in self.result.documents])
        return self.result

    def _defer(self, tree: RecipeTree, path: str, deferred: list[tuple[int, Unit]]) -> bool:
        """Read ``path`` and answer it from the cache, or hold its place in the documents
        for a worker (``deferred``: (slot, unit) pairs); whether it was deferred."""
        opened = self.open(tree)
        read = self._read(tree, path) if opened is not None else None
        if opened is None or read is None:
            return False
        data, prov = read
        unit = Unit(opened, path, data, prov, self.unit_key(opened, path, data, prov))
        cached = self._cached(unit)
        if cached is not None:
            self._settle(unit, cached, fresh=False)
            return False
        known = self._known(unit)
        if known is not None:
            self._settle(unit, known, fresh=True)
            return False
        deferred.append((len(self.result.documents), unit))
        self.result.documents.append(DocumentResult(path, prov, [], "recipe"))  # its place
        return True

    def _visit_targets(self, targets: Iterable[tuple[RecipeTree, str]],
                       deferred: list[tuple[int, Unit]] | None,
                       advance: Callable[[], None]) -> None:
        named: dict[int, set[str]] = {}  # per tree: context documents named as targets
        for tree, path in targets:
            if not self._visit_target(tree, path, deferred, named):
                advance()  # else counted when a worker has checked it

    def _visit_target(self, tree: RecipeTree, path: str,
                      deferred: list[tuple[int, Unit]] | None,
                      named: dict[int, set[str]]) -> bool:
        """One target of :meth:`check_targets`; whether it was left to a worker."""
        first = id(tree) not in self._opened
        opened = self.open(tree)
        if opened is None:
            return False
        if first:
            self.check_context(tree)
        if path.split("/", 1)[0] in ROOT_LINKS and any(
                d.path == path and [f.rule for f in d.findings] == [REFUSED.id]
                for d in self.result.documents):
            return False  # a link leaving the root, refused with the root (PROV005)
        if (escaped := undecodable_name(path)) is not None:  # as pr reports it (PROV006)
            if not any(d.path == escaped for d in self.result.documents):  # a quickstart
                self.unhandled(tree, escaped, NOT_UTF8, "file")
            return False
        if path in opened.context_paths:
            done = named.setdefault(id(tree), set())
            if path not in done:
                done.add(path)
                self._named_context_document(tree, opened, path)
            return False
        try:
            if deferred is not None:
                return self._defer(tree, path, deferred)
            self.check_recipe(tree, path)
        except FileNotFoundError as exc:
            raise UsageError(f"{path}: not found in {tree.label}") from exc
        return False

    def _named_context_document(self, tree: RecipeTree, opened: Opened, path: str) -> None:
        """The result of a context document named as a target: its loader and schema
        findings (in place of what :meth:`check_context` reported of it) and those of its
        ``vllm serve`` argument lists; a clean one is reported too, as a file checked."""
        read = self._read(tree, path)
        if read is None:
            return
        ctx = opened.context
        kind = ("taxonomy" if ctx.taxonomy is not None and ctx.taxonomy.path == path
                else "platforms" if path == PLATFORMS
                else "quickstart" if is_quickstart_path(path)
                else "kv_store" if path in {d.path for d in ctx.kv_stores.values()}
                else "strategy")
        doc = self._context_document(ctx, path, read[0])
        findings = opened.checker.reported(
            doc, opened.checker.context_findings(doc, kind, self.result, args=True), read[0])
        result = DocumentResult(path, read[1], findings, kind)
        self._context_checked(read[1], doc)
        for i, earlier in enumerate(self.result.documents):
            if earlier.path == path and earlier.checked == kind:
                self.result.documents[i] = result
                return
        self.result.documents.append(result)

    def check_files(self, tree: RecipeTree, recipes: Iterable[str],
                    context_files: Iterable[tuple[str, str]] = (),
                    unhandled: Iterable[tuple[str, str]] = (),
                    where: str = "the head") -> list[tuple[str, str]]:
        """``pr`` (head and merge base alike): the ``unhandled`` changed files (path, why)
        as ``PROV006``, each of ``context_files`` ((path, schema name), see
        :meth:`check_context`) and each of ``recipes``, in that order. Returns (path, why)
        of the files that are gone from ``tree`` (``where`` names it in the reason)."""
        gone: list[tuple[str, str]] = []
        for path, why in unhandled:
            self.unhandled(tree, path, why)
        for path, kind in context_files:
            try:
                self.check_context(tree, [(path, kind)])
            except FileNotFoundError as exc:
                gone.append((path, f"not readable at {where}: {exc}"))
        for path in recipes:
            try:
                self.check_recipe(tree, path)
            except FileNotFoundError as exc:
                gone.append((path, f"not readable at {where}: {exc}"))
        relocate(self.result, self.context_checked)
        return gone
