"""A run holds bounded state: a recipe's per-document memo is dropped once its rules have
run, and the data source keeps at most ``MEMO_SIZE`` derived values (least recently used
dropped), while the findings stay what an unbounded run reports."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from validator.checker import RunResult
from validator.context import Settings
from validator.findings import Finding
from validator.load import LoadedDocument
from validator.rule_index import check_rules
from validator.session import Session
from validator.source.tree import LocalTree
from validator.vllm_cli import data_source
from validator.vllm_cli.data_source import CliRegistries

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "recipes"
RECIPES = ("models/example-org/Example-Chat-8B.yaml", "models/example-org/Example-MoE-120B.yaml")
SETTINGS = Settings(offline=True, rendered=True)


@pytest.fixture()
def tree(tmp_path: Path) -> LocalTree:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    return LocalTree(root)


def _rows(session: Session) -> list[tuple[str, str, int, str]]:
    return [(d.path, f.rule, f.line, f.message) for d in session.result.documents
            for f in d.findings]


def _per_document_keys(session: Session, tree: LocalTree) -> list[str]:
    opened = session.open(tree)
    assert opened is not None
    return [k for k in opened.context._memo if isinstance(k, str) and ":models/" in k]


def test_per_document_state_is_dropped_after_each_recipe(tree: LocalTree) -> None:
    session = Session(SETTINGS, check_rules())
    opened = session.open(tree)
    assert opened is not None
    seen: list[list[str]] = []
    run_rules = opened.checker.run_rules

    def spy(doc: LoadedDocument, result: RunResult) -> list[Finding]:
        found = run_rules(doc, result)
        seen.append(_per_document_keys(session, tree))  # what the rules memoised
        return found

    opened.checker.run_rules = spy  # type: ignore[method-assign]
    session.check_targets([(tree, p) for p in RECIPES])
    assert not session.result.internal_errors
    # the rules did memoise per-document state (layer models, rendered facts ...) ...
    assert all(keys for keys in seen), seen
    assert any(k.startswith("flag:rendered:") for k in seen[0])
    # ... of their own recipe only, and none of it outlives the recipe's check
    assert all(RECIPES[0] in k for k in seen[0]) and all(RECIPES[1] in k for k in seen[1])
    assert _per_document_keys(session, tree) == []


def test_findings_do_not_depend_on_dropped_state(tree: LocalTree) -> None:
    """The same recipe checked twice in one run (its state recomputed the second time)
    gives the same findings as once in a fresh run."""
    once = Session(SETTINGS, check_rules())
    once.check_targets([(tree, RECIPES[1])])
    twice = Session(SETTINGS, check_rules())
    twice.check_targets([(tree, RECIPES[1]), (tree, RECIPES[1])])
    rows = _rows(once)
    assert rows, "the broken example has findings"
    assert _rows(twice) == rows + rows


def test_data_source_memo_is_bounded_lru(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(data_source, "MEMO_SIZE", 3)
    cli = CliRegistries()
    calls: list[str] = []

    def value(key: str) -> str:
        def compute() -> str:
            calls.append(key)
            return key.upper()
        return cli.memoised(("test", key), compute)

    assert [value(k) for k in "abc"] == ["A", "B", "C"]
    assert value("a") == "A" and calls == ["a", "b", "c"]  # a hit: "a" is now the newest
    assert value("d") == "D"  # over the bound: the least recently used ("b") is dropped
    assert len(cli._memo) == 3
    assert value("a") == "A" and value("c") == "C" and calls == ["a", "b", "c", "d"]
    assert value("b") == "B" and calls[-1] == "b"  # dropped, so computed again


def test_bounded_data_source_gives_the_same_findings(tree: LocalTree,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A memo far smaller than the run needs (every value recomputed) changes nothing."""
    full = Session(SETTINGS, check_rules())
    full.check_targets([(tree, p) for p in RECIPES])
    monkeypatch.setattr(data_source, "MEMO_SIZE", 1)
    small = Session(SETTINGS, check_rules())
    small.check_targets([(tree, p) for p in RECIPES])
    assert len(small.cli._memo) <= 1
    assert _rows(small) == _rows(full) and _rows(full)


def test_install_ranges_are_reported_not_kept_in_the_context(tree: LocalTree) -> None:
    """The checker hands each recipe's install ranges back with its result; the context
    keeps none of them (a corpus run would hold one entry per recipe until it ends)."""
    session = Session(SETTINGS, check_rules())
    session.check_targets([(tree, p) for p in RECIPES])
    assert not session.result.internal_errors
    reported = session.result.context["install_ranges"]
    assert sorted(reported) == sorted(RECIPES) and all(reported.values())
    opened = session.open(tree)
    assert opened is not None
    assert [k for k in opened.context._memo if "install_range" in str(k)] == []
