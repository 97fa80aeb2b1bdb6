"""A record page lists the limitations of its own recipe -- hardware not verified, a
variant or feature mode limited to some hardware or variants, a variant that needs more
than one node, nightly builds, a minimum newer than the newest release, the guide's own
warnings -- each citing the lines it rests on, not generic text."""

from __future__ import annotations

import html
import re
from pathlib import Path

from tests.catalogue.site_pages import catalogue_page
from validator.evidence.site.limitations import guide_warnings, limitations

RECIPE = """\
meta:
  title: Lim
  provider: Acme
  description: "A model with limits."
  date_added: "2026-01-02"
  date_updated: "2026-02-03"
  hardware:
    big8: verified
    red8: unsupported
model:
  model_id: acme/Lim
  min_vllm_version: "0.20.0"
  docker_image:
    nvidia: "vllm/vllm-openai:v0.20.0"
    amd: "vllm/vllm-openai-rocm:nightly-0123abc"
variants:
  default:
    precision: bf16
    vram_minimum_gb: 1000
  fp4:
    model_id: acme/Lim-FP4
    precision: nvfp4
    vram_minimum_gb: 300
    min_vllm_version: "99.0.0"
    supported_hardware: [big8]
features:
  spec:
    description: "Speculative decoding."
    default_mode: mtp
    modes:
      mtp:
        variants: [default]
        args: ["--speculative-config", '{"method":"mtp"}']
opt_in_features: [spec]
compatible_strategies: [single_node_tp]
guide: |
  ## Run
  Serve it on one node.
  > **Warning**: the FP8 KV cache is not supported on red8.
"""
PATH = "models/acme/Lim.yaml"


def _line(text: str) -> int:
    """The 1-based line of the recipe that holds ``text``."""
    (line,) = [n for n, row in enumerate(RECIPE.splitlines(), 1) if text in row]
    return line


def _limitations(page: str) -> list[tuple[str, list[int]]]:
    """Each item of the page's Limitations list: its text and the lines it cites."""
    section = page[page.index('<h2 id="limitations">'):page.index('<h2 id="findings">')]
    out = []
    for item in re.findall(r"<li>(.*?)</li>", section, re.DOTALL):
        text = html.unescape(re.sub(r"<small>.*", "", item)).strip()
        lines = [int(n) for n in re.findall(r'href="[^"]*Lim\.yaml#L(\d+)"', item)]
        out.append((text, lines))
    return out


def test_record_page_lists_the_recipes_own_limitations_with_their_lines(
        tmp_path: Path) -> None:
    page = catalogue_page(tmp_path, RECIPE, PATH, picker=True).read_text("utf-8")
    assert 'href="#limitations">Limitations</a>' in page
    items = dict(_limitations(page))
    assert items["red8: the recipe marks it 'unsupported', not verified."] == [
        _line("red8: unsupported")]
    offered = [t for t in items if t.startswith("Commands are offered for small8")]
    assert offered and "does not list among its verified hardware" in offered[0]
    assert items["Variant fp4 is offered only on big8."] == [_line("precision: nvfp4"),
                                                            _line("supported_hardware")]
    assert items["Variant default (planning minimum 1000 GB) needs more than one node on "
                 "small8."] == [_line("vram_minimum_gb: 1000")]
    assert items["Feature spec in mode mtp only for variant(s) default."] == [
        _line("variants: [default]")]
    assert items["vllm/vllm-openai-rocm:nightly-0123abc is a nightly build, not a vLLM "
                 "release; used by: Docker image (amd)."] == [_line("nightly-0123abc")]
    unreleased = [t for t in items if t.startswith("Variant fp4 needs vLLM 99.0.0, newer "
                                                   "than the newest release")]
    assert len(unreleased) == 1
    assert items["The guide says: “Warning: the FP8 KV cache is not supported on red8.”"] \
        == [_line("> **Warning**")]
    assert "No model was run" not in page[page.index('<h2 id="limitations">'):
                                          page.index('<h2 id="findings">')]


def test_a_recipe_without_limitations_says_so() -> None:
    assert limitations({"facts": [], "validation": {"inputs": []}}) == []
    assert guide_warnings([("u1", "Serve it."), ("u2", "It works on every GPU.")]) == []
    heading = guide_warnings([("u1", "### Limitations:"), ("u2", "- no vocals")])
    assert [(w.text, w.evidence) for w in heading] == [
        ("The guide says: “Limitations: no vocals”", ("u1", "u2"))]
