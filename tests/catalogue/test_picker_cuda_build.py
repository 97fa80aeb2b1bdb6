"""The record page's picker offers the CUDA build (cu130 / cu129) of a recipe's NVIDIA
image given as a CUDA map of both builds, as the recipes site's page does: picking cu129
shows the blocks (and offers the JSON) ``render --cuda cu129`` prints, the URL carries
``cuda=cu129`` (and opens with it), and the build costs the page only the lines it
changes. In Chromium, on the corpus's Gemma 4 recipe of the commit before its CUDA map
was removed."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.catalogue.site_pages import record_page
from tests.catalogue.test_index_vllm_filter import context  # noqa: F401
from tests.cli_in_process import run_cli
from tests.evidence.conftest import corpus_tree  # noqa: F401
from validator.source.git import GitTree

pytestmark = pytest.mark.xdist_group("chromium-index-vllm")

COMMIT = "563d99cb119d8a70676976fed99e0c0e18a2f522"  # gemma4 images as {cu129, cu130}
GEMMA = "models/Google/gemma-4-31B-it.yaml"
CU129, CU130 = "vllm/vllm-openai:gemma4-0505-cu129", "vllm/vllm-openai:gemma4-0505-cu130"


def _extract(corpus_repo: Path, root: Path) -> Path:
    """The files of :data:`COMMIT` under ``root``."""
    root.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", COMMIT], cwd=corpus_repo, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    return root


def _render(root: Path, *args: str) -> str:
    """What ``render GEMMA ARGS`` prints in ``root`` (the CLI, in this process)."""
    done = run_cli("render", GEMMA, *args, cwd=root)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_picking_cu129_shows_what_render_cuda_cu129_prints_and_is_in_the_url(
        tmp_path: Path, corpus_repo: Path, corpus_tree: Callable[[str], GitTree],  # noqa: F811
        context: Any) -> None:  # noqa: F811
    root = _extract(corpus_repo, tmp_path / "tree")
    json_text = _render(root, "--cuda", "cu129", "--format", "json")
    (doc,) = json.loads(json_text)
    assert doc["docker_image"] == CU129
    text = _render(root, "--cuda", "cu129")
    page_file = record_page(tmp_path, corpus_tree(COMMIT), GEMMA, picker=True)
    page = context.new_page()
    page.goto(page_file.as_uri())
    blocks = page.locator("#chosen-blocks code")
    assert CU130 in " ".join(blocks.all_inner_texts())
    page.select_option("#p-cuda", "cu129")
    shown = blocks.all_inner_texts()
    assert CU130 not in " ".join(shown)
    assert any(f"{CU129} " in b for b in shown)
    for block in shown:  # each block as render --cuda cu129 prints it
        assert block in text
    with page.expect_download() as info:  # its JSON: byte for byte render's
        page.locator("a.config-json").click()
    assert Path(info.value.path()).read_text("utf-8") == json_text
    assert info.value.suggested_filename.endswith(".cu129.json")
    fragment = str(page.evaluate("location.hash"))
    assert "cuda=cu129" in fragment and "variant=" in fragment
    fresh = context.new_page()
    fresh.goto(page_file.as_uri() + fragment)
    assert fresh.locator("#p-cuda").input_value() == "cu129"
    assert fresh.locator("#chosen-blocks code").all_inner_texts() == shown
    fresh.close()
    page.select_option("#p-cuda", "cu130")
    assert "cuda=" not in str(page.evaluate("location.hash"))
    page.close()
