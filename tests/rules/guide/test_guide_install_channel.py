"""A guide section's commands are checked against the vLLM its install channel gives:
the version the section says it was validated on (in the wordings recipes use), and the
image the recipe gives the one hardware the section is headed for."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.analysis.test_install_range import of, recipe, run
from validator.analysis.guide_sections import section_context

SPEC = "vllm serve example-org/Example-8B --speculative-config '{\"method\": \"eagle3\"}'"
"""``--speculative-config`` exists from vLLM 0.8.2; the recipes below claim 0.6.0."""


def in_section(heading: str, cmd: str = SPEC, intro: str = "") -> str:
    """A guide ``cmd`` of its own section ``heading`` (after the recipe's first block),
    with ``intro`` text before its block."""
    return f"echo first\n  ```\n\n  {heading}\n\n  {intro}\n\n  ```bash\n  {cmd}"


def amd_image(tag: str) -> str:
    return f'  docker_image:\n    amd: "vllm/vllm-openai-rocm:{tag}"\n'


@pytest.mark.parametrize("said", [
    "Validated end-to-end with vLLM 0.25.0 and PyTorch HIP 7.2.",
    "This path was verified on vllm-openai v0.18.0.",
    "The verified image was based on `vllm-openai:v0.18.0` with newer transformers.",
])
def test_a_section_saying_which_release_it_ran_is_read(said: str) -> None:
    guide = f"## Deploy\n\n{said}\n\n```bash\nvllm serve a/b\n```\n"
    found = section_context(guide, 5)
    assert found is not None and found.minimum is not None and found.top == found.minimum
    assert str(found.minimum) in said and found.line == 2


def test_a_version_word_of_another_tool_is_not_a_vllm_release() -> None:
    guide = "## Deploy\n\nVerified on 8xH100 nodes with transformers 4.57.\n\n```bash\nx\n```\n"
    assert section_context(guide, 5) is None


def test_the_sections_intro_covers_its_later_blocks_unless_they_turn_to_a_hardware() -> None:
    guide = ("## Two nodes\n\nValidated with vLLM 0.25.0.\n\nHead node:\n\n```bash\n"
             "vllm serve a/b --x\n```\n\nWorker node:\n\n```bash\nvllm serve a/b --y\n```\n"
             "\nAMD:\n\n```bash\nvllm serve a/b --z\n```\n")
    lines = guide.splitlines()
    head, worker, amd = (lines.index(f"vllm serve a/b --{x}") for x in "xyz")
    for line in (head, worker):
        found = section_context(guide, line)
        assert found is not None and str(found.minimum) == "0.25.0"
    assert section_context(guide, amd) is None


@pytest.mark.parametrize("tag", ["v0.22.1", "nightly"])
def test_a_section_headed_for_a_brand_runs_in_that_brands_image(corpus_copy: Path,
                                                                 tag: str) -> None:
    text = recipe(minimum="0.6.0", model_extra=amd_image(tag),
                  guide_cmd=in_section("### AMD MI350X/MI355X"))
    found, _ = run(corpus_copy, text)
    assert not of(found, "GUIDE004"), found


def test_a_brand_image_does_not_cover_another_brands_section(corpus_copy: Path) -> None:
    text = recipe(minimum="0.6.0", model_extra=amd_image("nightly"),
                  guide_cmd=in_section("### NVIDIA B200"))
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "GUIDE004")
    assert "exists only from vLLM 0.8.2" in hit.message


def test_a_brand_section_without_an_image_of_its_own_keeps_the_recipes_range(
        corpus_copy: Path) -> None:
    text = recipe(minimum="0.6.0", guide_cmd=in_section("### AMD MI350X/MI355X"))
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "GUIDE004")
    assert "exists only from vLLM 0.8.2" in hit.message


def test_a_hardware_with_its_own_image_covers_the_section_headed_for_it(
        corpus_copy: Path) -> None:
    override = ("    hardware_overrides:\n      dgx_spark_gb10:\n"
                '        docker_image: "example/spark-vllm-build:latest"\n')
    text = recipe(minimum="0.6.0", guide_cmd=in_section("### DGX Spark (GB10)"))
    text = text.replace('    description: "Full precision BF16"\n',
                        '    description: "Full precision BF16"\n' + override)
    found, _ = run(corpus_copy, text)
    assert not of(found, "GUIDE004"), found


NIGHTLY = "  nightly_required: true\n"


@pytest.mark.parametrize("where", ["structured", "guide"])
def test_a_value_no_release_has_is_info_when_the_recipe_installs_unreleased_code(
        corpus_copy: Path, where: str) -> None:
    """A released minimum installed as nightly: a parser name no vendored release has
    may be in the nightly build (FLAG024 / GUIDE018 info), as an unreleased flag is."""
    args = ("--tool-call-parser", "brand_new_model_parser")
    text = recipe(f'["{args[0]}", "{args[1]}"]', minimum="0.20.0", model_extra=NIGHTLY) \
        if where == "structured" else recipe(
            minimum="0.20.0", model_extra=NIGHTLY,
            guide_cmd="vllm serve example-org/Example-8B " + " ".join(args))
    found, _ = run(corpus_copy, text)
    info, error = ("FLAG024", "FLAG006") if where == "structured" else ("GUIDE018", "GUIDE006")
    (hit,) = of(found, info)
    assert hit.severity.value == "info" and "brand_new_model_parser" in hit.message
    assert not of(found, error), found


def test_a_typo_of_a_released_value_or_a_released_install_stays_an_error(
        corpus_copy: Path) -> None:
    typo, _ = run(corpus_copy, recipe('["--tool-call-parser", "hermess"]', minimum="0.20.0",
                                      model_extra=NIGHTLY))
    assert of(typo, "FLAG006") and not of(typo, "FLAG024")
    released, _ = run(corpus_copy, recipe('["--tool-call-parser", "brand_new_model_parser"]',
                                          minimum="0.20.0"))
    assert of(released, "FLAG006") and not of(released, "FLAG024")


OMNI_CMD = "vllm serve example-org/Example-8B --omni --deploy-config deploy/two_gpu.yaml"
"""``--deploy-config`` is vLLM-Omni's from 0.20.0; the minimum 0.19.0 pairs with
vLLM-Omni 0.18.0."""


def test_a_plugin_installed_from_source_is_not_bounded_by_its_releases(
        corpus_copy: Path) -> None:
    """vLLM-Omni installed from git in one section, served in the next: the serving
    section states nothing itself, the recipe's only vLLM-Omni install is source code."""
    from_git = ("uv pip install git+https://github.com/vllm-project/vllm-omni.git\n  ```\n\n"
                "  ## Launch\n\n  ```bash\n  " + OMNI_CMD)
    found, _ = run(corpus_copy, recipe(minimum="0.19.0", guide_cmd=from_git))
    assert not of(found, "GUIDE004"), found
    released, _ = run(corpus_copy, recipe(minimum="0.19.0", guide_cmd=OMNI_CMD))
    (hit,) = of(released, "GUIDE004")
    assert "vLLM-Omni 0.20.0" in hit.message


def image(ref: str) -> str:
    return f'  docker_image:\n    amd: "{ref}"\n'


DEV = "rocm/vllm-dev:vllm-0.23.1-rocm723-mi35x-0625"
"""A dated third-party build past vLLM 0.23.1."""


def test_a_dev_build_is_not_held_to_a_minimum_no_release_has_yet(corpus_copy: Path) -> None:
    found, _ = run(corpus_copy, recipe(minimum="0.99.0", model_extra=image(DEV)))
    assert not of(found, "VER002"), found


@pytest.mark.parametrize(("minimum", "ref"), [
    ("0.24.0", DEV),  # a released minimum: the build's 0.23.1 is older
    ("0.99.0", "vllm/vllm-openai-rocm:v0.23.1"),  # vLLM's own release image is exact
])
def test_an_image_older_than_a_minimum_it_cannot_carry_stays_ver002(
        corpus_copy: Path, minimum: str, ref: str) -> None:
    found, _ = run(corpus_copy, recipe(minimum=minimum, model_extra=image(ref)))
    (hit,) = of(found, "VER002")
    assert "is vLLM 0.23.1" in hit.message


@pytest.mark.parametrize(("image", "judged"), [
    ("vllm/vllm-openai-rocm:latest", False),  # the newest release runs it
    ("vllm/vllm-openai:latest", False),
    ("example-org/vllm-build:latest", True),  # not vLLM's release image: the recipe's range
])
def test_a_docker_command_in_vllms_latest_image_runs_the_newest_release(
        corpus_copy: Path, image: str, judged: bool) -> None:
    cmd = (f"docker run --ipc=host {image} example-org/Example-8B "
           "--speculative-config '{\"method\": \"eagle3\"}'")
    text = recipe(minimum="0.6.0", guide_cmd=in_section("### Docker", cmd))
    found, _ = run(corpus_copy, text)
    assert bool(of(found, "GUIDE004")) is judged, found


def test_a_value_no_release_has_in_a_community_image_section_is_an_info_naming_it(
        corpus_copy: Path) -> None:
    """The DGX Spark section runs the community image the recipe gives that hardware: a
    parser name no vendored release has cannot be checked there, so it is a GUIDE018 info
    that names the image, not an error and not nothing."""
    override = ("    hardware_overrides:\n      dgx_spark_gb10:\n"
                '        docker_image: "example/spark-vllm-build:latest"\n')
    cmd = "vllm serve example-org/Example-8B --tool-call-parser brand_new_model_parser"
    text = recipe(minimum="0.20.0", guide_cmd=in_section("### DGX Spark (GB10)", cmd))
    text = text.replace('    description: "Full precision BF16"\n',
                        '    description: "Full precision BF16"\n' + override)
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "GUIDE018")
    assert hit.severity.value == "info"
    assert "example/spark-vllm-build:latest" in hit.message
    assert "cannot be verified" in hit.message
    assert not of(found, "GUIDE006"), found
