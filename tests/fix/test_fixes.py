"""Each fix on a recipe of our own shaped like a real one (comments, flow and block lists,
odd indentation and quoting around the edit): the finding goes, no other finding comes,
and only the edited lines differ, byte for byte."""

from __future__ import annotations

import codecs
import difflib
import shutil
from pathlib import Path

import pytest

from validator.checker import Checker
from validator.context import Settings, local_context
from validator.findings import Finding
from validator.fix.engine import document_findings, fix_document, suggested_patch
from validator.fix.model import DocumentFixes
from validator.load import load_yaml
from validator.rule_index import check_rules
from validator.schema import SchemaValidator

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLE = PROJECT / "examples" / "recipes"
PATH = "models/acme/Acme-Chat-9B.yaml"

RECIPE = """\
# Acme-Chat-9B: our own test recipe (not an upstream file)
meta:
  title: "Acme-Chat-9B"
  slug: "acme-chat-9b"
  provider: 'Acme'   # the org
  description: "A dense chat model for the fix tests"
  date_added: 2026-03-02
  date_updated: 2026-04-10
  difficulty: beginner
  tasks: [text]
  performance_headline: "Fits one GPU"
  related_recipes: []
  hardware:
    h100: verified

model:
  model_id: "acme/Acme-Chat-9B"
  min_vllm_version: "0.12.0"    # keep this comment
  architecture: dense
  parameter_count: "9B"
  active_parameters: "9B"
  context_length: 131072
  base_args:
      # a comment inside the list
      - "--max-model-len"
      -   '32768'
  base_env: {}

features:
  tool_calling:
    description: "Tool calls"
    args: ["--enable-auto-tool-choice", "--tool-call-parser", hermes]   # flow

opt_in_features: []

variants:
  default:
    precision: bf16
    vram_minimum_gb: 24
    description: "BF16 weights"

compatible_strategies:
  - single_node_tp

guide: |
  ## Launching

  Start the server:

  ```bash
  vllm serve acme/Acme-Chat-9B \\
    --max-model-len 32768 \\
    --enable-auto-tool-choice \\
    --tool-call-parser hermes
  ```

  Done.
"""


def make_tree(tmp_path: Path, text: str | bytes) -> Path:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLE, root)
    shutil.rmtree(root / "models")
    target = root / PATH
    target.parent.mkdir(parents=True)
    target.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return root


def checker_for(root: Path) -> Checker:
    ctx = local_context(root, Settings())
    return Checker(ctx, check_rules(), SchemaValidator())


def findings_of(root: Path, raw: bytes) -> list[Finding]:
    checker = checker_for(root)
    return document_findings(checker, load_yaml(raw, PATH))


def keys(findings: list[Finding]) -> set[tuple[str, str]]:
    return {(f.rule, f.message) for f in findings}


def changed_old_lines(before: bytes, after: bytes) -> set[int]:
    """1-based lines of ``before`` that a line diff replaces or deletes."""
    old = before.decode("utf-8").splitlines(keepends=True)
    new = after.decode("utf-8").splitlines(keepends=True)
    out: set[int] = set()
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(a=old, b=new,
                                                     autojunk=False).get_opcodes():
        if tag != "equal":
            out.update(range(i1 + 1, i2 + 1))
    return out


def run_fix(tmp_path: Path, text: str | bytes, *, unsafe: bool = False) -> tuple[
        DocumentFixes, list[Finding], list[Finding]]:
    root = make_tree(tmp_path, text)
    raw = (root / PATH).read_bytes()
    outcome = fix_document(raw, PATH, checker_for(root), unsafe=unsafe)
    return outcome, findings_of(root, raw), findings_of(root, outcome.fixed)


def test_the_fixture_is_clean(tmp_path: Path) -> None:
    root = make_tree(tmp_path, RECIPE)
    assert findings_of(root, RECIPE.encode()) == []
    outcome = fix_document(RECIPE.encode(), PATH, checker_for(root), unsafe=True)
    assert outcome.applied == [] and outcome.fixed == RECIPE.encode()


# (rule, text of the fixture, the faulty text put there, what the fix turns it into)
CASES = [
    ("YAML004", "  architecture: dense\n", "  architecture: dense\n  note_version: 0.10\n",
     '  architecture: dense\n  note_version: "0.10"\n'),
    ("YAML003", "provider: 'Acme'   # the org", "provider: NO   # the org",
     'provider: "NO"   # the org'),
    ("FLAG013", '      - "--max-model-len"\n', '      - "--max_model_len"    # spelled badly\n',
     '      - "--max-model-len"    # spelled badly\n'),
    ("FLAG013", '["--enable-auto-tool-choice", "--tool-call-parser", hermes]',
     '["--enable-auto-tool-choice", --tool_call_parser=hermes]',
     '["--enable-auto-tool-choice", --tool-call-parser=hermes]'),
    ("FLAG014", "      -   '32768'\n", "      -   '32768'\n      - --gpu-memory-util=0.9 # ok\n",
     "      -   '32768'\n      - --gpu-memory-utilization=0.9 # ok\n"),
    ("FLAG020", "      - \"--max-model-len\"\n      -   '32768'\n",
     "      - '--max-model-len 32768'   # joined\n",
     "      - '--max-model-len'\n      - '32768'   # joined\n"),
    ("FLAG020", '["--enable-auto-tool-choice", "--tool-call-parser", hermes]',
     '["--enable-auto-tool-choice", "--tool-call-parser hermes"]',
     '["--enable-auto-tool-choice", "--tool-call-parser", "hermes"]'),
    ("GUIDE001", "    --max-model-len 32768 \\\n", "    --max-model-len 32768 \\ \t \n",
     "    --max-model-len 32768 \\\n"),
    ("GUIDE007", "    --max-model-len 32768 \\\n",
     "    --max-model-len 32768 --gpu-memory-util 0.9 \\\n",
     "    --max-model-len 32768 --gpu-memory-utilization 0.9 \\\n"),
    ("GUIDE019", "    --max-model-len 32768 \\\n", "    --max_model_len 32768 \\\n",
     "    --max-model-len 32768 \\\n"),
    ("GUIDE013", "    --tool-call-parser hermes\n  ```\n", "    --tool-call-parser hermes  ```\n",
     "    --tool-call-parser hermes\n  ```\n"),
]


@pytest.mark.parametrize(("rule", "old", "new", "fixed"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_safe_fix_edits_only_its_line(tmp_path: Path, rule: str, old: str, new: str,
                                      fixed: str) -> None:
    assert old in RECIPE
    broken = RECIPE.replace(old, new, 1)
    outcome, before, after = run_fix(tmp_path, broken)
    assert rule in {f.rule for f in before}
    assert [f.rule for f in outcome.applied] == [rule] and outcome.skipped == []
    assert rule not in {f.rule for f in after}
    assert keys(after) <= keys(before)  # no new finding
    # the fault becomes exactly the expected text; every other byte is as it was
    assert outcome.fixed.decode() == broken.replace(new, fixed, 1)
    lines = {f.line for f in before if f.rule == rule}
    assert changed_old_lines(outcome.original, outcome.fixed) <= lines


def test_fixes_keep_crlf_and_bom(tmp_path: Path) -> None:
    broken = RECIPE.replace('      - "--max-model-len"\n', '      - "--max_model_len"\n')
    raw = codecs.BOM_UTF8 + broken.replace("\n", "\r\n").encode()
    outcome, before, after = run_fix(tmp_path, raw)
    assert "FLAG013" in {f.rule for f in before}
    assert [f.rule for f in outcome.applied] == ["FLAG013"]
    want = codecs.BOM_UTF8 + RECIPE.replace("\n", "\r\n").encode()
    assert outcome.fixed == want
    assert after == []


def test_guide_fence_fix_keeps_crlf(tmp_path: Path) -> None:
    broken = RECIPE.replace("    --tool-call-parser hermes\n  ```\n",
                            "    --tool-call-parser hermes ```\n")
    outcome, _, after = run_fix(tmp_path, broken.replace("\n", "\r\n").encode())
    assert outcome.fixed == RECIPE.replace("\n", "\r\n").encode()
    assert after == []


def test_several_fixes_in_one_run_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    broken = (RECIPE.replace('      - "--max-model-len"\n      -   \'32768\'\n',
                             "      - \"--max_model_len 32768\"\n")
              .replace("    --max-model-len 32768 \\\n", "    --max-model-len 32768 \\  \n"))
    outcome, before, after = run_fix(tmp_path, broken)
    assert sorted(f.rule for f in outcome.applied) == ["FLAG013", "FLAG020", "GUIDE001"]
    assert after == []
    assert outcome.fixed.decode() == RECIPE.replace(
        '      - "--max-model-len"\n      -   \'32768\'\n',
        '      - "--max-model-len"\n      - "32768"\n')
    root = tmp_path / "recipes"
    again = fix_document(outcome.fixed, PATH, checker_for(root))
    assert again.applied == [] and again.fixed == outcome.fixed
    assert before


def test_unsafe_fixes_need_the_flag(tmp_path: Path) -> None:
    broken = (RECIPE.replace('min_vllm_version: "0.12.0"', 'min_vllm_version: "0.11.0"')
              .replace('  architecture: dense\n',
                       '  docker_image: vllm/vllm-openai:v0.11.0  # pinned\n'
                       '  architecture: dense\n')
              .replace("      -   '32768'\n", "      -   '32768'\n      - --attention-backend\n"
                       "      - FLASH_ATTN\n")
              .replace('model_id: "acme/Acme-Chat-9B"', 'model_id: "ACME/Acme-Chat-9B"'))
    safe, before, _ = run_fix(tmp_path, broken)
    assert {"FLAG002", "REF019"} <= {f.rule for f in before}
    assert safe.applied == [] and safe.fixed == safe.original
    shutil.rmtree(tmp_path / "recipes")
    outcome, before, after = run_fix(tmp_path, broken, unsafe=True)
    assert sorted(f.rule for f in outcome.applied) == ["FLAG002", "REF019", "VER002"]
    text = outcome.fixed.decode()
    assert '  min_vllm_version: "0.13.0"    # keep this comment\n' in text
    assert "  docker_image: vllm/vllm-openai:v0.13.0  # pinned\n" in text
    assert '  model_id: "acme/Acme-Chat-9B"\n' in text
    assert {f.rule for f in after} & {"FLAG002", "REF019", "VER002"} == set()
    assert len(changed_old_lines(outcome.original, outcome.fixed)) == 3


def test_fix_that_cannot_keep_its_span_does_not_apply(tmp_path: Path) -> None:
    # an anchored item: rewriting it would also change the alias that repeats it
    broken = RECIPE.replace('      - "--max-model-len"\n', '      - &flag "--max_model_len"\n')
    outcome, before, _ = run_fix(tmp_path, broken)
    assert "FLAG013" in {f.rule for f in before}
    assert outcome.applied == [] and outcome.fixed == outcome.original
    assert [s.rule for s in outcome.skipped] == ["FLAG013"]
    assert "anchor" in outcome.skipped[0].reason


def test_value_that_would_change_type_is_quoted(tmp_path: Path) -> None:
    broken = RECIPE.replace('      - "--max-model-len"\n      -   \'32768\'\n',
                            "      - --max-model-len 32768\n")
    outcome, _, after = run_fix(tmp_path, broken)
    # a plain 32768 would load as an integer: the split writes the string
    assert "      - --max-model-len\n      - \"32768\"\n" in outcome.fixed.decode()
    assert after == []


def test_file_that_does_not_load_is_not_fixed(tmp_path: Path) -> None:
    broken = RECIPE.replace('      - "--max-model-len"\n', '      - "--max_model_len\n')
    outcome, _, _ = run_fix(tmp_path, broken)
    assert outcome.error is not None and "does not load" in outcome.error
    assert outcome.fixed == outcome.original


def test_suggested_patch_fixes_only_the_given_findings(tmp_path: Path) -> None:
    broken = (RECIPE.replace('      - "--max-model-len"\n', '      - "--max_model_len"\n')
              .replace("    --max-model-len 32768 \\\n", "    --max-model-len 32768 \\  \n"))
    root = make_tree(tmp_path, broken)
    checker = checker_for(root)
    raw = broken.encode()
    found = document_findings(checker, load_yaml(raw, PATH))
    guide_only = [f for f in found if f.rule == "GUIDE001"]
    patch = suggested_patch(checker, PATH, raw, guide_only)
    assert patch.startswith(f"--- a/{PATH}\n+++ b/{PATH}\n")
    assert "-    --max-model-len 32768 \\  \n+    --max-model-len 32768 \\\n" in patch
    assert "max_model_len" not in patch
    assert suggested_patch(checker, PATH, raw, []) == ""


def test_removed_flag_that_restates_its_default_is_dropped(tmp_path: Path) -> None:
    # --swap-space (removed in vLLM 0.18) defaulted to 4 in every release that had it; the
    # site's `pip install -U vllm` pulls the newest release, so it is FLAG023, not FLAG003
    broken = RECIPE.replace("      -   '32768'\n", "      -   '32768'\n      - --swap-space\n"
                            "      - \"4\"\n      # keep me\n      - --swap-space=8\n")
    outcome, before, after = run_fix(tmp_path, broken, unsafe=True)
    assert [f.rule for f in before].count("FLAG023") == 2
    assert [f.rule for f in outcome.applied] == ["FLAG023"]
    assert outcome.fixed.decode() == RECIPE.replace(
        "      -   '32768'\n", "      -   '32768'\n      # keep me\n      - --swap-space=8\n")
    # the other one sets 8, not the default: it stays, and the report says why
    assert [f.rule for f in after] == ["FLAG023"]
    assert [s.rule for s in outcome.skipped] == ["FLAG023"]
    assert "defaults `--swap-space` to 4" in outcome.skipped[0].reason


def test_second_reader_refuses_an_undeclared_change() -> None:
    from validator.fix.model import SetValue
    from validator.fix.second_reader import disagrees

    old = "a: 1  # one\nb: [x, y]\n"
    assert disagrees(old, "a: 2  # one\nb: [x, y]\n", [SetValue("/a", 2)]) is None
    assert disagrees(old, "a: 2  # one\nb: [x, z]\n", [SetValue("/a", 2)]) is not None
    assert disagrees(old, "a: [2\n", [SetValue("/a", 2)]) == \
        "ruamel.yaml cannot read the edited file"


def test_unsafe_fix_that_would_bring_a_new_error_does_not_apply(tmp_path: Path) -> None:
    # --shutdown-timeout needs vLLM 0.18.0, which no longer has the guide's --swap-space
    # (set to 8, not its default 4: the guide line stays)
    broken = (RECIPE.replace("      -   '32768'\n", "      -   '32768'\n"
                             "      - --shutdown-timeout=30\n")
              .replace("    --max-model-len 32768 \\\n",
                       "    --max-model-len 32768 \\\n    --swap-space 8 \\\n"))
    outcome, before, after = run_fix(tmp_path, broken, unsafe=True)
    assert "FLAG002" in {f.rule for f in before}
    assert outcome.applied == [] and outcome.fixed == outcome.original
    [skip] = [s for s in outcome.skipped if s.rule == "FLAG002"]
    assert "new error" in skip.reason and "--swap-space" in skip.reason
    assert keys(after) == keys(before)


def test_removed_guide_flag_that_restates_its_default_is_dropped(tmp_path: Path) -> None:
    broken = RECIPE.replace("    --max-model-len 32768 \\\n",
                            "    --max-model-len 32768 \\\n    --swap-space=4 \\\n"
                            "    --swap-space 16 \\\n")
    outcome, before, after = run_fix(tmp_path, broken, unsafe=True)
    assert [f.rule for f in before].count("GUIDE017") == 2
    assert [f.rule for f in outcome.applied] == ["GUIDE017"]
    assert outcome.fixed.decode() == RECIPE.replace(
        "    --max-model-len 32768 \\\n", "    --max-model-len 32768 \\\n    --swap-space 16 \\\n")
    assert [f.rule for f in after] == ["GUIDE017"]
    assert "not to what the recipe sets (16)" in outcome.skipped[0].reason


def test_suggested_patch_leaves_other_findings_of_the_same_rule(tmp_path: Path) -> None:
    broken = (RECIPE.replace('      - "--max-model-len"\n', '      - "--max_model_len"\n')
              .replace('"--tool-call-parser", hermes]', '"--tool_call_parser", hermes]'))
    root = make_tree(tmp_path, broken)
    checker = checker_for(root)
    raw = broken.encode()
    found = [f for f in document_findings(checker, load_yaml(raw, PATH)) if f.rule == "FLAG013"]
    assert len(found) == 2
    patch = suggested_patch(checker, PATH, raw, found[:1])
    assert "+      - \"--max-model-len\"\n" in patch and "tool_call_parser" not in patch
