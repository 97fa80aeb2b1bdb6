"""``REF018`` judges every Docker image the site can show, not only the one of its default
CUDA build: the record page's CUDA toggle re-picks the ``cu129`` entry of a CUDA-keyed
map (at the model, in its ``nvidia:`` entry, in a variant), writes a plain NVIDIA tag as
``TAG-cu129``, and the install's ``docker pull`` names the model's NVIDIA image whatever
hardware the recipe lists. Shell code in any of them is the unsuppressible error, at the
entry's line -- and a real bash, run on ``render --cuda cu129``'s command, runs it (trial 9
#1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.rules.ref.test_ref_shell_code import CHAT, _edit, bash
from validator.context import local_context
from validator.findings import Finding
from validator.load import load_yaml
from validator.render.cache import context_strategies
from validator.render.renderer import Configuration, render

EVIL = "vllm/vllm-openai:v0.12.0;touch${IFS}pwned;"
CLEAN = "vllm/vllm-openai:v0.12.0"
SILENCED = "  # recipe-check: ignore[VER004]"
MODEL = '  model_id: "example-org/Example-Chat-8B"\n'


def _model_image(yaml: str) -> tuple[str, str]:
    return MODEL, f"{MODEL}  docker_image:\n{yaml}"


CASES = {
    "model CUDA map": (_model_image(f'    cu129: "{EVIL}"{SILENCED}\n    cu130: "{CLEAN}"\n'),
                       "/model/docker_image/cu129"),
    "model nvidia CUDA map": (_model_image(
        f'    nvidia:\n      cu129: "{EVIL}"{SILENCED}\n      cu130: "{CLEAN}"\n'),
        "/model/docker_image/nvidia/cu129"),
    "variant CUDA map": (("    description: \"BF16 weights\"\n",
                          "    description: \"BF16 weights\"\n    docker_image:\n"
                          f'      cu129: "{EVIL}"{SILENCED}\n      cu130: "{CLEAN}"\n'),
                         "/variants/default/docker_image/cu129"),
}


def _ref018(root: Path) -> list[Finding]:
    return [f for f in check_tree(root, CHAT) if f.rule == "REF018"]


def _cu129_docker(root: Path) -> str:
    ctx = local_context(root)
    loaded = load_yaml((root / CHAT).read_bytes(), CHAT)
    strategies = context_strategies(ctx)
    rendered = render(loaded, ctx.taxonomy, strategies,
                      Configuration.defaults(loaded, ctx.taxonomy, strategies), cuda="cu129")
    return str(rendered.docker_command)


@pytest.mark.parametrize("case", list(CASES))
def test_shell_code_in_the_cu129_entry_of_a_cuda_map_is_an_unsuppressible_error(
        examples_tree: Path, tmp_path: Path, case: str) -> None:
    (old, new), pointer = CASES[case]
    text = _edit(examples_tree, old, new)
    run = tmp_path / "run"
    run.mkdir()
    bash(_cu129_docker(examples_tree), run)
    assert (run / "pwned").exists()  # the toggle's command runs what the entry holds
    found = [f for f in _ref018(examples_tree) if f.pointer == pointer]
    assert len(found) == 1, _ref018(examples_tree)
    assert found[0].line == line_of(text, "cu129:")
    assert found[0].severity.value == "error"
    assert "of CUDA build cu129 (the record page's CUDA toggle)" in found[0].message


def test_a_plain_tag_whose_cu129_form_expands_a_parameter_is_reported(
        examples_tree: Path, tmp_path: Path) -> None:
    # `TAG$` is literal, but the toggle prints `TAG$-cu129`, and bash expands `$-`
    text = _edit(examples_tree, *_model_image(f'    nvidia: "{CLEAN}$"{SILENCED}\n'))
    words = bash(_cu129_docker(examples_tree), tmp_path).stdout.splitlines()
    assert f"[{CLEAN}$-cu129]" not in words
    found = _ref018(examples_tree)
    assert [f.line for f in found] == [line_of(text, "nvidia:")], found
    assert f"'{CLEAN}$-cu129'" in found[0].message


def test_the_install_docker_pull_image_is_judged_where_no_docker_run_prints_it(
        examples_tree: Path) -> None:
    # the variant's image wins in every `docker run`; the install pulls the model's
    _edit(examples_tree, "    description: \"BF16 weights\"\n",
          f'    description: "BF16 weights"\n    docker_image: "{CLEAN}"\n')
    text = _edit(examples_tree, *_model_image(f'    nvidia: "{EVIL}"{SILENCED}\n'))
    (finding,) = _ref018(examples_tree)
    assert finding.pointer == "/model/docker_image/nvidia"
    assert finding.line == line_of(text, "nvidia:")
    assert "in the install command `docker pull IMAGE`" in finding.message


def test_a_clean_cuda_map_at_every_level_has_no_finding(examples_tree: Path) -> None:
    for case in ("model nvidia CUDA map", "variant CUDA map"):
        (old, new), _ = CASES[case]
        _edit(examples_tree, old, new.replace(EVIL, f"{CLEAN}-cu129").replace(SILENCED, ""))
    assert _ref018(examples_tree) == []
