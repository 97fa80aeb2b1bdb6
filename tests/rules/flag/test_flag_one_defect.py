"""One defect, one finding: an argument that makes vLLM's parser consume the next token (a
dotted key without its value swallows the flag after it) is reported once, at its own
line; what it does to the lines after it (the swallowed flag's value becomes a stray
argument, ``--enable-auto-tool-choice`` loses its ``--tool-call-parser``) are related
locations of that finding, never errors at those innocent lines."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import check_tree, line_of
from tests.tiny_recipe import PATH, RECIPE, write_tiny
from validator.findings import Finding, Severity

DOTTED = "--attention-config.use_trtllm_ragged_deepseek_prefill"
#: The tiny recipe with a tool-calling feature and a hardware override whose list ends
#: with ``HW`` (the rendered command puts the override before the feature's args).
WITH_FEATURE = RECIPE.replace('min_vllm_version: "0.12.0"', 'min_vllm_version: "0.13.0"') \
    .replace("variants:", """features:
  tool_calling:
    description: "tools"
    args:
      - "--tool-call-parser"
      - "hermes"
      - "--enable-auto-tool-choice"
hardware_overrides:
  hopper:
    extra_args:
HW
variants:""")


def all_errors(root: Path) -> list[Finding]:
    """The errors of the tiny recipe, its rendered commands checked."""
    return [f for f in check_tree(root, PATH, rendered=True) if f.severity is Severity.ERROR]


def test_a_dotted_key_without_value_is_one_finding_with_its_consequences_related(
        corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, '["--max-model-len", "8192"]',
                      WITH_FEATURE.replace("HW", f'      - "{DOTTED}"'))
    found = all_errors(corpus_copy)
    assert [(f.rule, f.line) for f in found] == [("FLAG004", line_of(text, DOTTED))], found
    (defect,) = found
    related = {r.line: r.message for r in defect.related}
    parser, value, auto = (line_of(text, f'"{t}"') for t in
                           ("--tool-call-parser", "hermes", "--enable-auto-tool-choice"))
    assert set(related) == {parser, value, auto}, defect.related
    assert related[parser].startswith("consequence: `--tool-call-parser` is read as the value")
    assert "`hermes` is not an option" in related[value]
    assert "--enable-auto-tool-choice without --tool-call-parser" in related[auto]


def test_the_cascade_inside_one_list_is_one_finding_too(corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, f'["{DOTTED}", "--tool-call-parser", "hermes", '
                      '"--enable-auto-tool-choice"]',
                      RECIPE.replace('"0.12.0"', '"0.13.0"'))
    found = all_errors(corpus_copy)
    assert [f.rule for f in found] == ["FLAG004"], found
    (defect,) = found
    assert defect.line == line_of(text, DOTTED)
    assert any("`hermes` is not an option" in r.message for r in defect.related), defect.related


def test_a_guide_command_with_the_defect_has_one_guide_finding(corpus_copy: Path) -> None:
    guide = (f"  ```bash\n  vllm serve org/Tiny-1B {DOTTED} \\\n    --tool-call-parser hermes "
             "\\\n    --enable-auto-tool-choice\n  ```\n")
    text = write_tiny(corpus_copy, '["--max-model-len", "8192"]',
                      RECIPE.replace('"0.12.0"', '"0.13.0"').replace("  Serve it.\n", guide))
    found = [f for f in all_errors(corpus_copy) if f.rule.startswith("GUIDE")]
    assert [f.rule for f in found] == ["GUIDE006"], found
    assert found[0].line == line_of(text, DOTTED)
    assert any("`hermes` is not an option" in r.message for r in found[0].related)


def test_a_dotted_key_of_a_release_without_dotted_keys_swallows_no_flag(
        corpus_copy: Path) -> None:
    # before 0.9 vLLM has no dotted keys: argparse refuses the token and reads the next
    # flag as itself, so the flag's value is no stray argument
    write_tiny(corpus_copy, '["--speculative-config.method", "--tool-call-parser", "hermes"]',
               RECIPE.replace('"0.12.0"', '"0.8.5"'))
    found = all_errors(corpus_copy)
    assert [f.rule for f in found if "hermes" in f.message] == [], found


def test_the_values_of_an_unknown_flag_are_no_stray_tokens(corpus_copy: Path) -> None:
    # argparse refuses an unknown flag with the bare words after it in one "unrecognized
    # arguments": each of them is no error of its own
    text = write_tiny(corpus_copy, '["--cuda-graph-sizez", "1", "2", "4", "--max-model-len", '
                      '"8192"]')
    found = all_errors(corpus_copy)
    assert [(f.rule, f.line) for f in found] == [
        ("FLAG001", line_of(text, "--cuda-graph-sizez"))], found
