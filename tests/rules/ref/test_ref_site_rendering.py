"""REF014-REF016 (what the site renders): each fault injected into the real GLM-5.2 recipe
of corpus ``main``; the unmodified recipe has none of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once
from validator.render.renderer import Configuration, Rendered
from validator.rules.ref.site_rendering import affected

GLM = "models/zai-org/GLM-5.2.yaml"
RULES = ("REF014", "REF015", "REF016")


def findings(root: Path) -> list[tuple[str, int, str]]:
    return [(f.rule, f.line, f.message) for f in check_tree(root, GLM) if f.rule in RULES]


@pytest.mark.corpus
def test_unmodified_recipe_renders_cleanly(corpus_copy: Path) -> None:
    assert findings(corpus_copy) == []


@pytest.mark.corpus
def test_ref014_a_number_among_the_arguments(corpus_copy: Path) -> None:
    text = replace_once(corpus_copy / GLM, '    - "fp8_e4m3"\n', "    - 8\n")
    [(rule, line, message)] = findings(corpus_copy)
    assert (rule, line) == ("REF014", line_of(text, "    - 8"))
    assert "model.base_args holds the int 8" in message
    assert "the site's build skips the configuration (on " in message and " more)" in message


@pytest.mark.corpus
def test_ref015_an_empty_env_value(corpus_copy: Path) -> None:
    text = replace_once(corpus_copy / GLM, "  base_env: {}", "  base_env:\n    MY_FLAG:")
    [(rule, line, message)] = findings(corpus_copy)
    assert (rule, line) == ("REF015", line_of(text, "    MY_FLAG:"))
    assert "env MY_FLAG holds null, which the site renders as `-e MY_FLAG=null`" in message


@pytest.mark.corpus
def test_ref016_no_docker_image_for_intel_nightly(corpus_copy: Path) -> None:
    replace_once(corpus_copy / GLM, "    mi355x: verified\n", "    mi355x: verified\n"
                 "    xeon6: verified\n")
    text = replace_once(corpus_copy / GLM, '  min_vllm_version: "0.23.0"\n',
                        '  min_vllm_version: "0.23.0"\n  nightly_required: true\n')
    found = findings(corpus_copy)
    # at the docker_image mapping (its first entry)
    assert [(r, line) for r, line, _ in found] == [
        ("REF016", line_of(text, "    nvidia: \"vllm/vllm-openai:v0.23.0\""))]
    assert "on xeon6 · default" in found[0][2]
    # the fix the rule proposes: an Intel image
    replace_once(corpus_copy / GLM, '    nvidia: "vllm/vllm-openai:v0.23.0"\n',
                 '    nvidia: "vllm/vllm-openai:v0.23.0"\n'
                 '    intel: "vllm/vllm-openai-cpu:nightly-x86_64"\n')
    assert findings(corpus_copy) == []


def test_affected_names_the_first_configuration_and_counts_the_rest() -> None:
    def rendered(hw: str) -> Rendered:
        return Rendered(Configuration(hw, "fp8", "multi_node_tp", nodes=2), GLM, True)

    assert affected([rendered("h200")]) == "on h200 · fp8 · multi_node_tp ×2"
    assert affected([rendered("h200"), rendered("b200"), rendered("h200")]) == \
        "on h200 · fp8 · multi_node_tp ×2 and 1 more"
