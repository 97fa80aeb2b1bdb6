"""VER rules and ``effective_min_version``: faults injected into real recipes of the corpus
at ``main`` (a throw-away copy), asserting rule, pointer and exact line; passing examples;
the GLM-5.3 guide/minimum disagreement of the seed page as a fixture of our own."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from tests.conftest import EXTRA, check_tree, line_of, replace_once
from tests.shared_context import shared_context
from validator.analysis.stated_versions import parse_image, tag_version
from validator.analysis.version_prose import version_statements
from validator.analysis.versions import effective_min_version, parse_min_version
from validator.context import Context, Settings, local_context
from validator.findings import Finding
from validator.load import load_yaml
from validator.rule_index import check_rules

GLM51 = "models/zai-org/GLM-5.1.yaml"
LAGUNA = "models/poolside/Laguna-XS-2.1.yaml"
M3 = "models/MiniMaxAI/MiniMax-M3.yaml"
HY3 = "models/tencent/Hy3.yaml"


def ver(root: Path, path: str, rule: str | None = None) -> list[tuple[str, str, int]]:
    return [(f.rule, f.pointer, f.line) for f in check_tree(root, path)
            if f.rule.startswith("VER") and (rule is None or f.rule == rule)]


def inject(root: Path, path: str, old: str, new: str) -> str:
    return replace_once(root / path, old, new)


def run_ver(text: str, path: str, ctx: Context) -> list[Finding]:
    """VER findings of recipe ``text`` (not on disk) against ``ctx``."""
    doc = load_yaml(text.encode("utf-8"), path)
    return [doc.finding(r, hit) for r in check_rules()
            if r.id.startswith("VER") and r.check is not None for hit in r.check(doc, ctx)]


def test_main_has_only_the_known_ver_errors(corpus_main_findings: list[Finding]) -> None:
    errors = sorted((f.path, f.rule, f.pointer, f.line) for f in corpus_main_findings
                    if f.rule.startswith("VER") and f.severity == "error")
    # Qwen3.8-2.4T-A95B's min_vllm_version "nightly" is no VER011 error: it sets
    # nightly_required, so the site renders the nightly install (tests/analysis/test_launch_day.py)
    assert errors == [(M3, "VER004", "/variants/mxfp8/hardware_overrides/mi300x/docker_image",
                       153)]


# --- effective_min_version ----------------------------------------------------------------


def test_effective_min_version(corpus_repo: Path) -> None:
    ctx = local_context(corpus_repo)
    doc = load_yaml((corpus_repo / LAGUNA).read_bytes(), LAGUNA)
    assert effective_min_version(doc, ctx) == Version("0.21.0")
    assert effective_min_version(doc, ctx, "fp8") == Version("0.22.0")
    assert effective_min_version(doc, ctx, "default") == Version("0.21.0")
    # the kv-store option's floor (kv_store/*.yaml: 0.21.0) does not lower 0.22.0
    assert effective_min_version(doc, ctx, "fp8",
                                 kv_store="kv_store_centralized_mooncake") == Version("0.22.0")
    old = load_yaml((corpus_repo / "models/Qwen/Qwen3-8B.yaml").read_bytes(), "x.yaml")
    floor = effective_min_version(old, ctx)
    assert isinstance(floor, Version) and floor < Version("0.21.0")
    assert effective_min_version(old, ctx, kv_store="kv_store_distributed_mooncake") == \
        Version("0.21.0")
    floor = effective_min_version(old, ctx, strategy="no_such_strategy")
    assert isinstance(floor, Version) and floor < Version("0.21.0")


def test_effective_min_version_nightly_and_invalid(corpus_repo: Path) -> None:
    ctx = local_context(corpus_repo)
    text = (corpus_repo / LAGUNA).read_text()
    nightly = text.replace('    min_vllm_version: "0.22.0"', '    min_vllm_version: "nightly"', 1)
    doc = load_yaml(nightly.encode(), LAGUNA)
    assert effective_min_version(doc, ctx, "fp8") == "nightly"
    broken = text.replace('  min_vllm_version: "0.21.0"', "  min_vllm_version: 0.21", 1)
    doc = load_yaml(broken.encode(), LAGUNA)
    assert effective_min_version(doc, ctx) is None  # a float is not a version string
    assert parse_min_version("0.10.1.1") == Version("0.10.1.1")
    assert parse_min_version("latest") is None


# --- VER001 ---------------------------------------------------------------------------------


def test_ver001_invalid_minimum(corpus_copy: Path) -> None:
    assert ver(corpus_copy, GLM51, "VER001") == []
    text = inject(corpus_copy, GLM51, 'min_vllm_version: "0.19.1"', 'min_vllm_version: "0.19.x"')
    assert ver(corpus_copy, GLM51, "VER001") == [
        ("VER001", "/model/min_vllm_version", line_of(text, '"0.19.x"'))]


# --- VER002 / VER003 / VER004 ------------------------------------------------------------------


def test_ver002_model_image_older_than_minimum(corpus_copy: Path) -> None:
    text = inject(corpus_copy, GLM51, '  min_vllm_version: "0.19.1"\n',
                  '  min_vllm_version: "0.19.1"\n  docker_image: "vllm/vllm-openai:v0.18.0"\n')
    assert ver(corpus_copy, GLM51, "VER002") == [
        ("VER002", "/model/docker_image", line_of(text, "vllm-openai:v0.18.0"))]


def test_ver002_image_meets_minimum(corpus_copy: Path) -> None:
    inject(corpus_copy, GLM51, '  min_vllm_version: "0.19.1"\n',
           '  min_vllm_version: "0.19.1"\n  docker_image:\n'
           '    cu129: "vllm/vllm-openai:v0.19.1-cu129"\n'
           '    cu130: "vllm/vllm-openai:v0.20.0"\n')
    assert [f for f in ver(corpus_copy, GLM51) if f[0] in ("VER002", "VER003")] == []


def test_ver002_model_image_used_by_a_variant_with_a_higher_minimum(corpus_copy: Path) -> None:
    text = inject(corpus_copy, LAGUNA, '  min_vllm_version: "0.21.0"\n',
                  '  min_vllm_version: "0.21.0"\n  docker_image:\n'
                  '    nvidia: "vllm/vllm-openai:v0.21.0"\n')
    findings = [f for f in check_tree(corpus_copy, LAGUNA) if f.rule == "VER002"]
    assert [(f.pointer, f.line) for f in findings] == [
        ("/model/docker_image/nvidia", line_of(text, "vllm-openai:v0.21.0"))]
    # the message names the hardware the site renders fp8 with this (NVIDIA) image on
    assert "variant 'fp8' (rendered with it on h200" in findings[0].message
    assert findings[0].message.endswith("needs vLLM 0.22.0")
    assert findings[0].related[0].line == line_of(text, 'min_vllm_version: "0.22.0"')


def test_ver002_variant_hardware_override_image(corpus_copy: Path) -> None:
    text = inject(corpus_copy, LAGUNA, '    min_vllm_version: "0.22.0"\n',
                  '    min_vllm_version: "0.22.0"\n    hardware_overrides:\n      mi300x:\n'
                  '        docker_image: "rocm/vllm-dev:vllm-0.21.1-rocm700"\n')
    assert ver(corpus_copy, LAGUNA, "VER002") == [
        ("VER002", "/variants/fp8/hardware_overrides/mi300x/docker_image",
         line_of(text, "vllm-0.21.1-rocm700"))]


@pytest.mark.parametrize(("image", "warned"), [
    ("vllm/vllm-openai:latest", True),
    ("vllm/vllm-openai-rocm:nightly-4c626633159887b0f2c962058c17c78f1434556d", True),
    ("vllm/vllm-openai:cu130-nightly", True),
    ("vllm/vllm-openai", True),
    ("vllm/vllm-openai:gemma4-0505-cu129", True),
    ("vllm/vllm-openai:v0.25.0", False),
    ("vllm/vllm-openai@sha256:" + "ab" * 32, False),
    ("quay.io/ascend/vllm-ascend:v0.23.0-a5", False),
])
def test_ver003_unpinned_images(corpus_copy: Path, image: str, warned: bool) -> None:
    text = inject(corpus_copy, GLM51, '  min_vllm_version: "0.19.1"\n',
                  f'  min_vllm_version: "0.19.1"\n  docker_image: "{image}"\n')
    expected = [("VER003", "/model/docker_image", line_of(text, image))] if warned else []
    assert ver(corpus_copy, GLM51, "VER003") == expected


def test_ver004_real_docker_pull_in_image_field(corpus_copy: Path) -> None:
    findings = [f for f in check_tree(corpus_copy, M3) if f.rule == "VER004"]
    assert [(f.pointer, f.line) for f in findings] == [
        ("/variants/mxfp8/hardware_overrides/mi300x/docker_image", 153)]
    assert "'vllm/vllm-openai-rocm:nightly'" in (findings[0].hint or "")
    inject(corpus_copy, M3, '"docker pull vllm/vllm-openai-rocm:nightly"',
           '"vllm/vllm-openai-rocm:nightly"')
    assert ver(corpus_copy, M3, "VER004") == []


def test_image_tag_versions() -> None:
    def v(text: str) -> Version | None:
        ref = parse_image(text)
        assert ref is not None
        return tag_version(ref)

    assert v("vllm/vllm-openai:v0.23.0") == Version("0.23.0")
    assert v("vllm/vllm-openai:0.23.0") == Version("0.23.0")
    assert v("vllm/vllm-openai:v0.20.0-cu129") == Version("0.20.0")
    assert v("rocm/vllm-dev:vllm-0.23.1-rocm723-mi35x-mori-0625") == Version("0.23.1")
    assert v("vllm/vllm-omni:v0.12.0") is None  # vLLM-Omni's own version
    assert v("vllm/vllm-openai:qwen38") is None
    assert parse_image("docker pull vllm/vllm-openai:v0.1.0") is None


# --- VER005 / VER006 / VER007 ------------------------------------------------------------------


def test_ver005_unreleased_minimum_needs_nightly(corpus_copy: Path) -> None:
    text = inject(corpus_copy, GLM51, 'min_vllm_version: "0.19.1"', 'min_vllm_version: "0.99.0"')
    assert ver(corpus_copy, GLM51, "VER005") == [
        ("VER005", "/model/min_vllm_version", line_of(text, '"0.99.0"'))]
    inject(corpus_copy, GLM51, 'min_vllm_version: "0.99.0"\n',
           'min_vllm_version: "0.99.0"\n  nightly_required: true\n')
    assert ver(corpus_copy, GLM51, "VER005") == []


def test_ver005_nightly_minimum_on_a_variant(corpus_copy: Path) -> None:
    text = inject(corpus_copy, LAGUNA, '    min_vllm_version: "0.22.0"',
                  '    min_vllm_version: "nightly"')
    assert ver(corpus_copy, LAGUNA, "VER005") == [
        ("VER005", "/variants/fp8/min_vllm_version", line_of(text, '"nightly"'))]


def test_ver006_real_stale_nightly_flag(corpus_repo: Path) -> None:
    findings = [f for f in check_tree(corpus_repo, HY3) if f.rule == "VER006"]
    text = (corpus_repo / HY3).read_text()
    assert [(f.pointer, f.line) for f in findings] == [
        ("/model/nightly_required", line_of(text, "nightly_required: true"))]
    assert "vLLM 0.26.0 was released on 2026-07-25" in findings[0].message


def test_ver006_flag_on_unreleased_minimum_is_not_stale(corpus_copy: Path) -> None:
    inject(corpus_copy, HY3, 'min_vllm_version: "0.26.0"', 'min_vllm_version: "0.99.0"')
    assert ver(corpus_copy, HY3, "VER006") == []


def test_ver007_never_released(corpus_copy: Path) -> None:
    text = inject(corpus_copy, GLM51, 'min_vllm_version: "0.19.1"', 'min_vllm_version: "0.11.3"')
    findings = [f for f in check_tree(corpus_copy, GLM51) if f.rule == "VER007"]
    assert [(f.pointer, f.line) for f in findings] == [
        ("/model/min_vllm_version", line_of(text, '"0.11.3"'))]
    assert findings[0].hint == "the next release is 0.12.0 (2025-12-03)"


# --- VER008 ---------------------------------------------------------------------------------

GLM53_FIXTURE = """\
# Written for this test from the facts of the GLM-5.3 seed page: the page declares
# vLLM 0.29.0 as the minimum while its guide installs 0.28.0.
meta:
  title: "GLM-5.3"
  slug: "glm-5.3"
  provider: "GLM (Z-AI)"
  description: "test fixture"
  date_added: 2026-08-28
  date_updated: 2026-08-30
  difficulty: advanced
  tasks: [text]
  hardware:
    h200: verified
model:
  model_id: "zai-org/GLM-5.3"
  min_vllm_version: "0.29.0"
  architecture: moe
  parameter_count: "743B"
  active_parameters: "40B"
  context_length: 202752
variants:
  default:
    precision: fp8
    vram_minimum_gb: 892
compatible_strategies: [single_node_tp]
guide: |
  ## Requirements

  - **vLLM 0.28.0** or newer.

  ## Install

  ```bash
  uv pip install "vllm==0.28.0" --torch-backend=auto
  ```
"""


def test_ver008_glm53_guide_disagrees_with_minimum(corpus_copy: Path) -> None:
    path = "models/zai-org/GLM-5.3.yaml"
    (corpus_copy / path).write_text(GLM53_FIXTURE, "utf-8")
    findings = [f for f in check_tree(corpus_copy, path) if f.rule == "VER008"]
    min_line = line_of(GLM53_FIXTURE, 'min_vllm_version: "0.29.0"')
    assert [(f.pointer, f.line, f.severity) for f in findings] == [
        ("/guide", line_of(GLM53_FIXTURE, "**vLLM 0.28.0** or newer"), "warning"),
        ("/guide", line_of(GLM53_FIXTURE, 'uv pip install "vllm==0.28.0"'), "warning")]
    assert all(f.related[0].line == min_line for f in findings)
    assert "min_vllm_version is 0.29.0" in findings[1].message


@pytest.mark.parametrize("commit", ["0c880268bc6edce16b3001373ddb30b73dc1200f",
                                    "e46f53b17dd4082edd2551a7b55a9db0325516ba"])
def test_ver008_real_glm53_files(corpus_repo: Path, commit: str) -> None:
    """The upstream GLM-5.3 files declare 0.28.0 and install 0.28.0: consistent. Declaring
    the seed page's 0.29.0 in them makes the guide's two statements contradict it. (VER
    rules need no taxonomy; the context only lends strategies and the release list.)"""
    path = "models/zai-org/GLM-5.3.yaml"
    text = (EXTRA / commit / path).read_text("utf-8")
    ctx = local_context(corpus_repo)
    assert [f for f in run_ver(text, path, ctx) if f.rule == "VER008"] == []
    bumped = text.replace('min_vllm_version: "0.28.0"', 'min_vllm_version: "0.29.0"', 1)
    found = [(f.pointer, f.line) for f in run_ver(bumped, path, ctx) if f.rule == "VER008"]
    assert found == [("/guide", line_of(bumped, "**vLLM 0.28.0** or newer")),
                     ("/guide", line_of(bumped, '"vllm==0.28.0"'))]


def test_ver008_real_glm51(corpus_repo: Path) -> None:
    text = (corpus_repo / GLM51).read_text()
    findings = [f for f in check_tree(corpus_repo, GLM51) if f.rule == "VER008"]
    assert [(f.pointer, f.line) for f in findings] == [
        ("/guide", line_of(text, "**vLLM version:** 0.19.0")),
        ("/guide", line_of(text, 'uv pip install "vllm==0.19.0"'))]
    assert {f.related[0].line for f in findings} == {line_of(text, 'min_vllm_version: "0.19.1"')}


def test_ver008_passes_when_guide_agrees(corpus_copy: Path) -> None:
    inject(corpus_copy, GLM51, "**vLLM version:** 0.19.0", "**vLLM version:** 0.19.1")
    inject(corpus_copy, GLM51, '"vllm==0.19.0"', '"vllm==0.20.0"')  # a newer pin is fine
    assert ver(corpus_copy, GLM51, "VER008") == []


def test_ver008_higher_prerequisite(corpus_copy: Path) -> None:
    text = inject(corpus_copy, GLM51, "**vLLM version:** 0.19.0", "**vLLM version:** 0.21.0")
    assert ("VER008", "/guide", line_of(text, "**vLLM version:** 0.21.0")) in ver(
        corpus_copy, GLM51, "VER008")


def ver008_lines(corpus_repo: Path, minimum: str, *lines: str) -> list[tuple[int, str]]:
    """``(line, hint)`` of the VER008 findings of the GLM-5.3 fixture declaring
    ``minimum`` with ``lines`` as its guide."""
    text = GLM53_FIXTURE.split("guide: |")[0].replace('"0.29.0"', f'"{minimum}"', 1)
    text += "guide: |\n" + "".join(f"  {line}\n" for line in lines)
    return [(f.line, f.hint or "") for f in run_ver(text, "models/zai-org/GLM-5.3.yaml",
                                                      shared_context(corpus_repo, Settings()))
            if f.rule == "VER008"]


@pytest.mark.parametrize("line", [
    "- EAGLE3 requires vLLM >= 0.9.0",  # a feature's requirement, met by the minimum
    "- MTP needs vLLM 0.9.0 or later",
    "- Since vLLM 0.9.0, the chat template ships with the model.",  # from when on, no need
    "Tool calling works with vLLM >= 0.9.0.",
])
def test_ver008_feature_scoped_below_is_no_contradiction(corpus_repo: Path, line: str) -> None:
    assert ver008_lines(corpus_repo, "0.23.0", "## Notes", "", line) == []


@pytest.mark.parametrize("line", [
    "- Requires vLLM >= 0.9.0",
    "- vLLM >= 0.9.0",
    "- **vLLM version:** >= 0.9.0 (speculative decoding with EAGLE3 requires >= 0.18.0)",
    "The model requires vLLM 0.9.0 or later.",
])
def test_ver008_recipe_requirement_below_is_reported(corpus_repo: Path, line: str) -> None:
    ((at, hint),) = ver008_lines(corpus_repo, "0.23.0", "## Prerequisites", "", line)
    assert at == line_of(GLM53_FIXTURE, "guide: |") + 3
    assert hint.startswith("state vLLM 0.23.0 (the declared minimum) here")


@pytest.mark.parametrize(("heading", "line"), [
    ("## Prerequisites", "- vLLM 0.12.0 or later: the ROCm AITER MoE kernels are used "
     "automatically"),
    ("## Prerequisites", "- vLLM 0.12.0 or later for FP8 KV cache"),
    ("## Prerequisites", "- Requires vLLM >= 0.12.0 on Blackwell (B200)"),
    ("## AMD MI355X", "- vLLM 0.12.0 or later"),
    ("## Speculative decoding", "- Requires vLLM 0.12.0+"),
])
def test_ver008_scoped_higher_prerequisite_is_not_the_recipes(corpus_repo: Path, heading: str,
                                                              line: str) -> None:
    assert ver008_lines(corpus_repo, "0.11.0", heading, "", line) == []


@pytest.mark.parametrize("line", [
    "- vLLM 0.12.0 or later",
    "- Requires vLLM >= 0.12.0",
    "- **Requires:** vLLM 0.12.0 (latest stable recommended)",
])
def test_ver008_plain_higher_prerequisite_is_reported(corpus_repo: Path, line: str) -> None:
    ((_, hint),) = ver008_lines(corpus_repo, "0.11.0", "## Prerequisites", "", line)
    assert hint == "raise min_vllm_version to 0.12.0, or correct the text"


@pytest.mark.parametrize(("line", "found"), [
    ("- vLLM >= 0.11.0", [("0.11.0", "minimum")]),
    ("vLLM ≥ 0.22.0 required", [("0.22.0", "minimum")]),
    ("requires vLLM v0.24.0 or later.", [("0.24.0", "minimum")]),
    ("uv pip install vllm==0.20.0+rocm721", [("0.20.0", "pin")]),
    ("uv pip install -U 'vllm>=0.21.0'", [("0.21.0", "minimum")]),
    ("- vLLM: 0.11.0 does NOT include this model", []),
    ("Known bug in vLLM 0.12.0 affecting the model", []),
    ("uv pip install vllm-omni==0.12.0", []),
])
def test_version_statements(line: str, found: list[tuple[str, str]]) -> None:
    assert [(str(s.version), s.kind) for s in version_statements(line)] == found


# --- VER009 / VER010 ---------------------------------------------------------------------------


def test_ver009_not_a_date(corpus_copy: Path) -> None:
    text = inject(corpus_copy, GLM51, "date_updated: 2026-05-21", 'date_updated: "May 2026"')
    assert ver(corpus_copy, GLM51, "VER009") == [
        ("VER009", "/meta/date_updated", line_of(text, "May 2026"))]


def test_ver010_updated_before_added(corpus_copy: Path) -> None:
    assert ver(corpus_copy, GLM51, "VER010") == []
    text = inject(corpus_copy, GLM51, "date_updated: 2026-05-21", "date_updated: 2026-03-01")
    findings = [f for f in check_tree(corpus_copy, GLM51) if f.rule == "VER010"]
    assert [(f.pointer, f.line) for f in findings] == [
        ("/meta/date_updated", line_of(text, "date_updated: 2026-03-01"))]
    assert findings[0].related[0].line == line_of(text, "date_added: 2026-03-28")
