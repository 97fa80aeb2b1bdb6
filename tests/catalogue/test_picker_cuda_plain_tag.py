"""The record page's picker offers the CUDA build of a plain NVIDIA tag too, as the
recipes site's page does for every NVIDIA image but a CUDA map of one build: picking cu129
shows the blocks and gives the JSON ``render --cuda cu129`` prints (``:latest-cu129``). In
Chromium, on the mini recipe (the site's default image on NVIDIA hardware)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.catalogue.site_pages import catalogue_page
from tests.catalogue.test_index_vllm_filter import context  # noqa: F401
from tests.catalogue.test_record_page_picker import MINI, PATH
from tests.cli_in_process import run_cli

pytestmark = pytest.mark.xdist_group("chromium-index-vllm")


def _render(repo: Path, *args: str) -> str:
    """What ``render PATH ARGS`` prints in ``repo`` (the CLI, in this process)."""
    done = run_cli("render", PATH, *args, cwd=repo)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_picking_cu129_of_a_plain_tag_shows_what_render_prints(
        tmp_path: Path, context: Any) -> None:  # noqa: F811
    page_file = catalogue_page(tmp_path, MINI, PATH, picker=True)
    repo = tmp_path / "repo"
    json_text = _render(repo, "--cuda", "cu129", "--format", "json")
    (doc,) = json.loads(json_text)
    assert doc["docker_image"] == "vllm/vllm-openai:latest-cu129"
    text = _render(repo, "--cuda", "cu129")
    page = context.new_page()
    page.goto(page_file.as_uri())
    blocks = page.locator("#chosen-blocks code")
    assert "vllm/vllm-openai:latest " in " ".join(blocks.all_inner_texts())
    page.select_option("#p-cuda", "cu129")
    shown = blocks.all_inner_texts()
    assert "vllm/vllm-openai:latest-cu129 " in " ".join(shown)
    assert "docker pull vllm/vllm-openai:latest-cu129" in shown
    for block in shown:
        assert block in text
    with page.expect_download() as info:
        page.locator("a.config-json").click()
    assert Path(info.value.path()).read_text("utf-8") == json_text
    page.close()
