"""The one driver (:class:`validator.session.Session`) on our own small recipes tree
(``examples/recipes``: a taxonomy, two strategies, a clean and a broken recipe)."""

from __future__ import annotations

import shutil
import subprocess
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest

from validator.commands.check import check_targets
from validator.context import Context, Settings, build_context
from validator.errors import UsageError
from validator.findings import Severity
from validator.load import load_yaml
from validator.pr.run import check_selection
from validator.pr.select import Selection
from validator.rule_index import check_rules
from validator.session import Session
from validator.source.git import GitTree
from validator.source.local import Target
from validator.source.tree import LocalTree, RecipeTree
from validator.source.verify import VerificationError
from validator.vllm_cli.data_source import CliRegistries

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "recipes"
CLEAN = "models/example-org/Example-Chat-8B.yaml"
BROKEN = "models/example-org/Example-MoE-120B.yaml"
SETTINGS = Settings(offline=True)
RULES = check_rules()


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    return root


def rules_of(session: Session, path: str) -> list[str]:
    return [f.rule for d in session.result.documents if d.path == path for f in d.findings]


def test_check_targets_context_first_then_recipes_and_context_built_once(tree: Path) -> None:
    built: list[RecipeTree] = []

    def build(t: RecipeTree, settings: Settings, cli: CliRegistries,
              renderings: OrderedDict[Any, Any]) -> Context:
        built.append(t)
        return build_context(t, settings, cli, renderings)

    (tree / "strategies" / "single_node_tp.yaml").write_text("name: [unclosed\n",
                                                             encoding="utf-8")
    local = LocalTree(tree)
    session = Session(SETTINGS, RULES, build=build)
    result = session.check_targets([(local, CLEAN), (local, BROKEN),
                                    (local, "strategies/single_node_tp.yaml")])
    assert built == [local]
    # the broken strategy is reported once, as a context document, before the recipes
    assert [d.path for d in result.documents] == ["strategies/single_node_tp.yaml", CLEAN,
                                                  BROKEN]
    assert result.documents[0].checked == "strategy"
    assert rules_of(session, "strategies/single_node_tp.yaml")[0].startswith("YAML")
    assert "REF002" in rules_of(session, BROKEN)
    assert set(session.checked) == {CLEAN, BROKEN}
    assert set(result.context["install_ranges"]) == {CLEAN, BROKEN}


def test_check_targets_is_what_check_reports(tree: Path) -> None:
    """``commands.check.check_targets`` is the session's loop, finding for finding."""
    local = LocalTree(tree)
    via_command = check_targets([Target(local, CLEAN), Target(local, BROKEN)], SETTINGS)
    via_session = Session(SETTINGS, RULES).check_targets([(local, CLEAN), (local, BROKEN)])
    assert via_command.all_findings() == via_session.all_findings()
    assert via_command.all_findings()  # the broken recipe has findings


def test_missing_target_is_a_usage_error(tree: Path) -> None:
    with pytest.raises(UsageError, match=r"Gone\.yaml: not found"):
        Session(SETTINGS, RULES).check_targets([(LocalTree(tree), "models/example-org/Gone.yaml")])


def test_refused_file_is_prov005_and_the_rest_is_checked(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_bytes((tree / CLEAN).read_bytes())
    link = tree / "models/example-org/Linked.yaml"
    link.symlink_to(outside)
    local = LocalTree(tree)
    session = Session(SETTINGS, RULES)
    session.check_targets([(local, "models/example-org/Linked.yaml"), (local, CLEAN)])
    assert rules_of(session, "models/example-org/Linked.yaml") == ["PROV005"]
    assert [d.path for d in session.result.documents][-1] == CLEAN


def test_untrusted_context_checks_nothing_of_its_tree(tree: Path) -> None:
    def untrusted(t: RecipeTree, settings: Settings, cli: CliRegistries,
                  renderings: OrderedDict[Any, Any]) -> Context:
        raise VerificationError("PROV001", "taxonomy.yaml", "digest differs from the lock")

    local = LocalTree(tree)
    session = Session(SETTINGS, RULES, build=untrusted)
    result = session.check_targets([(local, CLEAN), (local, BROKEN)])
    (doc,) = result.documents
    assert doc.path == "taxonomy.yaml" and [f.rule for f in doc.findings] == ["PROV001"]
    assert result.exit_code == 1


def test_config_applies_per_tree(tree: Path) -> None:
    from validator.config import Config

    local = LocalTree(tree)
    everything = Session(SETTINGS, RULES).check_targets([(local, BROKEN)])
    ignored = Session(SETTINGS, RULES, config=lambda t: Config().with_options(
        select=[], extend_select=[], ignore=["REF"], fail_on=None)).check_targets(
        [(local, BROKEN)])
    before = {f.rule for f in everything.all_findings()}
    after = {f.rule for f in ignored.all_findings()}
    assert any(r.startswith("REF") for r in before)
    assert after == {r for r in before if not r.startswith("REF")}


def test_run_rules_on_a_loaded_document(tree: Path) -> None:
    """What ``history`` uses: chosen rules on a loaded document and any context."""
    local = LocalTree(tree)
    session = Session(SETTINGS, RULES)
    ctx = build_context(local, SETTINGS)
    doc = load_yaml((tree / BROKEN).read_bytes(), BROKEN)
    ref = [r for r in session.rules if r.id == "REF002"]
    found = session.run_rules(ctx, doc, ref)
    assert found and {f.rule for f in found} == {"REF002"}
    assert all(f.severity is Severity.ERROR for f in found)
    assert not session.result.internal_errors and not session.result.documents


def _git_tree(tree: Path) -> GitTree:
    import git

    for args in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm",
                  "recipes"]):
        subprocess.run(["git", *args], cwd=tree, check=True)
    repo = git.Repo(tree)
    return GitTree("example", repo.head.commit.hexsha, None, repo, str(tree))


def test_pr_selection_reports_each_changed_context_file_and_gone_files(tree: Path) -> None:
    """``pr``'s loop (head and merge base alike): unhandled paths, changed context files
    (each reported, clean or not), recipes; a file gone from the tree is skipped."""
    head = _git_tree(tree)
    sel = Selection()
    sel.unhandled.append(("models/bad\\xff.yaml", "the path is not UTF-8"))
    sel.context_files["strategies/single_node_tp.yaml"] = ["changed"]
    sel.recipes[CLEAN] = ["changed"]
    sel.recipes["models/example-org/Gone.yaml"] = ["changed"]
    session = check_selection(sel, head, SETTINGS)
    docs = session.result.documents
    assert [d.path for d in docs] == ["models/bad\\xff.yaml", "strategies/single_node_tp.yaml",
                                      CLEAN]
    assert [f.rule for f in docs[0].findings] == ["PROV006"]
    assert docs[1].checked == "strategy" and docs[1].findings == []
    ((gone, why),) = sel.skipped
    assert gone == "models/example-org/Gone.yaml"
    assert why.startswith("not readable at the head: models/example-org/Gone.yaml: not in")
    assert set(session.checked) == {CLEAN}
