"""Every check rule declares what it reads (``@rule(..., reads=...)``), and the
declarations are true: each rule is run on the recipes of corpus ``main`` with a context
whose undeclared parts raise (:meth:`validator.context.Context.limited_to`), the CLI
registries and the release list made unreadable unless declared."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn, cast

import pytest

from tests.shared_run import shared_result
from validator.analysis import stated_versions as ver_model
from validator.context import Context, Settings, UndeclaredRead, build_context
from validator.findings import Severity
from validator.load import LoadedDocument, load_yaml
from validator.render.cache import rendered_configurations, share_renderings
from validator.render.renderer import Rendered
from validator.rule_index import check_rules
from validator.rules.api import rule
from validator.rules.metadata import UNDECLARED_READS, Reads, Rule
from validator.schema import SchemaValidator
from validator.source.tree import LocalTree
from validator.vllm_cli.data_source import CliRegistries

UNDECLARED_FOR_NOW: tuple[str, ...] = ()
"""Modules whose rules are not declared yet (none: the FLAG and GUIDE rules declare theirs
in :mod:`validator.rules.flag.facts` and :mod:`validator.rules.guide.facts`)."""


class _ClosedRegistries:
    """CLI registries that refuse to be read: every path into them goes through the
    context's ``cli`` (the look-ups of :mod:`validator.analysis.cli_plan` are given it)."""

    def __getattr__(self, name: str) -> NoReturn:
        raise UndeclaredRead("read CLI_REGISTRY (the vLLM CLI registries of the release "
                             "window) without declaring Reads.CLI_REGISTRY")


def _no_release_list(*_args: Any, **_kwargs: Any) -> NoReturn:
    raise UndeclaredRead("read RELEASES (the vLLM release list) without declaring "
                         "Reads.RELEASES")


@contextmanager
def only(reads: frozenset[Reads], monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The release list readable only when ``reads`` says so (the CLI registries:
    :func:`limited_context`)."""
    with monkeypatch.context() as patch:
        if Reads.RELEASES not in reads:
            import validator.releases as releases

            for module, name in ((ver_model, "load_release_list"), (releases, "load_release_list"),
                                 (releases, "load_vendored")):
                patch.setattr(module, name, _no_release_list)
        yield


def limited_context(ctx: Context, reads: frozenset[Reads]) -> Context:
    """``ctx`` with only ``reads`` readable, and its own memo: nothing a rule of other
    reads derived. Without ``Reads.CLI_REGISTRY`` its CLI registries refuse every read."""
    limited = ctx.limited_to(reads)
    if Reads.CLI_REGISTRY not in reads:
        limited.cli = cast(CliRegistries, _ClosedRegistries())
    return limited


def run_limited(rules: list[Rule], docs: list[LoadedDocument], ctx: Context,
                monkeypatch: pytest.MonkeyPatch, *, first_only: bool = False
                ) -> dict[str, list[str]]:
    """Run ``rules`` (all declaring the same reads) on ``docs`` with only those parts
    readable: each rule's undeclared reads as ``"<path>: <message>"``. The rules share
    one limited context, so what one derives from the declared parts (a rendering, a
    hardware view) the next reuses: a value in its memo was computed from those parts
    only, or it would have raised. ``first_only``: stop at the first undeclared read."""
    (reads,) = {r.reads for r in rules}
    limited = limited_context(ctx, reads)
    problems: dict[str, list[str]] = {r.id: [] for r in rules}
    with only(reads, monkeypatch):
        for doc in docs:
            for r in rules:
                assert r.check is not None
                try:
                    list(r.check(doc, limited))
                except UndeclaredRead as exc:
                    problems[r.id].append(f"{doc.path}: {exc}")
                    if first_only:
                        return problems
    return problems


RENDER_INPUTS = frozenset({Reads.TAXONOMY, Reads.STRATEGIES, Reads.KV_STORES})
"""What a rendering reads besides the recipe (``render_all`` is given the taxonomy and the
strategies with their kv stores, never the context): the history audit's contexts that may
read all of it share their renderings (:data:`validator.history.worker.RENDER_INPUTS`)."""


def run_every_declaration(docs: list[LoadedDocument], ctx: Context) -> dict[str, list[str]]:
    """Every check rule run on ``docs`` as :func:`run_limited` runs it: the rules declaring
    the same reads in one limited context of their own (its own memo). One document at a
    time, each group in turn: the groups that may read every input of a rendering
    (:data:`RENDER_INPUTS`) share the document's renderings (:func:`share_renderings`, as
    the history audit's contexts of rule groups do), made first in a context that can read
    exactly those inputs -- a rendering that reads anything else raises there. A group
    rendered the whole corpus again before (three groups: 4.7, 3.8 and 3.7 s of CPU)."""
    groups: dict[frozenset[Reads], list[Rule]] = {}
    for r in check_rules():
        if r.check is not None:
            groups.setdefault(r.reads, []).append(r)
    store: OrderedDict[str, list[Rendered]] = OrderedDict()
    renders = limited_context(ctx, RENDER_INPUTS)
    share_renderings(renders, store)
    limited = {reads: limited_context(ctx, reads) for reads in groups}
    for reads, group_ctx in limited.items():
        if reads >= RENDER_INPUTS:
            share_renderings(group_ctx, store)
    problems: dict[str, list[str]] = {r.id: [] for rules in groups.values() for r in rules}
    for doc in docs:
        with pytest.MonkeyPatch.context() as monkeypatch, only(RENDER_INPUTS, monkeypatch):
            rendered_configurations(doc, renders)
        for reads, rules in groups.items():
            with pytest.MonkeyPatch.context() as monkeypatch, only(reads, monkeypatch):
                for r in rules:
                    assert r.check is not None
                    try:
                        list(r.check(doc, limited[reads]))
                    except UndeclaredRead as exc:
                        problems[r.id].append(f"{doc.path}: {exc}")
    return problems


def load_main_recipes(repo: Path) -> tuple[Context, list[LoadedDocument]]:
    """The context of corpus ``main`` and its recipes that load and pass the schema (the
    checker runs the rules on those only)."""
    tree = LocalTree(repo)
    ctx = build_context(tree, Settings())
    schema = SchemaValidator()
    docs = []
    for path in sorted(ctx.recipe_paths):
        doc = load_yaml(tree.read(path), path)
        if doc.ok and not any(f.severity is Severity.ERROR
                              for f in schema.validate(doc, "recipe")):
            docs.append(doc)
    assert len(docs) > 100
    return ctx, docs


@pytest.fixture(scope="module")
def main_recipes(corpus_repo: Path) -> tuple[Context, list[LoadedDocument]]:
    """:func:`load_main_recipes` of the session's corpus clone, once per module."""
    return load_main_recipes(corpus_repo)


@pytest.fixture(scope="module")
def undeclared_reads(main_recipes: tuple[Context, list[LoadedDocument]],
                     tmp_path_factory: pytest.TempPathFactory) -> Callable[[Rule], list[str]]:
    """The undeclared reads of a rule on corpus ``main``: one instrumented run over the
    corpus for every rule (:func:`run_every_declaration`), once per pytest run, whichever
    worker asks first (:func:`tests.shared_run.shared_result`)."""
    ctx, docs = main_recipes

    def of(r: Rule) -> list[str]:
        return shared_result(tmp_path_factory, "rule reads on corpus main, every rule",
                             lambda: run_every_declaration(docs, ctx))[r.id]

    return of


def test_every_rule_declares_what_it_reads() -> None:
    undeclared = [r.id for r in check_rules() if r.declared_reads is None
                  and r.check is not None and r.check.__module__ not in UNDECLARED_FOR_NOW]
    assert undeclared == []


def test_an_undeclared_rule_reads_everything() -> None:
    r = Rule("REF999", Severity.INFO, "x", "a rule without a reads declaration",
             declared_reads=None)
    assert r.declared_reads is None and r.reads == UNDECLARED_READS


def test_reads_must_be_a_frozenset() -> None:
    with pytest.raises(TypeError, match="frozenset"):
        rule("REF999", Severity.INFO, "x", reads={Reads.TAXONOMY})  # type: ignore[arg-type]


@pytest.mark.parametrize("rule_id", [r.id for r in check_rules() if r.check is not None])
def test_declaration_is_true_on_corpus_main(
        rule_id: str, undeclared_reads: Callable[[Rule], list[str]]) -> None:
    r = next(r for r in check_rules() if r.id == rule_id)
    assert undeclared_reads(r) == [], f"{rule_id} reads {sorted(p.name for p in r.reads)}"


def test_the_guard_catches_each_undeclared_part(
        main_recipes: tuple[Context, list[LoadedDocument]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The test above can fail: with its declaration emptied, each rule that reads a part
    is caught reading it, for every part some rule declares."""
    ctx, docs = main_recipes
    caught: set[Reads] = set()
    for r in check_rules():
        if r.declared_reads is None or not r.reads or r.reads <= caught:
            continue
        for part in sorted(r.reads - caught, key=lambda p: p.value):
            narrowed = Rule(r.id, r.severity, r.summary, r.description, r.check,
                            r.reads - {part})
            found = run_limited([narrowed], docs, ctx, monkeypatch, first_only=True)
            if any(f"Reads.{part.name}" in p for p in found[r.id]):
                caught.add(part)
    declared = {p for r in check_rules() if r.declared_reads for p in r.reads}
    assert caught == declared
