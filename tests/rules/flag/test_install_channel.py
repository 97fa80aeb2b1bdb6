"""The structured arguments of a configuration are checked against the vLLM of its install
channel: the image the recipe gives its hardware (a community build carrying a backend, a
pinned release) and the minimum its features state, both in the argument list's own
check and on every rendered command.

Each test writes a small recipe of our own into a copy of the real recipes tree and runs
the full pipeline on it (:func:`tests.analysis.test_install_range.run`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.analysis.test_install_range import recipe, run
from validator.context import Settings
from validator.findings import Finding

VERSION_RULES = ("FLAG001", "FLAG002", "FLAG006", "FLAG023")
"""The rules whose verdict depends on the vLLM that runs a token."""
SPARK_ARGS = '        extra_args: ["--linear-backend", "b12x"]\n'
"""``--linear-backend`` exists from vLLM 0.22.0, ``b12x`` is a value no release has; the
recipes claim 0.12.0."""


def with_hardware(text: str, overrides: str, model_overrides: str = "") -> str:
    """``text`` (:func:`recipe`) declaring DGX Spark and B200, with ``overrides`` under
    the default variant and ``model_overrides`` under the model's hardware_overrides."""
    text = text.replace("    h100: verified\n", "    h100: verified\n    dgx_spark_gb10: "
                        "verified\n    b200: verified\n")
    text = text.replace('    description: "Full precision BF16"\n',
                        '    description: "Full precision BF16"\n    hardware_overrides:\n'
                        + overrides)
    if model_overrides:
        text = text.replace("compatible_strategies:", "hardware_overrides:\n"
                            + model_overrides + "\ncompatible_strategies:")
    return text


def spark(image: str | None, args: str = SPARK_ARGS) -> str:
    return "      dgx_spark_gb10:\n" + (
        f'        docker_image: "{image}"\n' if image else "") + args


def errors_at(found: list[Finding], prefix: str) -> list[tuple[str, str]]:
    return [(f.rule, f.pointer) for f in found if f.rule in VERSION_RULES
            and f.severity.value == "error" and f.pointer.startswith(prefix)]


SPARK_LIST = "/variants/default/hardware_overrides/dgx_spark_gb10/extra_args"


@pytest.mark.parametrize("rendered", [False, True])
def test_a_hardware_in_a_community_build_is_not_held_to_the_recipes_minimum(
        corpus_copy: Path, rendered: bool) -> None:
    """In the recipe's range (0.12.0 on) both tokens are errors; DGX Spark running
    ``eugr/spark-vllm-b12x:latest`` (a community build: a recent vLLM and code of its
    own) has them, or may: checked as nightly code, no error; in the list's own check
    and on the rendered commands alike."""
    settings = Settings(rendered=rendered)
    found, _ = run(corpus_copy, with_hardware(recipe(), spark(None)), settings)
    assert ("FLAG002", SPARK_LIST + "/0") in errors_at(found, SPARK_LIST)
    found, _ = run(corpus_copy, with_hardware(recipe(), spark("eugr/spark-vllm-b12x:latest")),
                   settings)
    assert errors_at(found, SPARK_LIST) == []


@pytest.mark.parametrize("rendered", [False, True])
def test_a_token_no_release_has_in_a_community_build_is_an_info_naming_the_image(
        corpus_copy: Path, rendered: bool) -> None:
    """A value and an option no vendored release has, on DGX Spark running
    ``eugr/spark-vllm-b12x:latest``: the build cannot be checked, so each is a FLAG024
    info saying it runs there and cannot be verified; never an error or a warning."""
    args = ('        extra_args: ["--moe-backend", "sparkonly", "--spark-resident-layers", '
            '"4"]\n')
    found, _ = run(corpus_copy, with_hardware(recipe(), spark(
        "eugr/spark-vllm-b12x:latest", args)), Settings(rendered=rendered))
    on_list = [f for f in found if f.pointer.startswith(SPARK_LIST)
               and f.rule.startswith("FLAG")]
    assert [f for f in on_list if f.severity.value != "info"] == []
    infos = {f.pointer: f.message for f in on_list if f.rule == "FLAG024"}
    assert set(infos) == {SPARK_LIST + "/1", SPARK_LIST + "/2"}
    assert all("eugr/spark-vllm-b12x:latest" in m and "cannot be verified" in m
               for m in infos.values())


def test_a_hardware_pinned_to_a_release_image_is_checked_at_that_release(
        corpus_copy: Path) -> None:
    """vLLM's own ``v0.25.0`` image has ``--linear-backend`` (no FLAG002 at the recipe's
    0.12.0), and does not accept ``b12x``: that stays an error, of that release."""
    found, _ = run(corpus_copy, with_hardware(recipe(), spark("vllm/vllm-openai:v0.25.0")))
    assert errors_at(found, SPARK_LIST) == [("FLAG006", SPARK_LIST + "/1")]
    (hit,) = [f for f in found if f.rule == "FLAG006" and f.pointer == SPARK_LIST + "/1"]
    assert "0.25.0" in hit.message


GENERATION_LIST = "/hardware_overrides/blackwell/extra_args"


def test_a_generations_list_is_judged_in_the_channels_of_the_hardware_rendering_it(
        corpus_copy: Path) -> None:
    """A model-level list for every Blackwell hardware (B200, B300, DGX Spark ...). While
    any of them runs the recipe's range, the list's tokens are errors; once every NVIDIA
    hardware runs the community build the recipe keys to the brand, the rendered
    commands, each checked in its own channel, are the verdict (the list's own check
    cannot tell which hardware renders it)."""
    blackwell = '  blackwell:\n    extra_args: ["--linear-backend", "b12x"]\n'
    community = spark("eugr/spark-vllm-b12x:latest", "")
    rendered = Settings(rendered=True)
    found, _ = run(corpus_copy, with_hardware(recipe(), community, blackwell), rendered)
    assert ("FLAG002", GENERATION_LIST + "/0") in errors_at(found, GENERATION_LIST)
    nvidia = '  docker_image:\n    nvidia: "example/nvidia-build:latest"\n'
    found, _ = run(corpus_copy, with_hardware(recipe(model_extra=nvidia), community, blackwell),
                   rendered)
    assert errors_at(found, GENERATION_LIST) == []


FEATURE = """features:
  multimodal:
    description: "Text only{said}"
    args: ["--language-model-only"]

variants:"""


@pytest.mark.parametrize("rendered", [False, True])
@pytest.mark.parametrize(("said", "errors"), [
    ("", [("FLAG002", "/features/multimodal/args/0")]),
    (" (requires vLLM >= 0.17.0)", []),
    # a fact about one release is no requirement
    (" (fixed in vLLM 0.17.0)", [("FLAG002", "/features/multimodal/args/0")]),
])
def test_a_feature_stating_its_own_minimum_is_checked_at_it(
        corpus_copy: Path, said: str, errors: list[tuple[str, str]], rendered: bool) -> None:
    """``--language-model-only`` exists from vLLM 0.17.0; the recipe claims 0.12.0. A
    feature whose description states that it needs 0.17.0 runs there."""
    text = recipe().replace("variants:", FEATURE.format(said=said), 1)
    found, _ = run(corpus_copy, text, Settings(rendered=rendered))
    assert errors_at(found, "/features/") == errors
