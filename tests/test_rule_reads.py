"""Every check rule declares what it reads (``@rule(..., reads=...)``), and the
declarations are true: each rule is run on the recipes of corpus ``main`` with a context
whose undeclared parts raise (:meth:`validator.context.Context.limited_to`), the CLI
registries and the release list made unreadable unless declared."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

from validator.catalogue import check_rules
from validator.checks import cli_plan, ver_model
from validator.context import Context, Settings, UndeclaredRead, build_context
from validator.findings import Severity
from validator.load import LoadedDocument, load_yaml
from validator.rules import UNDECLARED_READS, Reads, Rule, rule
from validator.schema import SchemaValidator
from validator.source.tree import LocalTree

UNDECLARED_FOR_NOW: tuple[str, ...] = ()
"""Modules whose rules are not declared yet (none: the FLAG and GUIDE rules declare theirs
in :mod:`validator.checks.flag_model` and :mod:`validator.checks.guide_model`)."""


@dataclass(frozen=True)
class _ClosedWindow(cli_plan.Window):
    """A release window that refuses to be read: every path into the CLI registries asks
    :func:`validator.checks.cli_plan.window` first."""

    def __bool__(self) -> bool:
        raise UndeclaredRead("read CLI_REGISTRY (the vLLM CLI registries of the release "
                             "window) without declaring Reads.CLI_REGISTRY")


def _no_release_list(*_args: Any, **_kwargs: Any) -> NoReturn:
    raise UndeclaredRead("read RELEASES (the vLLM release list) without declaring "
                         "Reads.RELEASES")


@contextmanager
def only(reads: frozenset[Reads], monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The CLI registries and the release list readable only when ``reads`` says so."""
    with monkeypatch.context() as patch:
        if Reads.RELEASES not in reads:
            import validator.releases as releases

            for module, name in ((ver_model, "load_release_list"), (releases, "load_release_list"),
                                 (releases, "load_vendored")):
                patch.setattr(module, name, _no_release_list)
        if Reads.CLI_REGISTRY in reads:
            yield
        else:
            with cli_plan.release_window(_ClosedWindow()):
                yield


def run_limited(r: Rule, docs: list[LoadedDocument], ctx: Context,
                monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Run ``r`` on ``docs`` with only its declared parts readable: the undeclared reads
    as ``"<path>: <message>"``."""
    assert r.check is not None
    limited = ctx.limited_to(r.reads)  # its own memo: nothing another rule derived
    problems = []
    with only(r.reads, monkeypatch):
        for doc in docs:
            try:
                list(r.check(doc, limited))
            except UndeclaredRead as exc:
                problems.append(f"{doc.path}: {exc}")
    return problems


@pytest.fixture(scope="module")
def main_recipes(corpus_repo: Path) -> tuple[Context, list[LoadedDocument]]:
    """The context of corpus ``main`` and its recipes that load and pass the schema (the
    checker runs the rules on those only)."""
    tree = LocalTree(corpus_repo)
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
        rule_id: str, main_recipes: tuple[Context, list[LoadedDocument]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    ctx, docs = main_recipes
    r = next(r for r in check_rules() if r.id == rule_id)
    problems = run_limited(r, docs, ctx, monkeypatch)
    assert problems == [], f"{rule_id} reads {sorted(p.name for p in r.reads)}"


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
            found = run_limited(narrowed, docs, ctx, monkeypatch)
            if any(f"Reads.{part.name}" in p for p in found):
                caught.add(part)
    declared = {p for r in check_rules() if r.declared_reads for p in r.reads}
    assert caught == declared
