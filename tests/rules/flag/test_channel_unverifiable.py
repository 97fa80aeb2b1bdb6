"""What cannot be verified in an install channel no vendored release describes (a
community, dev, nightly or launch image the recipe gives a hardware or a guide section)
is said plainly, naming the image, for environment variables and ``--additional-config``
keys as for flags and values: an info, never a warning or an error.

The recipes are small ones of our own, written into a copy of the real recipes tree and
run through the full pipeline (:func:`tests.analysis.test_install_range.run`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from tests.analysis.test_install_range import recipe, run
from tests.rules.flag.test_install_channel import spark, with_hardware
from validator.analysis.flag_engine import check_tokens
from validator.analysis.install_channel import Stated, channel_plan
from validator.context import Settings, local_context

SPARK_ENV = ('        extra_args: []\n'
             '        extra_env: {VLLM_SPARK_ONLY_SWITCH: "1"}\n')
"""A variable no vendored vLLM release reads, set for DGX Spark only."""
SPARK_VAR = "/variants/default/hardware_overrides/dgx_spark_gb10/extra_env/VLLM_SPARK_ONLY_SWITCH"


@pytest.mark.parametrize("rendered", [False, True])
def test_a_variable_no_release_reads_in_a_community_build_is_an_info_naming_it(
        corpus_copy: Path, rendered: bool) -> None:
    """In the recipe's range the variable is FLAG016's warning; on DGX Spark running
    ``eugr/spark-vllm-b12x:latest`` it is the FLAG024 info naming that image: per
    rendered configuration, and in the map's own check (``--layers-only``) alike."""
    settings = Settings(rendered=rendered)
    found, _ = run(corpus_copy, with_hardware(recipe(), spark(None, SPARK_ENV)), settings)
    assert [(f.rule, f.severity.value) for f in found if f.pointer == SPARK_VAR] == [
        ("FLAG016", "warning")]
    found, _ = run(corpus_copy, with_hardware(recipe(), spark("eugr/spark-vllm-b12x:latest",
                                                              SPARK_ENV)), settings)
    (hit,) = [f for f in found if f.pointer == SPARK_VAR]
    assert (hit.rule, hit.severity.value) == ("FLAG024", "info")
    assert "`VLLM_SPARK_ONLY_SWITCH` is not an environment variable any vendored vLLM " \
        "release reads; the recipe runs it in eugr/spark-vllm-b12x:latest" in hit.message
    assert "cannot be verified" in hit.message
    assert ("on dgx_spark_gb10" in hit.message) is rendered


@pytest.mark.parametrize("rendered", [False, True])
def test_a_variable_set_in_a_release_image_is_judged_at_that_release(
        corpus_copy: Path, rendered: bool) -> None:
    """``VLLM_USE_BREAKABLE_CUDAGRAPH`` is read from vLLM 0.22.0: above the recipe's
    0.12.0 a warning; on DGX Spark pinned to vLLM's own ``v0.25.0`` image, read there."""
    settings = Settings(rendered=rendered)
    env = '        extra_args: []\n        extra_env: {VLLM_USE_BREAKABLE_CUDAGRAPH: "1"}\n'
    var = SPARK_VAR.replace("VLLM_SPARK_ONLY_SWITCH", "VLLM_USE_BREAKABLE_CUDAGRAPH")
    found, _ = run(corpus_copy, with_hardware(recipe(), spark(None, env)), settings)
    assert [f.rule for f in found if f.pointer == var] == ["FLAG016"]
    found, _ = run(corpus_copy, with_hardware(recipe(), spark("vllm/vllm-openai:v0.25.0", env)),
                   settings)
    assert [f.rule for f in found if f.pointer == var] == []


GUIDE = """guide: |
  ## DGX Spark (GB10)

  ```bash
  VLLM_SPARK_ONLY_SWITCH=1 vllm serve example-org/Example-8B
  ```
"""


@pytest.mark.parametrize("image", ["eugr/spark-vllm-b12x:latest", None])
def test_a_guide_variable_in_a_community_build_section_is_an_info_naming_it(
        corpus_copy: Path, image: str | None) -> None:
    """A guide command of the section headed for DGX Spark, which the recipe runs in the
    community build: GUIDE018's info naming it, not GUIDE010's warning; without that
    image the section runs the recipe's range and the warning stays."""
    text = with_hardware(recipe(), spark(image, "        extra_args: []\n"))
    text = text[:text.index("guide:")] + GUIDE
    found, _ = run(corpus_copy, text)
    rules = [(f.rule, f.severity.value) for f in found
             if "VLLM_SPARK_ONLY_SWITCH" in f.message]
    if image is None:
        assert rules == [("GUIDE010", "warning")]
        return
    assert rules == [("GUIDE018", "info")]
    (hit,) = [f for f in found if f.rule == "GUIDE018"]
    assert "eugr/spark-vllm-b12x:latest" in hit.message and "cannot be verified" in hit.message


def test_an_additional_config_key_no_release_reads_in_a_launch_image_is_an_info(
        corpus_copy: Path) -> None:
    """vLLM-Ascend refuses unknown ``--additional-config`` keys; in a launch image of
    its own (no vendored release describes it) an unknown key may be the launch's: the
    unverifiable info naming the image; checked at a release it stays the error."""
    ctx = local_context(corpus_copy, Settings())
    tokens = ["--additional-config", '{"launch_only_switch": true}']
    image = Stated(None, None, True, "the recipe runs it in quay.io/ascend/vllm-ascend:"
                   "launch (model.docker_image)")
    plan = channel_plan(ctx.cli, Version("0.11.0"), "vllm-ascend", None, False, (image,))
    _, issues = check_tokens(tokens, plan)
    (issue,) = issues
    assert issue.code == "unreleased_only"
    assert "`launch_only_switch`" in issue.message
    assert "quay.io/ascend/vllm-ascend:launch" in issue.message
    released = channel_plan(ctx.cli, Version("0.11.0"), "vllm-ascend", None, False, ())
    _, issues = check_tokens(tokens, released)
    assert [i.code for i in issues] in (["config_key_rejected"], ["config_key_ignored"])
