"""Every rule's documented snippets are tested, as yamllint and ruff test theirs.

A rule's docstring (its documentation in ``docs/rules.md``) shows a ``Failing::`` and a
``Passing::`` YAML snippet and a ``How to fix`` line. Here the failing snippet must make
the rule report and the passing one must not:

- loader rules (``YAML``) read the snippet's text alone;
- every other recipe rule reads our clean example recipe
  (``examples/recipes/models/example-org/Example-Chat-8B.yaml``) with the snippet merged
  into it (mappings merged key by key, other values replaced), checked with the
  taxonomy and strategies of corpus ``main``.

``NOT_YET`` lists the rules whose docstrings have no snippets yet; it may only shrink.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.shared_context import shared_context
from validator.checker import Checker, RunResult
from validator.context import Settings
from validator.load import load_yaml
from validator.rule_index import all_rules, check_rules
from validator.schema import SchemaValidator
from validator.source.provenance import Provenance

PROJECT = Path(__file__).resolve().parents[1]
BASE = PROJECT / "examples/recipes/models/example-org/Example-Chat-8B.yaml"
RECIPE = "models/example-org/Example-Chat-8B.yaml"

# Rules whose snippets are not recipe YAML this harness can check: their own tests cover
# them (RC: suppression comments are text, tests/test_config.py; PROV: fetched bytes and
# provenance, tests/source).
OTHER_HARNESS = re.compile(r"^(RC|PROV)\d+$")

NOT_YET = frozenset(str.split(
    # GUIDE001: its failing snippet is a backslash followed by a blank at the end of a
    # line, which a docstring cannot keep (trailing whitespace is stripped and linted);
    # tests/rules/guide/test_guide.py covers it.
    "GUIDE001 "
    # HW012: its failing case is a taxonomy hardware profile, not a recipe;
    # tests/rules/hw/test_profile_memory.py covers it.
    "HW012 "
    # REF020: its failing case is a second recipe file (a path twin), which one snippet
    # merged into the example recipe cannot show; tests/rules/ref/test_recipe_path_case_twin.py
    # covers it.
    "REF020 "
    # REF027: its failing case is a strategy or kv-store file, not a recipe;
    # tests/pr/test_context_name_claims.py covers it.
    "REF027 "
    # REF028, REF029: their failing case is a quickstart file, not a recipe;
    # tests/pr/test_quickstart_files.py covers them.
    "REF028 REF029 "
    # REF030: its failing case is a pull request removing a context file or folder, not a
    # recipe; tests/pr/test_removed_context.py covers it.
    "REF030 "
    # YAML006: a snippet is text, encoded here as UTF-8, so it cannot show a file that is
    # not UTF-8 (tests/load/test_loader.py feeds such bytes).
    "YAML006 "
    # YAML012: its failing snippet holds a tab, which a rule description loses (the
    # catalogue expands tabs); tests/render/test_yaml_tabs.py covers it.
    "YAML012"))


def snippet(description: str, label: str) -> str | None:
    """The literal block after ``Failing::`` / ``Passing::`` (dedented), or ``None``."""
    m = re.search(rf"^[ \t]*{label}::[ \t]*\n((?:[ \t]*\n)*)((?:(?:[ \t]+\S.*)?\n)+)",
                  description + "\n", re.MULTILINE)
    if m is None:
        return None
    lines = m.group(2).rstrip().splitlines()
    indent = min(len(ln) - len(ln.lstrip()) for ln in lines if ln.strip())
    return "\n".join(ln[indent:] for ln in lines) + "\n"


def merged(base: Any, patch: Any) -> Any:
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for key, value in patch.items():
            out[key] = merged(base.get(key), value) if key in base else value
        return out
    return patch


RULES = {r.id: r for r in all_rules()}
DOCUMENTED = sorted(rid for rid, r in RULES.items()
                    if not OTHER_HARNESS.match(rid) and rid not in NOT_YET)


@pytest.fixture(scope="module")
def tree(corpus_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("snippets") / "recipes"
    root.mkdir()
    shutil.copy(corpus_repo / "taxonomy.yaml", root / "taxonomy.yaml")
    for folder in ("strategies", "kv_store"):
        if (corpus_repo / folder).is_dir():
            shutil.copytree(corpus_repo / folder, root / folder)
    (root / RECIPE).parent.mkdir(parents=True)
    shutil.copy(BASE, root / RECIPE)
    return root


def rules_reported(tree: Path, rule_id: str, text: str) -> list[str]:
    """Rule ids the snippet makes reported (only ``rule_id``'s family runs)."""
    if rule_id.startswith("YAML"):
        return [f.rule for f in load_yaml(text.encode("utf-8"), RECIPE).findings]
    base = yaml.safe_load(BASE.read_text(encoding="utf-8"))
    data = yaml.safe_dump(merged(base, yaml.safe_load(text)), sort_keys=False,
                          allow_unicode=True).encode("utf-8")
    # a context of its own, over the tree's files and the vendored registries loaded once
    # per process (tests.shared_context), as the contexts of one run share them; the
    # rendered commands are checked, as `recipe-check` checks them by default
    ctx = shared_context(tree, Settings(offline=True, rendered=True))
    rules = [r for r in check_rules() if r.id == rule_id]
    result = RunResult()
    Checker(ctx, rules, SchemaValidator()).check_recipe(
        RECIPE, data, Provenance.of_bytes(RECIPE, data), result)
    assert not result.internal_errors, result.internal_errors
    return [f.rule for doc in result.documents for f in doc.findings]


def test_the_base_recipe_is_clean_for_every_documented_rule(tree: Path) -> None:
    text = BASE.read_text(encoding="utf-8")
    reported = {rid for rid in DOCUMENTED if rid in rules_reported(tree, rid, text)}
    assert reported == set()


@pytest.mark.parametrize("rule_id", DOCUMENTED)
def test_failing_snippet_reports_and_passing_snippet_does_not(tree: Path,
                                                             rule_id: str) -> None:
    description = RULES[rule_id].description or ""
    failing, passing = snippet(description, "Failing"), snippet(description, "Passing")
    assert failing is not None and passing is not None, f"{rule_id}: no snippets"
    assert "How to fix" in description, f"{rule_id}: no 'How to fix' line"
    assert rule_id in rules_reported(tree, rule_id, failing), failing
    assert rule_id not in rules_reported(tree, rule_id, passing), passing


def test_rules_without_snippets_are_listed_and_the_list_only_shrinks() -> None:
    lacking = {rid for rid, r in RULES.items() if not OTHER_HARNESS.match(rid)
               and (snippet(r.description or "", "Failing") is None
                    or snippet(r.description or "", "Passing") is None)}
    assert lacking <= NOT_YET, f"document these rules with snippets: {sorted(lacking - NOT_YET)}"
    assert set(RULES) >= NOT_YET, f"not rules: {sorted(NOT_YET - set(RULES))}"
    documented_now = NOT_YET - lacking
    assert not documented_now, f"remove from NOT_YET (they have snippets): {sorted(documented_now)}"
