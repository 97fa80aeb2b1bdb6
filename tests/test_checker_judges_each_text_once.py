"""A checker judges each text once (:meth:`validator.checker.Checker.document_findings`):
the same bytes of the same path checked again (``pr`` checks a head recipe, then starts
its suggested patch from it) give the findings and install ranges of the first check
without running a rule; other bytes are judged anew, and a text a rule crashed on is
judged again (the crash is said each time)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fix.test_fixes import PATH, RECIPE, make_tree
from validator.checker import Checker, RunResult
from validator.context import local_context
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rule_index import check_rules
from validator.rules.metadata import Hit, Rule
from validator.schema import SchemaValidator


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths :meth:`Checker.run_rules` runs the rules on, from now on."""
    runs: list[str] = []
    real = Checker.run_rules

    def counted(self: Checker, doc: LoadedDocument, result: RunResult) -> Any:
        runs.append(doc.path)
        return real(self, doc, result)

    monkeypatch.setattr(Checker, "run_rules", counted)
    return runs


def test_the_same_text_is_judged_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_tree(tmp_path, RECIPE.replace('      - "--max-model-len"\n',
                                              '      - "--max_model_len"\n'))
    ctx = local_context(root)
    checker = Checker(ctx, check_rules(), SchemaValidator())
    runs = _counting(monkeypatch)
    data = (root / PATH).read_bytes()
    prov = ctx.tree.provenance(PATH, data)
    first, again = RunResult(), RunResult()
    one = checker.check_recipe(PATH, data, prov, first)
    two = checker.check_recipe(PATH, data, prov, again)
    assert runs == [PATH]
    assert one.findings and two.findings == one.findings and two.findings is not one.findings
    assert any(f.rule == "FLAG013" for f in two.findings)
    assert first.install_ranges and again.install_ranges == first.install_ranges
    edited = data + b"# one more line\n"
    three = checker.check_recipe(PATH, edited, ctx.tree.provenance(PATH, edited), RunResult())
    assert runs == [PATH, PATH] and three.findings == one.findings


def test_a_text_a_rule_crashed_on_is_judged_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    def crashing(_doc: LoadedDocument, _ctx: Any) -> Iterator[Hit]:
        raise RuntimeError("boom")
        yield  # a generator, as checks are

    crash = Rule("ZZZ901", Severity.ERROR, "crashes", "crashes", check=crashing)
    root = make_tree(tmp_path, RECIPE)
    ctx = local_context(root)
    checker = Checker(ctx, [*check_rules(), crash], SchemaValidator())
    runs = _counting(monkeypatch)
    data = (root / PATH).read_bytes()
    results = [RunResult(), RunResult()]
    for result in results:
        checker.check_recipe(PATH, data, ctx.tree.provenance(PATH, data), result)
    assert runs == [PATH, PATH]
    assert all(len(r.internal_errors) == 1 and "ZZZ901" in r.internal_errors[0]
               for r in results)
    assert capsys.readouterr().err.count("internal error in rule ZZZ901") == 2
