"""``render --cuda`` picks the CUDA build of an NVIDIA image given as a CUDA map, as the
recipes site's record page lets the reader do (its ``dockerCudaVariant``): the ``docker
run`` and the ``docker pull`` of the install use that build's tag; a map holding one
build keeps it, in every configuration ``--all`` renders too."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli_in_process import run_cli
from tests.render.conftest import export_revision

GEMMA_CUDA_MAP = "563d99cb119d8a70676976fed99e0c0e18a2f522"  # gemma4 {cu129, cu130}
GEMMA = "models/Google/gemma-4-31B-it.yaml"
ONE_BUILD = "models/meta-models/Muse-Glimmer-30B.yaml"  # nvidia: {cu130: ...} only


def _render(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("render", *args, cwd=root)


def test_cuda_cu129_takes_the_cu129_tag_in_docker_run_and_pull(
        corpus_repo: Path, tmp_path: Path) -> None:
    root = export_revision(corpus_repo, GEMMA_CUDA_MAP, tmp_path / "tree")
    builds = {}
    for cuda in ("cu129", "cu130"):
        (doc,) = json.loads(_render(root, GEMMA, "--cuda", cuda, "--format", "json").stdout)
        builds[cuda] = doc
        tag = f"vllm/vllm-openai:gemma4-0505-{cuda}"
        assert doc["docker_image"] == tag and tag in doc["docker_argv"]
        assert f"{tag} " in doc["docker_command"]
    default = json.loads(_render(root, GEMMA, "--format", "json").stdout)
    assert default == [builds["cu130"]]
    text = _render(root, GEMMA, "--cuda", "cu129").stdout
    assert "gemma4-0505-cu130" not in text and "gemma4-0505-cu129" in text


def test_a_map_of_one_build_keeps_it_in_every_configuration(
        corpus_main_tree: Path) -> None:
    (doc,) = json.loads(_render(corpus_main_tree, ONE_BUILD, "--cuda", "cu129", "--format",
                                "json").stdout)
    assert doc["docker_image"] == "vllm/vllm-openai:muse-glimmer"
    every = _render(corpus_main_tree, ONE_BUILD, "--all", "--cuda", "cu129", "--format",
                    "json")
    assert every.returncode == 0, every.stderr
    images = {d["docker_image"] for d in json.loads(every.stdout)}
    assert "vllm/vllm-openai:muse-glimmer" in images
    assert not any("cu129" in image for image in images)
