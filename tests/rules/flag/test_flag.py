"""FLAG rules: faults injected into real recipes of the corpus at ``main`` (GLM-5.1 mostly),
each with its passing counterpart, plus the real defects the corpus has."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once
from validator.cli import main
from validator.findings import Finding

GLM = "models/zai-org/GLM-5.1.yaml"


def findings(root: Path, path: str = GLM, prefix: str = "FLAG") -> list[tuple[str, str, int, str]]:
    return rows(check_tree(root, path), prefix)


def rows(found: list[Finding], prefix: str = "FLAG") -> list[tuple[str, str, int, str]]:
    """(rule, pointer, line, message) of the findings of rules named ``prefix...``."""
    return [(f.rule, f.pointer, f.line, f.message) for f in found if f.rule.startswith(prefix)]


def rules(root: Path, path: str = GLM) -> set[str]:
    return rules_of(findings(root, path))


def rules_of(found: list[tuple[str, str, int, str]]) -> set[str]:
    return {r for r, _, _, _ in found}


def inject(root: Path, old: str, new: str, path: str = GLM) -> str:
    return replace_once(root / path, old, new)


BASE = '    - "--trust-remote-code"\n    - "--chat-template-content-format=string"\n'


# GLM-5.1 at main has one FLAG016 warning (VLLM_USE_FLASHINFER_MOE_FP4 is no longer read
# by the newest releases) and no errors; injected overrides may add FLAG012 infos.
BASELINE = {"FLAG016"}
IGNORED = {"FLAG012", "FLAG016"}


def test_unmodified_glm_has_no_flag_errors(corpus_copy: Path) -> None:
    found = findings(corpus_copy)
    assert rules_of(found) == BASELINE
    (env,) = [f for f in found if f[0] == "FLAG016"]
    assert env[1] == "/variants/nvfp4/extra_env/VLLM_USE_FLASHINFER_MOE_FP4"
    assert "no longer read from vLLM" in env[3]


CASES = [
    # (rule, old, new, pointer, needle)
    ("FLAG001", '    - "--trust-remote-code"\n', '    - "--trust-remote-codes"\n',
     "/model/base_args/0", '"--trust-remote-codes"'),
    ("FLAG004", '      - "fp8"\n    extra_env:', "    extra_env:",
     "/variants/nvfp4/extra_args/0", '      - "--kv-cache-dtype"'),
    ("FLAG005", '    - "--trust-remote-code"\n', '    - "--trust-remote-code=true"\n',
     "/model/base_args/0", '"--trust-remote-code=true"'),
    ("FLAG006", '      - "fp8"\n    extra_env:', '      - "fp9"\n    extra_env:',
     "/variants/nvfp4/extra_args/1", '      - "fp9"'),  # on the value, not the flag
    ("FLAG007", '      - "--speculative-config.method"\n      - "mtp"\n'
     '      - "--speculative-config.num_speculative_tokens"\n      - "3"\n',
     '      - "--speculative-config"\n      - \'{"method": "mtp",}\'\n',
     "/features/spec_decoding/args/1", '{"method": "mtp",}'),
    ("FLAG008", '      - "--speculative-config.num_speculative_tokens"\n      - "3"\n',
     '      - "--speculative-config.num_speculative_tokens"\n      - "0"\n',
     "/features/spec_decoding/args/2", "num_speculative_tokens\""),
    ("FLAG009", '      - "glm47"\n',
     '      - "glm47"\n      - "--max-num-seqs.limit"\n      - "8"\n',
     "/features/tool_calling/args/2", "max-num-seqs.limit"),
    ("FLAG010", '      - "--tool-call-parser"\n      - "glm47"\n', "",
     "/features/tool_calling/args/0", '"--enable-auto-tool-choice"'),
    ("FLAG011", BASE, BASE + '    - "--trust-remote-code"  # again\n', "/model/base_args/2",
     "# again"),
    ("FLAG013", '"--chat-template-content-format=string"',
     '"--chat_template_content_format=string"', "/model/base_args/1",
     "chat_template_content_format"),
    ("FLAG014", '    - "--trust-remote-code"\n', '    - "--trust-remote"\n',
     "/model/base_args/0", '"--trust-remote"'),
    ("FLAG015", BASE, BASE + '    - "--max-model-len"\n    - "300000"\n', "/model/base_args/2",
     '"--max-model-len"'),
    ("FLAG016", "  base_env: {}", '  base_env:\n    VLLM_NOT_A_REAL_VARIABLE: "1"',
     "/model/base_env/VLLM_NOT_A_REAL_VARIABLE", "VLLM_NOT_A_REAL_VARIABLE"),
]


@pytest.mark.parametrize(("rule", "old", "new", "pointer", "needle"), CASES,
                         ids=[c[0] for c in CASES])
def test_injected_fault_is_found_at_its_line(corpus_copy: Path, rule: str, old: str, new: str,
                                             pointer: str, needle: str) -> None:
    text = inject(corpus_copy, old, new)
    expected = line_of(text, needle)
    found = findings(corpus_copy)
    assert any(r == rule and p == pointer and ln == expected for r, p, ln, _ in found), found
    assert rules_of(found) - IGNORED == {rule} - IGNORED, found


def test_spec_tokens_dotted_value_that_swallows_a_flag(corpus_copy: Path) -> None:
    inject(corpus_copy, '      - "--speculative-config.num_speculative_tokens"\n      - "3"\n',
           '      - "--speculative-config.num_speculative_tokens"\n')
    found = findings(corpus_copy)
    assert {r for r, *_ in found} - IGNORED == {"FLAG004"}, found


def test_shadowing_names_both_lines(corpus_copy: Path) -> None:
    text = inject(corpus_copy, BASE, BASE + '    - "--kv-cache-dtype"\n    - "auto"\n')
    found = [f for f in check_tree(corpus_copy, GLM) if f.rule == "FLAG012"]
    variant_line = line_of(text, '      - "--kv-cache-dtype"')
    base_line = line_of(text, '    - "--kv-cache-dtype"')
    (hit,) = [f for f in found if f.line == variant_line]
    assert hit.related[0].line == base_line and "line" not in hit.message
    assert "variants.nvfp4.extra_args" in hit.message


def test_hardware_override_shadows_base_args(corpus_copy: Path) -> None:
    text = inject(corpus_copy, BASE, BASE + '    - "--kv-cache-dtype"\n    - "auto"\n')
    text = inject(corpus_copy, "hardware_overrides: {}",
                  'hardware_overrides:\n  hopper:\n    extra_args: ["--kv-cache-dtype", "fp8"]')
    found = [f for f in check_tree(corpus_copy, GLM) if f.rule == "FLAG012"
             and f.pointer == "/hardware_overrides/hopper/extra_args/0"]
    # the hopper override comes after both the base args and the nvfp4 variant's args; it
    # changes the base args' value (auto -> fp8), not the variant's (fp8 already)
    assert sorted(f.related[0].message for f in found) == ["model.base_args"]
    assert {f.line for f in found} == {line_of(text, "  hopper:") + 1}


def test_parser_newer_than_minimum_names_its_first_release(corpus_copy: Path) -> None:
    inject(corpus_copy, 'min_vllm_version: "0.19.1"', 'min_vllm_version: "0.10.0"')
    found = [f for f in findings(corpus_copy) if f[0] == "FLAG006"]
    glm47 = [m for _, p, _, m in found if p == "/features/tool_calling/args/1"]
    assert glm47 and "`glm47` is accepted only from vLLM" in glm47[0]


def test_flag_newer_than_minimum(corpus_copy: Path) -> None:
    text = inject(corpus_copy, BASE, BASE + '    - "--linear-backend"\n    - "auto"\n')
    (found,) = [f for f in findings(corpus_copy) if f[0] == "FLAG002"]
    assert found[1:3] == ("/model/base_args/2", line_of(text, '"--linear-backend"'))
    assert "exists only from vLLM 0.22.0" in found[3] and "0.19.1" in found[3]


def test_flag_removed_inside_the_install_range_is_an_error(corpus_copy: Path) -> None:
    assert not {"FLAG003", "FLAG023"} & rules(corpus_copy)
    # --calculate-kv-scales: 0.7.0 .. 0.27.1 (vendored registries); the site's
    # `uv pip install -U vllm` pulls the newest release, so 0.28.0 on are claimed
    inject(corpus_copy, BASE, BASE + '    - "--calculate-kv-scales"\n')
    every = findings(corpus_copy)
    (found,) = [f for f in every if f[0] == "FLAG023"]
    assert found[1] == "/model/base_args/2"
    assert "rejected by vLLM 0.28.0–0.33.0, 6 releases" in found[3]
    assert "FLAG003" not in rules_of(every)


def test_flag_removed_after_every_pinned_install_path_is_a_warning(corpus_copy: Path) -> None:
    # every install path pins a release before the removal: a warning about upgrading
    inject(corpus_copy, BASE, BASE + '    - "--calculate-kv-scales"\n')
    inject(corpus_copy, "  base_env: {}\n", '  base_env: {}\n  docker_image: '
           '"vllm/vllm-openai:v0.21.0"\n  install:\n    pip:\n      command: '
           '"uv pip install vllm==0.21.0"\n')
    every = findings(corpus_copy)
    (found,) = [f for f in every if f[0] == "FLAG003"]
    assert found[1] == "/model/base_args/2"
    assert "was removed in vLLM 0.28.0" in found[3]
    assert "FLAG023" not in rules_of(every)


AUDIO = "models/stabilityai/stable-audio-open-1.0.yaml"  # tasks: omni, min 0.22.0


def test_omni_recipe_is_checked_against_vllm_omni(corpus_copy: Path) -> None:
    assert findings(corpus_copy, AUDIO) == []
    text = inject(corpus_copy, '    - "--enforce-eager"\n',
                  '    - "--enforce-eager"\n    - "--omni"\n    - "--cache-backend"\n'
                  '    - "tea_cache"\n    - "--enforce-eagre"\n', AUDIO)
    every = check_tree(corpus_copy, AUDIO)
    found = rows(every)
    line = line_of(text, '"--enforce-eagre"')
    assert [(r, ln) for r, _, ln, _ in found] == [("FLAG001", line)], found
    assert "any vendored vLLM-Omni release up to" in found[0][3]
    [hint] = [f.hint for f in every if f.rule == "FLAG001"]
    assert hint is not None and "`--enforce-eager`" in hint


def test_omni_flag_newer_than_the_minimum_names_the_vllm_omni_release(
        corpus_copy: Path) -> None:
    inject(corpus_copy, '    - "--enforce-eager"\n',
           '    - "--enforce-eager"\n    - "--dlo-resident-layers"\n    - "2"\n', AUDIO)
    [(rule, _, _, message)] = findings(corpus_copy, AUDIO)
    assert rule == "FLAG002"
    assert "only from vLLM-Omni 0.27.0rc1, but the recipe's minimum is 0.22.0" in message


def test_omni_recipe_older_than_every_vllm_omni_release_is_not_checked(
        corpus_copy: Path) -> None:
    inject(corpus_copy, 'min_vllm_version: "0.22.0"', 'min_vllm_version: "0.10.0"', AUDIO)
    found = findings(corpus_copy, AUDIO)
    assert [r for r, *_ in found] == ["FLAG017"]
    assert "the oldest vLLM-Omni release on the package index, 0.11.0rc1" in found[0][3]


QWEN38 = "models/Qwen/Qwen3.8-27B.yaml"  # ascend_w8a8 variant (min 0.17.0: vllm-ascend 0.17.0rc1)


def test_ascend_variant_is_checked_against_vllm_ascend(corpus_copy: Path) -> None:
    found = findings(corpus_copy, QWEN38)
    assert not any(r in {"FLAG001", "FLAG002", "FLAG005", "FLAG006", "FLAG007", "FLAG017",
                         "FLAG021"} for r, p, _, _ in found if "ascend" in p), found
    text = inject(corpus_copy, '      - "16384"\n',
                  '      - "16384"\n      - "--enable-expert-paralel"\n', QWEN38)
    every = check_tree(corpus_copy, QWEN38)
    bad = [(r, ln, m) for r, p, ln, m in rows(every) if r == "FLAG001"]
    assert bad == [("FLAG001", line_of(text, '"--enable-expert-paralel"'), bad[0][2])]
    assert "vLLM-Ascend" in bad[0][2]
    [hint] = [f.hint for f in every if f.rule == "FLAG001"]
    assert hint is not None and "`--enable-expert-parallel`" in hint


def test_additional_config_key_not_read_by_vllm_ascend(corpus_copy: Path) -> None:
    text = inject(corpus_copy, '{"enable_cpu_binding":true}', '{"enable_cpu_bindings":true}',
                  QWEN38)
    hits = [(ln, m) for r, _, ln, m in findings(corpus_copy, QWEN38) if r == "FLAG021"]
    assert len(hits) == 1 and hits[0][0] == line_of(text, "enable_cpu_bindings")
    assert "`enable_cpu_bindings` is not read by any vendored vLLM-Ascend release" in hits[0][1]


def test_additional_config_key_read_only_by_later_vllm_ascend(corpus_copy: Path) -> None:
    inject(corpus_copy, '{"enable_cpu_binding":true}',
           '{"enable_cpu_binding":true,"enable_sparse_c8":true}', QWEN38)
    hits = [m for r, _, _, m in findings(corpus_copy, QWEN38) if r == "FLAG021"]
    assert len(hits) == 1 and "`enable_sparse_c8` is read only from vLLM-Ascend" in hits[0]


def test_min_version_predating_vllm_serve(corpus_copy: Path) -> None:
    path = "models/microsoft/Phi-4-reasoning.yaml"  # real defect at main: "0.4.2"
    assert [r for r, *_ in findings(corpus_copy, path)] == ["FLAG018"]
    inject(corpus_copy, 'min_vllm_version: "0.4.2"', 'min_vllm_version: "0.10.0"', path)
    assert "FLAG018" not in rules(corpus_copy, path)


def test_nightly_is_checked_against_newest_release(corpus_copy: Path) -> None:
    inject(corpus_copy, 'min_vllm_version: "0.19.1"', 'min_vllm_version: "nightly"')
    found = findings(corpus_copy)
    assert next(m for r, _, _, m in found if r == "FLAG019").startswith("`nightly` is not a")


def test_flag_and_value_in_one_item(corpus_copy: Path) -> None:
    path = "models/XiaomiMiMo/MiMo-V2.5-Pro.yaml"  # real defect at main
    assert "FLAG020" in rules(corpus_copy, path)
    inject(corpus_copy, '"--max-model-len auto"', '"--max-model-len"\n    - "auto"', path)
    assert "FLAG020" not in rules(corpus_copy, path)


def test_unknown_parser_plugin_flag_in_corpus(corpus_repo: Path) -> None:
    found = findings(corpus_repo, "models/nvidia/NVIDIA-Nemotron-Nano-9B-v2.yaml")
    (hit,) = [f for f in found if f[0] == "FLAG001"]
    assert "--tool-call-parser-plugin" in hit[3]


# Every FLAG/GUIDE error at corpus main, each verified by hand against the vLLM source of
# the releases involved (parsers, backends and flags newer than the declared minimum,
# values the minimum rejects, a misspelt flag, closing fences glued to commands), plus the
# flags a release inside the install range rejects (FLAG023/GUIDE017: --disable-log-requests
# is absent from 0.17.0-0.32.0, --swap-space and --guided-decoding-backend were removed).
# Value findings are on the value's line. Guide blocks whose section states its own version
# or a nightly image are judged by it (Llama-3.1-8B EAGLE3 >= 0.9.0, Qwen3-32B Ironwood
# nightly, Muse-Glimmer MI300X PR/nightly). Qwen-Image's --ignored-layers is FLAG024 (info):
# the recipe installs vLLM-Omni from source. Structured arguments are judged in the install
# channel of the configurations that render them: Llama-3.1-8B's EAGLE3 feature states
# "requires vLLM >= 0.9.0" (no FLAG002 for --speculative-config), DGX Spark runs
# DeepSeek-V4-Flash in the community build eugr/spark-vllm-b12x:latest (b12x,
# --linear-backend), MiniMax-H3's NVIDIA hardware in the launch image
# vllm/vllm-omni:minimax-h3 (--dlo-resident-layers). (These are the argument lists' own
# verdicts, without rendering: DeepSeek-V4-Flash's multi_node_tp override for every
# Blackwell hardware keeps its two errors here, as the lists alone cannot tell that only
# DGX Spark renders it; the rendered check, the default of check and pr, judges it there.)
MAIN_ERRORS = {
    "MiniMaxAI/MiniMax-M2.1.yaml":
        "FLAG006:35 FLAG006:41 FLAG002:70 GUIDE006:115 GUIDE006:116 GUIDE006:128 GUIDE006:129 "
        "GUIDE006:142 GUIDE006:143 GUIDE006:152 GUIDE006:153",
    "MiniMaxAI/MiniMax-M2.yaml":
        "FLAG006:41 FLAG006:47 FLAG002:88 GUIDE006:153 GUIDE006:154 GUIDE006:166 GUIDE006:167 "
        "GUIDE006:180 GUIDE006:181 GUIDE006:191 GUIDE006:192 GUIDE006:201 GUIDE006:202",
    "OpenGVLab/InternVL3_5-8B.yaml": "FLAG032:56 FLAG032:57 FLAG002:34 FLAG002:38",
    "PaddlePaddle/PaddleOCR-VL-1.5.yaml": "FLAG002:42",
    "PaddlePaddle/PaddleOCR-VL-1.6.yaml": "FLAG002:44",
    "PaddlePaddle/PaddleOCR-VL.yaml": "FLAG002:41",
    "Qwen/Qwen2.5-32B.yaml": "FLAG002:41 FLAG002:42",
    "Qwen/Qwen2.5-VL-72B-Instruct.yaml":
        "FLAG032:64 FLAG032:65 FLAG002:34 FLAG002:38 FLAG002:70 FLAG002:75 FLAG002:81 "
        "FLAG007:84 GUIDE004:124 GUIDE006:125 GUIDE004:136 GUIDE006:137 GUIDE004:148 "
        "GUIDE006:149",  # JSON --limit-mm-per-prompt: from 0.8.5
    "Qwen/Qwen2.5-VL-7B-Instruct.yaml":
        "FLAG032:61 FLAG032:62 FLAG002:32 FLAG002:36 GUIDE006:109 GUIDE017:111 GUIDE004:112 "
        "GUIDE006:121 GUIDE004:131 GUIDE006:132",
    "Qwen/Qwen3-1.7B.yaml": "FLAG006:38",
    "Qwen/Qwen3-235B-A22B-Instruct-2507.yaml":
        "FLAG032:74 FLAG032:75 GUIDE017:115 GUIDE017:116 GUIDE017:134 GUIDE017:135",
    "Qwen/Qwen3-30B-A3B.yaml": "FLAG006:38",
    "Qwen/Qwen3-32B.yaml": "FLAG032:69 FLAG032:70 FLAG006:41 GUIDE017:120",
    "Qwen/Qwen3-4B.yaml": "FLAG032:59 FLAG032:60 FLAG006:39 GUIDE017:103",
    "Qwen/Qwen3-8B.yaml": "FLAG006:39",
    "Qwen/Qwen3-Next-80B-A3B-Instruct.yaml": "FLAG030:40 GUIDE006:141",  # qwen3_next_mtp: 0.10.2
    "Qwen/Qwen3-VL-235B-A22B-Instruct.yaml": "FLAG002:44",
    "Qwen/Qwen3.6-35B-A3B.yaml": "FLAG033:53",  # speculative key moe_backend: 0.19.0
    "baidu/ERNIE-4.5-21B-A3B-PT.yaml":  # ernie_mtp: 0.10.2; offloading: 0.11.0
        "FLAG032:60 FLAG032:61 FLAG030:29 GUIDE006:125",
    "baidu/ERNIE-4.5-VL-28B-A3B-PT.yaml": "FLAG002:33 GUIDE017:148",
    "deepseek-ai/DeepSeek-OCR-2.yaml": "FLAG002:35",
    "deepseek-ai/DeepSeek-OCR.yaml": "FLAG002:40",
    "deepseek-ai/DeepSeek-V3.2-Exp.yaml": "FLAG006:44",
    "deepseek-ai/DeepSeek-V4-Flash.yaml": "FLAG006:488 FLAG002:489",
    "ibm-granite/granite-3.2-2b-instruct.yaml": "GUIDE013:63",
    "inclusionAI/Ling-3.0-flash.yaml":
        "FLAG006:40 FLAG006:45 GUIDE006:107 GUIDE006:108 GUIDE006:124 GUIDE006:125 GUIDE006:141 "
        "GUIDE006:142",
    "internlm/Intern-S1.yaml": "FLAG002:44 FLAG002:48",
    "meta-llama/Llama-3.1-8B-Instruct.yaml": "FLAG002:84 FLAG002:85 GUIDE017:139",
    "meta-llama/Llama-3.3-70B-Instruct.yaml": "GUIDE017:134",
    "meta-llama/Llama-4-Scout-17B-16E-Instruct.yaml": "GUIDE017:149",
    "meta-models/Muse-Glimmer-30B.yaml":
        "FLAG006:71 FLAG006:76 GUIDE006:197 GUIDE006:198 GUIDE006:276",
    "microsoft/Phi-4-mini-instruct.yaml": "FLAG002:30 FLAG002:34",
    "microsoft/Phi-4-multimodal-instruct.yaml": "GUIDE013:66",
    "microsoft/Phi-4-reasoning.yaml": "FLAG018:17 GUIDE013:63",
    "mistralai/Ministral-3-14B-Instruct-2512.yaml": "FLAG002:46",
    "mistralai/Ministral-3-8B-Reasoning-2512.yaml": "FLAG002:50",
    "mistralai/Mistral-Large-3-675B-Instruct-2512.yaml": "FLAG002:43",
    "moonshotai/Kimi-K2-Instruct.yaml": "FLAG023:92 GUIDE017:143",
    "moonshotai/Kimi-Linear-48B-A3B-Instruct.yaml": "GUIDE006:122",  # `auto` from 0.14.0
    "nvidia/NVIDIA-Nemotron-Nano-12B-v2-VL-BF16.yaml": "FLAG002:38",
    "nvidia/NVIDIA-Nemotron-Nano-9B-v2.yaml": "FLAG032:78 FLAG032:79 FLAG001:35 GUIDE003:107",
    "openai/gpt-oss-120b.yaml":
        "FLAG006:36 FLAG002:75 FLAG002:77 FLAG002:78 GUIDE004:180 GUIDE004:181 GUIDE004:182 "
        "GUIDE004:194 GUIDE006:200",
    "openai/gpt-oss-20b.yaml":
        "FLAG006:40 FLAG002:66 FLAG002:68 FLAG002:69 GUIDE004:191 GUIDE004:192 GUIDE004:193 "
        "GUIDE004:216 GUIDE006:222",
    "openai/whisper-large-v3.yaml": "GUIDE013:63",
    "stepfun-ai/Step-3.5-Flash.yaml":
        "FLAG006:33 FLAG006:39 GUIDE006:137 GUIDE006:138 GUIDE006:151 GUIDE006:152 GUIDE006:162 "
        "GUIDE006:163 FLAG030:46 GUIDE006:167",
    "tencent/HunyuanOCR.yaml": "FLAG002:31",
    "zai-org/GLM-4.5V.yaml": "FLAG002:57",
    "zai-org/GLM-4.6V.yaml": "FLAG002:57",
    "zai-org/GLM-4.7.yaml": "FLAG006:41 GUIDE006:139 GUIDE017:151",
    "zai-org/GLM-5.2.yaml": "FLAG030:70 GUIDE006:216",  # dspark: 0.25.0
    "zai-org/GLM-OCR.yaml": "FLAG002:41",
    "zai-org/Glyph.yaml": "FLAG002:42",
    "zai-org/glm-4-9b-hf.yaml": "GUIDE013:63",
    "Qwen/Qwen3Guard-Gen-8B.yaml": "FLAG032:51 FLAG032:52",  # offloading: 0.11.0
}


def test_corpus_main_errors_are_the_verified_defects(
        corpus_main_findings: list[Finding]) -> None:
    found: dict[str, list[str]] = {}
    for f in corpus_main_findings:
        if f.rule.startswith(("FLAG", "GUIDE")) and f.severity == "error":
            found.setdefault(f.path[len("models/"):], []).append(f"{f.rule}:{f.line}")
    expected = {k: sorted(v.split()) for k, v in MAIN_ERRORS.items()}
    assert {k: sorted(v) for k, v in found.items()} == expected


def test_strategy_file_env_and_args_are_the_files_own_problems(
        corpus_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A strategy's unknown flag and unknown ``VLLM_*`` name are the strategy file's
    problems, reported once on that file (``tests/rules/flag/test_flag_context_files.py``,
    ``tests/rules/flag/test_strategy_env.py``), not on every recipe listing it."""
    strategy = corpus_copy / "strategies" / "pd_cluster.yaml"
    text = strategy.read_text()
    port = '    VLLM_NIXL_SIDE_CHANNEL_PORT: "5558"'
    text = text.replace(port, port + '\n    VLLM_NOT_A_REAL_VARIABLE: "1"')
    text = text.replace('    - "8002"\n', '    - "8002"\n    - "--no-such-decode-flag"\n')
    strategy.write_text(text)
    found = [f for f in check_tree(corpus_copy, GLM) if f.rule in {"FLAG001", "FLAG016"}
             and f.pointer == "/compatible_strategies/6"]
    assert found == []
    main(["check", "--offline", "--no-cache", "--format", "json",
          str(corpus_copy / "strategies/pd_cluster.yaml")])
    on_file = [(d["path"], f["rule"], f["line"])
               for d in json.loads(capsys.readouterr().out)["documents"] for f in d["findings"]]
    assert on_file == [("strategies/pd_cluster.yaml", "FLAG001", line_of(text, "--no-such-dec")),
                       ("strategies/pd_cluster.yaml", "FLAG016", line_of(text, "VLLM_NOT_A_REAL"))]


def test_unknown_flag_hint_names_the_nearest_real_flag(corpus_copy: Path) -> None:
    inject(corpus_copy, BASE, BASE + '    - "--max-num-sequences"\n    - "64"\n')
    [hint] = [f.hint for f in check_tree(corpus_copy, GLM) if f.rule == "FLAG001"]
    assert hint is not None and "`--max-num-seqs`" in hint


def test_dotted_flag_hint_names_an_option_that_takes_the_keys(corpus_copy: Path) -> None:
    """``--cc`` is the short ``-cc`` (``--compilation-config``) with a dash too many; the
    nearest long option to ``--cc`` is ``--grpc``, which takes no dotted keys. The hint
    offers the JSON-valued options, with the keys as written, in the YAML list and in the
    guide alike."""
    inject(corpus_copy, BASE, BASE + '    - "--cc.pass_config.fuse_allreduce_rms"\n'
           '    - "true"\n')
    inject(corpus_copy, "       --tensor-parallel-size 8 \\\n",
           "       --tensor-parallel-size 8 \\\n       --compilation-confg.mode 3 \\\n")
    found = {f.rule: f.hint for f in check_tree(corpus_copy, GLM)
             if f.rule in ("FLAG001", "GUIDE003")}
    assert found["FLAG001"] == "did you mean `-cc.pass_config.fuse_allreduce_rms`?"
    hint = found["GUIDE003"]
    assert hint is not None and "`--compilation-config.mode`" in hint
    assert "grpc" not in hint


def test_additional_config_dotted_key_is_reported_on_its_own_line(corpus_copy: Path) -> None:
    text = inject(corpus_copy, '      - "16384"\n',
                  '      - "16384"\n      - "--additional-config.enable_cpu_bindingx"\n'
                  '      - "true"\n', QWEN38)
    hits = [ln for r, _, ln, _ in findings(corpus_copy, QWEN38) if r == "FLAG021"]
    assert hits == [line_of(text, "--additional-config.enable_cpu_bindingx")]


def test_additional_config_key_rejected_by_a_strict_vllm_ascend(corpus_copy: Path) -> None:
    # from vllm-ascend 0.27 AscendConfig forbids unknown keys: the server does not start
    inject(corpus_copy, 'min_vllm_version: "0.17.0"', 'min_vllm_version: "0.28.0"', QWEN38)
    assert not {"FLAG021", "FLAG022"} & rules(corpus_copy, QWEN38)  # enable_cpu_binding: fine
    text = inject(corpus_copy, '{"enable_cpu_binding":true}', '{"enable_cpu_bindings":true}',
                  QWEN38)
    hits = [(r, ln, m) for r, _, ln, m in findings(corpus_copy, QWEN38)
            if r in {"FLAG021", "FLAG022"}]
    assert [(r, ln) for r, ln, _ in hits] == [("FLAG022", line_of(text, "enable_cpu_bindings"))]
    assert "refuses unknown keys and does not start" in hits[0][2]


def test_hardware_key_is_ascend_by_the_taxonomy_not_by_its_name(corpus_copy: Path) -> None:
    """`huawei` (a brand key of the taxonomy) is served by vLLM-Ascend; `h100` is not,
    even with Ascend-looking arguments."""
    inject(corpus_copy, "hardware_overrides: {}\n", 'hardware_overrides:\n  huawei:\n'
           '    extra_env:\n      VLLM_ASCEND_ENABLE_FLASHCOMM1: "1"\n  h100:\n    extra_args:\n'
           '      - "--additional-config"\n      - \'{"whatever": 1}\'\n', QWEN38)
    found = findings(corpus_copy, QWEN38)
    assert not [f for f in found if "hardware_overrides/huawei" in f[1] or
                ("hardware_overrides/h100" in f[1] and f[0] in {"FLAG016", "FLAG021"})], found
    inject(corpus_copy, "VLLM_ASCEND_ENABLE_FLASHCOMM1", "VLLM_ASCEND_ENABLE_FLASHCOM1", QWEN38)
    assert any(r == "FLAG016" and "huawei" in p and "vLLM-Ascend" in m
               for r, p, _, m in findings(corpus_copy, QWEN38))


def test_json_nested_too_deeply_is_a_finding_not_a_crash(corpus_copy: Path) -> None:
    deep = '{"a":' * 1200 + "1" + "}" * 1200
    text = inject(corpus_copy, BASE, BASE + f"    - \"--compilation-config\"\n    - '{deep}'\n")
    found = [f for f in check_tree(corpus_copy, GLM) if f.rule.startswith("FLAG")]
    assert [(f.rule, f.line) for f in found if f.severity == "error"] == [
        ("FLAG007", line_of(text, deep[:40]))]  # at the value it judges
    assert "nested too deeply" in next(f.message for f in found if f.rule == "FLAG007")


def test_omni_flag_in_a_recipe_not_served_by_vllm_omni(corpus_copy: Path) -> None:
    inject(corpus_copy, BASE, BASE + '    - "--omni"\n')
    [f] = [f for f in check_tree(corpus_copy, GLM) if f.rule == "FLAG001"]
    assert "vLLM-Omni's" in f.message and f.hint is not None and "meta.tasks" in f.hint


def test_omni_env_vars_read_through_constants_and_settings(corpus_copy: Path) -> None:
    path = "models/fishaudio/s2-pro.yaml"  # min 0.19.0: vllm-omni 0.18.0
    inject(corpus_copy, 'min_vllm_version: "0.19.0"', 'min_vllm_version: "0.32.0"', path)
    inject(corpus_copy, "  base_env: {}\n", '  base_env:\n    VLLM_OMNI_FISH_KVCACHE_ATTN: "0"\n'
           '    VLLM_OMNI_SERVER_STORAGE__PATH: "/data"\n', path)
    assert "FLAG016" not in rules(corpus_copy, path)
    inject(corpus_copy, "VLLM_OMNI_FISH_KVCACHE_ATTN", "VLLM_OMNI_FISH_KV_ATTN", path)
    assert "FLAG016" in rules(corpus_copy, path)


def test_omni_task_written_as_a_string_still_selects_vllm_omni(corpus_copy: Path) -> None:
    """`tasks: omni` is a schema error (SCHEMA001); the flags are still vLLM-Omni's."""
    inject(corpus_copy, "  tasks:\n    - omni\n", "  tasks: omni\n", AUDIO)
    inject(corpus_copy, '    - "--enforce-eager"\n', '    - "--enforce-eager"\n    - "--usp"\n'
           '    - "2"\n', AUDIO)
    every = check_tree(corpus_copy, AUDIO)
    assert rows(every) == []
    assert "SCHEMA001" in {f.rule for f in every}


def test_feature_hardware_override_overrides_base_args_not_the_reverse(
        corpus_copy: Path) -> None:
    """A feature's ``hardware_overrides`` args render with the feature (after the base
    args), so the override is the later layer: FLAG012 is reported on the override, naming
    the base args it overrides — never on the base args. Checked by argument layers only
    (``check_tree``), the override is still the renderer's: the site reads a feature's
    override by generation (``hopper``), so it names the configurations."""
    text = inject(corpus_copy, BASE, BASE + '    - "--max-num-seqs"\n    - "64"\n')
    text = inject(corpus_copy, '      - "glm45"\n',
                  '      - "glm45"\n    hardware_overrides:\n      hopper:\n        args:\n'
                  '          - "--reasoning-parser"\n          - "glm45"\n'
                  '          - "--max-num-seqs"\n          - "32"\n')
    found = [f for f in check_tree(corpus_copy, GLM) if f.rule == "FLAG012"]
    override = "/features/reasoning/hardware_overrides/hopper/args/2"
    assert [f.pointer for f in found] == [override], found
    (hit,) = found
    assert "features.reasoning.hardware_overrides.hopper.args overrides `--max-num-seqs 64` " \
        "of model.base_args (on h200 · " in hit.message
    assert hit.line == line_of(text, '"--max-num-seqs"', line_of(text, "      hopper:"))
    assert hit.related[0].line == line_of(text, '"--max-num-seqs"')
