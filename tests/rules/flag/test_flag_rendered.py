"""``FLAG012`` on the rendered path (the default of ``recipe-check check``): what overrides
what comes from the site renderer's own last-wins de-duplication, not from render-order
numbers, and the finding names the configurations where it happens."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import line_of
from tests.rules.flag.test_flag import BASE, GLM, inject
from tests.shared_context import shared_context
from validator.checker import Checker, RunResult
from validator.context import Settings
from validator.findings import Finding
from validator.rule_index import check_rules
from validator.schema import SchemaValidator


def rendered_findings(root: Path, rule: str, path: str = GLM) -> list[Finding]:
    ctx = shared_context(root, Settings(rendered=True))
    result = RunResult()
    data = (root / path).read_bytes()
    Checker(ctx, check_rules(), SchemaValidator()).check_recipe(
        path, data, ctx.tree.provenance(path, data), result)
    assert not result.internal_errors, result.internal_errors
    return [f for f in result.all_findings() if f.rule == rule]


def test_feature_override_overrides_base_args_in_the_rendered_command(
        corpus_copy: Path) -> None:
    text = inject(corpus_copy, BASE, BASE + '    - "--max-num-seqs"\n    - "64"\n')
    text = inject(corpus_copy, '      - "glm45"\n',
                  '      - "glm45"\n    hardware_overrides:\n      hopper:\n        args:\n'
                  '          - "--reasoning-parser"\n          - "glm45"\n'
                  '          - "--max-num-seqs"\n          - "32"\n')
    found = rendered_findings(corpus_copy, "FLAG012")
    override = "/features/reasoning/hardware_overrides/hopper/args/2"
    assert [f.pointer for f in found] == [override], found
    (hit,) = found
    assert hit.message.startswith(
        "`--max-num-seqs` in features.reasoning.hardware_overrides.hopper.args overrides "
        "`--max-num-seqs 64` of model.base_args (on h200 · "), hit.message
    assert hit.line == line_of(text, '"--max-num-seqs"', line_of(text, "      hopper:"))
    assert hit.related[0].line == line_of(text, '"--max-num-seqs"')


def test_same_value_or_an_unrendered_override_is_no_finding(corpus_copy: Path) -> None:
    inject(corpus_copy, BASE, BASE + '    - "--max-num-seqs"\n    - "64"\n')
    # the same value again; and a feature's hardware override keyed by a profile id,
    # which the site never reads (it picks a feature's override by generation or brand)
    inject(corpus_copy, '      - "glm45"\n',
           '      - "glm45"\n    hardware_overrides:\n      hopper:\n        args:\n'
           '          - "--reasoning-parser"\n          - "glm45"\n'
           '          - "--max-num-seqs"\n          - "64"\n'
           '      h200:\n        args: ["--max-num-seqs", "8"]\n')
    assert rendered_findings(corpus_copy, "FLAG012") == []


def test_hardware_override_names_only_the_value_it_changes(corpus_copy: Path) -> None:
    text = inject(corpus_copy, BASE, BASE + '    - "--kv-cache-dtype"\n    - "auto"\n')
    text = inject(corpus_copy, "hardware_overrides: {}",
                  'hardware_overrides:\n  hopper:\n    extra_args: ["--kv-cache-dtype", "fp8"]')
    found = [f for f in rendered_findings(corpus_copy, "FLAG012")
             if f.pointer == "/hardware_overrides/hopper/extra_args/0"]
    # where the nvfp4 variant already set fp8 the site drops the variant's for the same
    # value: only the base args' auto -> fp8 is a change a user sees
    assert found and {f.related[0].message for f in found} == {"model.base_args"}
    assert {f.line for f in found} == {line_of(text, "  hopper:") + 1}
    assert all("(on h" in f.message for f in found)


def test_an_env_var_names_the_configurations_that_export_it(corpus_copy: Path) -> None:
    # the rendered env is not argv: a variable the site exports is in the commands of
    # every configuration of its layer, never "in no command the site renders"
    (env,) = [f for f in rendered_findings(corpus_copy, "FLAG016")
              if f.pointer == "/variants/nvfp4/extra_env/VLLM_USE_FLASHINFER_MOE_FP4"]
    assert "in no command" not in env.message, env.message
    assert "(on " in env.message and "nvfp4" in env.message, env.message


def test_a_flag_given_three_times_is_paired_with_its_first_occurrence(
        corpus_copy: Path) -> None:
    repeats = "".join(f'    - "--max-num-seqs"\n    - "{n}"\n' for n in (8, 16, 32))
    text = inject(corpus_copy, BASE, BASE + repeats)
    found = sorted(rendered_findings(corpus_copy, "FLAG011"), key=lambda f: f.line)
    first = line_of(text, '"--max-num-seqs"')
    assert [f.related[0].line for f in found] == [first, first], found
    assert [f.line for f in found] == [first + 2, first + 4]
    # the site drops the earlier copies by design: that is the problem, not "no command"
    assert all("in no command" not in f.message for f in found), found


def test_a_recipe_wide_field_is_never_said_to_reach_no_command(corpus_copy: Path) -> None:
    # min_vllm_version is not an argv token: "(in no command the site renders)" would be
    # a false claim about a finding that concerns every command
    text = (corpus_copy / GLM).read_text()
    line = next(ln for ln in text.splitlines() if "min_vllm_version:" in ln)
    inject(corpus_copy, line, line.split(":")[0] + ': "nightly"')
    found = rendered_findings(corpus_copy, "FLAG019")
    assert found and all(f.pointer.endswith("/min_vllm_version") for f in found), found
    assert all("in no command" not in f.message for f in found), found
