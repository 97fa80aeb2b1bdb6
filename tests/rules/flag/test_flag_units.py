"""The FLAG and GUIDE rules as units over one shared model per document.

- every issue code of the engine has its rule (no code is dropped silently);
- the model lives in the context (per document, content and release window), not in a
  module global keyed on object ids;
- one selected rule computes only the parts of the model it reads.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from validator.analysis.flag_engine import FlagIssue
from validator.analysis.flag_values import ISSUE_CODES
from validator.checker import Checker, RunResult
from validator.context import Context, Settings, local_context
from validator.rule_index import check_rules
from validator.rules.flag import facts as flag_model
from validator.rules.guide import facts as guide_model
from validator.schema import SchemaValidator
from validator.source.provenance import Provenance

PROJECT = Path(__file__).resolve().parents[3]
GLM = "models/zai-org/GLM-5.1.yaml"


def test_every_issue_code_has_a_flag_rule() -> None:
    assert set(flag_model.ISSUE_RULE) == ISSUE_CODES
    registered = {r.id for r in check_rules()}
    assert set(flag_model.ISSUE_RULE.values()) <= registered


def test_every_issue_code_a_guide_command_can_show_has_a_guide_rule() -> None:
    assert set(guide_model.ISSUE_RULE) | guide_model.NOT_GUIDE_CODES == ISSUE_CODES
    assert not set(guide_model.ISSUE_RULE) & guide_model.NOT_GUIDE_CODES
    registered = {r.id for r in check_rules()}
    assert set(guide_model.ISSUE_RULE.values()) <= registered


def test_an_issue_code_without_a_rule_cannot_be_made() -> None:
    with pytest.raises(ValueError, match="unknown issue code 'brand_new'"):
        FlagIssue("brand_new", 0, "a new kind of problem")


def test_no_module_global_cache_keyed_on_object_ids() -> None:
    offenders = [str(p.relative_to(PROJECT)) for p in (PROJECT / "validator").rglob("*.py")
                 if re.search(r"\bid\((doc|ctx)\)", p.read_text(encoding="utf-8"))]
    assert offenders == []


class _RecordingMemo(dict[str, Any]):
    """A context memo that remembers every key it was given: the checker drops a
    document's state once its rules ran (:meth:`Context.forget_document`), so what the
    run computed is read from here, not from what is left at its end."""

    def __init__(self) -> None:
        super().__init__()
        self.held: list[str] = []

    def __setitem__(self, key: str, value: Any) -> None:
        self.held.append(key)
        super().__setitem__(key, value)


def held_keys(ctx: Context) -> list[str]:
    """Every memo key the run of :func:`run_only` computed, once per computation."""
    assert isinstance(ctx._memo, _RecordingMemo)
    return ctx._memo.held


def run_only(root: Path, rule_ids: set[str], path: str = GLM,
             settings: Settings | None = None) -> tuple[Context, list[str]]:
    """Check one recipe with only ``rule_ids``; the context (with a record of the
    per-document state it computed) and the rules reported."""
    ctx = local_context(root, settings or Settings(offline=True, rendered=True))
    ctx._memo = _RecordingMemo()
    data = (root / path).read_bytes()
    result = RunResult()
    rules = [r for r in check_rules() if r.id in rule_ids]
    Checker(ctx, rules, SchemaValidator()).check_recipe(
        path, data, Provenance.of_bytes(path, data), result)
    assert not result.internal_errors, result.internal_errors
    return ctx, [f.rule for d in result.documents for f in d.findings]


def parts_computed(ctx: Context) -> set[str]:
    """Names of the per-document state the run computed (``flag:layers``, ...)."""
    return {key.split(":models/")[0] for key in held_keys(ctx) if ":models/" in key}


def test_one_spelling_rule_does_not_compute_the_guide_or_the_overrides(
        corpus_repo: Path) -> None:
    ctx, _ = run_only(corpus_repo, {"FLAG013"})
    computed = parts_computed(ctx)
    assert {"flag:gate", "flag:layers"} <= computed
    assert not any(name.startswith("guide:") for name in computed), computed


def test_the_environment_rule_parses_no_argument_list(corpus_repo: Path) -> None:
    ctx, found = run_only(corpus_repo, {"FLAG016"})
    assert "FLAG016" in found  # GLM-5.1's VLLM_USE_FLASHINFER_MOE_FP4
    assert "flag:layers" not in parts_computed(ctx)


def test_guide_fence_rules_check_no_command(corpus_repo: Path) -> None:
    ctx, _ = run_only(corpus_repo, {"GUIDE001", "GUIDE002", "GUIDE013", "GUIDE014"})
    # only the report's install ranges (with the image sites they walk once per document),
    # which the checker records whichever rules run
    assert parts_computed(ctx) - {"install:images"} == {"install_range"}


def test_the_model_is_built_once_per_document_and_shared_by_the_rules(
        corpus_repo: Path) -> None:
    ctx, _ = run_only(corpus_repo, {r.id for r in check_rules()
                                    if r.id.startswith(("FLAG", "GUIDE"))})
    keys = [k for k in held_keys(ctx) if k.startswith(("flag:", "guide:"))]
    assert len(keys) == len(set(keys)) and {"flag:layers", "guide:commands"} <= {
        k.split(":models/")[0] for k in keys}
    # the same recipe in a new context is computed again (the state is the context's)
    other, _ = run_only(corpus_repo, {"FLAG013"})
    assert other is not ctx and parts_computed(other) >= {"flag:layers"}


def test_selected_rule_reports_the_same_as_in_a_full_run(corpus_copy: Path) -> None:
    recipe = corpus_copy / GLM
    text = recipe.read_text(encoding="utf-8")
    recipe.write_text(text.replace('"--trust-remote-code"', '"--trust_remote_code"', 1),
                      encoding="utf-8")
    _, alone = run_only(corpus_copy, {"FLAG013"})
    _, every = run_only(corpus_copy, {r.id for r in check_rules()})
    assert alone.count("FLAG013") == every.count("FLAG013") >= 1
