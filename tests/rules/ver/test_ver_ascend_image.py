"""vLLM-Ascend's image tags (``quay.io/ascend/vllm-ascend:v0.9.1``) are compared with the
recipe's minimum by the vLLM their release is built on (VER002 in the YAML, VER008 in the
guide) and a release tag naming no vLLM-Ascend release is VER017 (trial 13 #2), on the
real vendored release list and vLLM-Ascend data."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from tests.analysis.test_install_range import run
from tests.rules.flag.test_flag_ascend_pinned_image import on_ascend
from validator.analysis.stated_versions import ascend_base
from validator.vllm_cli.data_source import CliRegistries
from validator.vllm_cli.plugins import ASCEND

IMAGE = "/variants/default/hardware_overrides/ascend_950pr/docker_image"


def guide_running(image: str) -> str:
    """A guide section running ``image`` on the NPU."""
    return ("\n  ## Ascend 950PR\n\n  ```bash\n  docker run --rm "
            f"{image} \\\n    vllm serve example-org/Example-8B\n  ```\n")


def rules_of(corpus_copy: Path, text: str) -> list[tuple[str, str, str]]:
    found, _ = run(corpus_copy, text)
    return [(f.rule, f.pointer, f.message) for f in found if f.rule.startswith("VER")]


@pytest.mark.parametrize(("tag", "expected"), [
    ("v0.9.1", ["VER002"]),      # built on vLLM 0.9.1 < 0.10.0
    ("v0.11.0", []),
    ("v0.11.0rc1", []),          # a pre-release of a vLLM release's number
    ("v0.23.0-a5", []),          # a platform build of a release
    ("v0.11.9", ["VER017"]),     # vLLM 0.11.9 was never released
    ("qwen3.8-a5", ["VER003"]),  # a launch build: not a release, not judged as one
])
def test_an_ascend_image_tag_in_the_yaml(corpus_copy: Path, tag: str,
                                         expected: list[str]) -> None:
    found = rules_of(corpus_copy, on_ascend(f"quay.io/ascend/vllm-ascend:{tag}", ""))
    assert [r for r, p, _ in found if p == IMAGE] == expected, found


def test_an_ascend_image_below_the_minimum_names_its_release_and_vllm(
        corpus_copy: Path) -> None:
    found = rules_of(corpus_copy, on_ascend("quay.io/ascend/vllm-ascend:v0.9.1", ""))
    (message,) = [m for r, _, m in found if r == "VER002"]
    assert "is vLLM-Ascend 0.9.1 (built on vLLM 0.9.1), but variant 'default'" in message
    assert message.endswith("needs vLLM 0.10.0")


@pytest.mark.parametrize(("tag", "expected"), [
    ("v0.9.1", ["VER008"]), ("v0.11.0", []), ("v0.11.9", ["VER017"])])
def test_an_ascend_image_tag_in_the_guide(corpus_copy: Path, tag: str,
                                          expected: list[str]) -> None:
    image = f"quay.io/ascend/vllm-ascend:{tag}"
    text = on_ascend("quay.io/ascend/vllm-ascend:v0.11.0", "", guide=guide_running(image))
    found = rules_of(corpus_copy, text)
    assert [r for r, p, m in found if p == "/guide" and image in m] == expected, found


def test_every_vendored_ascend_release_is_built_on_the_vllm_of_its_number() -> None:
    """What :func:`~validator.analysis.stated_versions.ascend_base` reads a tag by (an
    image tag below the minimum, a tag whose vLLM was never released) holds for the
    vendored releases: each ``plugin.vllm_version`` is its release's base version."""
    cli = CliRegistries()
    releases = cli.versions(ASCEND.name)
    assert len(releases) > 20
    for release in releases:
        info = cli.registry(str(release), ASCEND.name).plugin
        assert info is not None
        assert Version(info.vllm_version) == ascend_base(release), release
