"""GUIDE rules: faults injected into the guide of the real GLM-5.1 recipe at corpus ``main``
(each case also passes unmodified), a multi-node fixture of our own, and real defects."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once

GLM = "models/zai-org/GLM-5.1.yaml"
SERVE = "  vllm serve zai-org/GLM-5.1-FP8 \\\n"  # the guide's `vllm serve` block
DOCKER = "    vllm/vllm-openai:latest zai-org/GLM-5.1-FP8 \\\n"


def guide_findings(root: Path, path: str = GLM) -> list[tuple[str, int, str]]:
    return [(f.rule, f.line, f.message) for f in check_tree(root, path)
            if f.rule.startswith("GUIDE")]


def inject(root: Path, old: str, new: str, path: str = GLM) -> str:
    return replace_once(root / path, old, new)


def test_unmodified_glm_guide_is_clean(corpus_copy: Path) -> None:
    assert guide_findings(corpus_copy) == []


CASES = [
    # (rule, old, new, needle of the reported line)
    ("GUIDE001", SERVE, SERVE.replace("\\\n", "\\   \n"), "vllm serve zai-org/GLM-5.1-FP8"),
    ("GUIDE002", "num_speculative_tokens 3 \\\n", "num_speculative_tokens 3\n",
     "       --tool-call-parser glm47"),
    ("GUIDE003", SERVE, SERVE + "       --enable-turbo-mode \\\n", "--enable-turbo-mode"),
    ("GUIDE004", SERVE, SERVE + "       --linear-backend auto \\\n", "--linear-backend"),
    ("GUIDE017", SERVE, SERVE + "       --calculate-kv-scales \\\n", "--calculate-kv-scales"),
    ("GUIDE006", SERVE, SERVE + "       --kv-cache-dtype fp9 \\\n", "--kv-cache-dtype fp9"),
    ("GUIDE007", SERVE + "       --tensor-parallel-size 8",
     SERVE + "       --tensor-parallel 8", "--tensor-parallel 8"),
    ("GUIDE008", "       --tool-call-parser glm47 \\\n", "", "       --enable-auto-tool-choice"),
    ("GUIDE009", SERVE, SERVE.replace("GLM-5.1-FP8", "GLM-5-FP8"), "vllm serve zai-org/GLM-5-FP"),
    ("GUIDE010", SERVE, "  VLLM_NOT_A_REAL_VARIABLE=1 " + SERVE.lstrip(),
     "VLLM_NOT_A_REAL_VARIABLE=1"),
    ("GUIDE011", "       --reasoning-parser glm45 \\\n",
     "       --reasoning-parser deepseek_r1 \\\n", "--reasoning-parser deepseek_r1"),
]


@pytest.mark.parametrize(("rule", "old", "new", "needle"), CASES, ids=[c[0] for c in CASES])
def test_injected_guide_fault_is_found_at_its_line(corpus_copy: Path, rule: str, old: str,
                                                   new: str, needle: str) -> None:
    text = inject(corpus_copy, old, new)
    expected = line_of(text, needle)
    found = guide_findings(corpus_copy)
    assert (rule, expected) in [(r, ln) for r, ln, _ in found], found
    assert {r for r, _, _ in found} == {rule}, found


def test_docker_command_flags_are_checked(corpus_copy: Path) -> None:
    text = inject(corpus_copy, DOCKER, DOCKER + "      --kv-cache-dtype fp9 \\\n")
    found = guide_findings(corpus_copy)
    assert found == [("GUIDE006", line_of(text, "--kv-cache-dtype fp9"), found[0][2])]


MULTI_NODE = """
  ## Two-node data parallel (our own fixture)

  Node 0:

  ```bash
  vllm serve zai-org/GLM-5.1-FP8 \\
    --data-parallel-size 16 --data-parallel-size-local 8 \\
    --data-parallel-address $HEAD_IP --data-parallel-rpc-port 13345 \\
    --enable-expert-parallel --gpu-memory-utilization 0.90
  ```

  Node 1:

  ```bash
  vllm serve zai-org/GLM-5.1-FP8 \\
    --data-parallel-size 16 --data-parallel-size-local 8 --data-parallel-start-rank 8 \\
    --data-parallel-address $HEAD_IP --data-parallel-rpc-port 13345 --headless \\
    --enable-expert-parallel --gpu-memory-utilization 0.92 --async-scheduling
  ```
"""


def test_per_node_commands_that_disagree(corpus_copy: Path) -> None:
    text = inject(corpus_copy, "  ## Client Usage\n", MULTI_NODE + "\n  ## Client Usage\n")
    found = [(r, ln, m) for r, ln, m in guide_findings(corpus_copy) if r == "GUIDE012"]
    lines = sorted(ln for _, ln, _ in found)
    node1 = line_of(text, "--data-parallel-start-rank 8")
    assert lines == [node1 + 2, node1 + 2], found  # --gpu-memory-utilization, --async-scheduling
    assert any("0.92" in m and "0.90" in m for _, _, m in found)


def test_per_node_commands_that_agree(corpus_copy: Path) -> None:
    agreeing = MULTI_NODE.replace("0.92 --async-scheduling", "0.90")
    inject(corpus_copy, "  ## Client Usage\n", agreeing + "\n  ## Client Usage\n")
    assert guide_findings(corpus_copy) == []


def test_bench_and_curl_blocks_are_not_commands(corpus_copy: Path) -> None:
    # the benchmark block runs `vllm bench serve --model ... --random-input 8000`, whose
    # flags are not `vllm serve` flags; it must not be checked as a serve command
    text = (corpus_copy / GLM).read_text()
    assert "vllm bench serve" in text and "--random-input 8000" in text
    assert guide_findings(corpus_copy) == []


def test_closing_fence_glued_to_a_command(corpus_copy: Path) -> None:
    path = "models/ibm-granite/granite-3.2-2b-instruct.yaml"  # real defect at main
    text = (corpus_copy / path).read_text()
    found = guide_findings(corpus_copy, path)
    assert [(r, ln) for r, ln, _ in found] == [
        ("GUIDE013", line_of(text, "vllm serve ibm-granite/granite-3.2-2b-instruct  ```"))]
    inject(corpus_copy, "granite-3.2-2b-instruct  ```", "granite-3.2-2b-instruct\n  ```", path)
    assert guide_findings(corpus_copy, path) == []


def test_local_paths_and_placeholders_are_not_other_models(corpus_copy: Path) -> None:
    inject(corpus_copy, SERVE, SERVE.replace("zai-org/GLM-5.1-FP8", "/models/GLM-5.1-FP8"))
    inject(corpus_copy, DOCKER, DOCKER.replace("zai-org/GLM-5.1-FP8", "<model>"))
    assert guide_findings(corpus_copy) == []


def test_headless_node_may_omit_api_server_flags(corpus_copy: Path) -> None:
    head = MULTI_NODE.replace("--gpu-memory-utilization 0.90\n",
                              "--gpu-memory-utilization 0.90 --tool-call-parser glm47 \\\n"
                              "    --enable-auto-tool-choice --port 8000\n")
    agreeing = head.replace("0.92 --async-scheduling", "0.90")
    inject(corpus_copy, "  ## Client Usage\n", agreeing + "\n  ## Client Usage\n")
    assert guide_findings(corpus_copy) == []


ASCEND_NODES = """
  ## Two Atlas nodes (our own fixture, vLLM-Ascend)

  node 0

  ```shell
  export HCCL_IF_IP=$local_ip
  vllm serve zai-org/GLM-5.1-FP8 \\
      --data-parallel-size 4 --data-parallel-size-local 2 --data-parallel-start-rank 0 \\
      --data-parallel-address $node0_ip --data-parallel-rpc-port 12890 \\
      --quantization ascend --gpu-memory-utilization 0.90 \\
      --additional-config '{"enable_kv_nz": true}'
  ```

  node 1

  ```shell
  export HCCL_IF_IP=$local_ip
  vllm serve zai-org/GLM-5.1-FP8 \\
      --data-parallel-size 4 --data-parallel-size-local 2 --data-parallel-start-rank 2 \\
      --data-parallel-address $node0_ip --data-parallel-rpc-port 12890 --headless \\
      --quantization ascend --gpu-memory-utilization 0.92 \\
      --additional-config '{"enable_kv_nz": true, "enable_cpu_binding": true}'
  ```
"""


def test_ascend_node_commands_are_compared_and_checked_against_vllm_ascend(
        corpus_copy: Path) -> None:
    text = inject(corpus_copy, "  ## Client Usage\n", ASCEND_NODES + "\n  ## Client Usage\n")
    found = guide_findings(corpus_copy)
    assert {r for r, _, _ in found} == {"GUIDE012"}, found  # `--quantization ascend` is fine
    # (GLM-5.1 needs vLLM 0.19.1: checked against vllm-ascend 0.19.1rc1, which reads both keys)
    node1 = line_of(text, "--data-parallel-start-rank 2")
    assert sorted(ln for _, ln, _ in found) == [node1 + 2, node1 + 3]
    assert any("--additional-config" in m for _, _, m in found)


def test_fence_never_closed(corpus_copy: Path) -> None:
    text = (corpus_copy / GLM).read_text()
    # the guide's last fence loses its closing line: the block runs to the end
    lines = text.splitlines(keepends=True)
    closing = max(i for i, line in enumerate(lines) if line.strip() == "```")
    opening = max(i for i, line in enumerate(lines[:closing]) if line.strip().startswith("```"))
    (corpus_copy / GLM).write_text("".join(lines[:closing] + lines[closing + 1:]))
    found = [(r, ln) for r, ln, _ in guide_findings(corpus_copy) if r == "GUIDE014"]
    assert found == [("GUIDE014", opening + 1)]
    (corpus_copy / GLM).write_text(text)
    assert [r for r, _, _ in guide_findings(corpus_copy) if r == "GUIDE014"] == []


AUDIO = "models/stabilityai/stable-audio-open-1.0.yaml"  # tasks: omni, min 0.22.0
OMNI_SERVE = """
  ## Serving (our own fixture)

  ```bash
  vllm serve stabilityai/stable-audio-open-1.0 --omni \\
      --port 8091 --enforce-eager
  ```
"""


def test_omni_guide_command_is_checked_against_vllm_omni(corpus_copy: Path) -> None:
    text = inject(corpus_copy, "  ## Overview\n", OMNI_SERVE + "\n  ## Overview\n", AUDIO)
    assert guide_findings(corpus_copy, AUDIO) == []
    replace_once(corpus_copy / AUDIO, "--port 8091 --enforce-eager",
                 "--port 8091 --enforce-eager --stage-overides '{}'")
    found = guide_findings(corpus_copy, AUDIO)
    assert [(r, ln) for r, ln, _ in found] == [("GUIDE003", line_of(text, "--port 8091"))]
    assert "any vendored vLLM-Omni release up to" in found[0][2]
    [hint] = [f.hint for f in check_tree(corpus_copy, AUDIO) if f.rule == "GUIDE003"]
    assert hint is not None and "`--stage-overrides`" in hint


def test_ascend_guide_additional_config_key_the_release_ignores(corpus_copy: Path) -> None:
    text = inject(corpus_copy, "  ## Client Usage\n", ASCEND_NODES + "\n  ## Client Usage\n")
    replace_once(corpus_copy / GLM, '''{"enable_kv_nz": true}''', '''{"enable_kv_nzz": true}''')
    found = [(r, ln, m) for r, ln, m in guide_findings(corpus_copy) if r == "GUIDE015"]
    assert [(r, ln) for r, ln, _ in found] == [
        ("GUIDE015", line_of(text, "--additional-config '{\"enable_kv_nz\": true}'"))]
    assert "`enable_kv_nzz` is not read by any vendored vLLM-Ascend release" in found[0][2]


def test_ascend_guide_additional_config_key_a_strict_release_rejects(corpus_copy: Path) -> None:
    """From vllm-ascend 0.27 an unknown key stops the server (GUIDE016, an error)."""
    text = inject(corpus_copy, "  ## Client Usage\n", ASCEND_NODES + "\n  ## Client Usage\n")
    replace_once(corpus_copy / GLM, 'min_vllm_version: "0.19.1"', 'min_vllm_version: "0.28.0"')
    keys = {"GUIDE015", "GUIDE016"}
    assert not [f for f in guide_findings(corpus_copy) if f[0] in keys]  # real keys: fine
    replace_once(corpus_copy / GLM, '''{"enable_kv_nz": true}''', '''{"enable_kv_nzz": true}''')
    found = [(r, ln, m) for r, ln, m in guide_findings(corpus_copy) if r in keys]
    assert [(r, ln) for r, ln, _ in found] == [
        ("GUIDE016", line_of(text, "--additional-config '{\"enable_kv_nz\": true}'"))]
    assert "refuses unknown keys and does not start" in found[0][2]


def test_guide_flag_removed_after_every_pinned_install_path_is_a_warning(
        corpus_copy: Path) -> None:
    # every install path (site blocks, the guide's pip and docker lines) pins a release
    # before --calculate-kv-scales was removed (0.28.0): GUIDE005 warns about upgrading
    inject(corpus_copy, SERVE, SERVE + "       --calculate-kv-scales \\\n")
    inject(corpus_copy, DOCKER, DOCKER.replace(":latest", ":v0.21.0"))
    text = inject(corpus_copy, "  base_env: {}\n", '  base_env: {}\n  docker_image: '
           '"vllm/vllm-openai:v0.21.0"\n  install:\n    pip:\n      command: '
           '"uv pip install vllm==0.21.0"\n')
    found = guide_findings(corpus_copy)
    removed = [(r, m) for r, _, m in found if r in ("GUIDE005", "GUIDE017")]
    assert removed and all(r == "GUIDE005" for r, _ in removed), found
    assert "was removed in vLLM 0.28.0" in removed[0][1]
    assert line_of(text, "--calculate-kv-scales") in [ln for r, ln, _ in found if r == "GUIDE005"]
