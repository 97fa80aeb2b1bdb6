"""``VER017``: a vLLM-Ascend image tag (``quay.io/ascend/vllm-ascend:v0.11.0``), in a
``docker_image`` or in a command of the guide, names a vLLM-Ascend release."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from packaging.version import Version

from validator.analysis import cli_plan
from validator.analysis.stated_versions import (
    ascend_base,
    ascend_release,
    image_sites,
    parse_image,
    release_list,
    text_ascend_images,
    text_sources,
)
from validator.findings import Severity
from validator.rules.api import Hit, Reads, rule
from validator.vllm_cli.plugins import ASCEND

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument
    from validator.releases import ReleaseList


@rule("VER017", Severity.ERROR, "vLLM-Ascend image tag names no vLLM-Ascend release",
      reads=frozenset({Reads.RELEASES, Reads.CLI_REGISTRY}))
def ascend_tag_is_release(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """vLLM-Ascend numbers its releases after the vLLM each is built on (0.11.0rc1 and
    0.11.0 on vLLM 0.11.0, 0.23.0.post1 on 0.23.0: the ``vllm_version`` of every vendored
    release, ``snapshots/vllm-cli/vllm-ascend/*.json``), and tags its image
    (``quay.io/ascend/vllm-ascend``) ``v`` and the release, with platform suffixes such
    as ``-a5`` or ``-openeuler``. A release tag whose vLLM was never released (older
    than the newest release of the run's release list, which the list does not have:
    ``v0.11.9``) names no vLLM-Ascend release, and ``docker pull`` fails; in a
    ``docker_image`` and in the guide's commands (``docker run ...
    quay.io/ascend/vllm-ascend:v0.11.9``) alike. A vendored vLLM-Ascend release is one;
    launch builds (``:qwen3.8-a5``), ``latest`` and ``main`` are not judged here
    (``VER003``, ``VER012``).

    Failing::

        variants:
          default:
            hardware_overrides:
              ascend_950pr:
                docker_image: "quay.io/ascend/vllm-ascend:v0.11.9"

    Passing::

        variants:
          default:
            hardware_overrides:
              ascend_950pr:
                docker_image: "quay.io/ascend/vllm-ascend:v0.11.0"

    How to fix: write the tag of a vLLM-Ascend release (the hint names the nearest
    vendored one)."""
    releases = release_list(ctx)
    vendored = cli_plan.versions(ctx.cli, ASCEND.name)
    for site in image_sites(doc):
        ref = parse_image(site.value)
        release = ascend_release(ref) if ref is not None else None
        found = _no_release(release, releases, vendored) if release is not None else None
        if found is not None:
            yield Hit(site.pointer, f"image {site.value!r}: {found[0]}", found[1])
    seen: set[str] = set()
    for pointer, index, text in text_sources(doc):
        for image, release in text_ascend_images(text):
            found = _no_release(release, releases, vendored)
            if found is None or image in seen:
                continue
            seen.add(image)
            where = "the guide" if pointer == "/guide" else pointer
            yield Hit(pointer, f"{where} runs `{image}`: {found[0]}", found[1],
                      block_index=index)


def _no_release(release: Version, releases: ReleaseList,
                vendored: tuple[Version, ...]) -> tuple[str, str] | None:
    """``(message, hint)`` when vLLM-Ascend ``release`` cannot be one: not vendored, and
    built on a vLLM the release list lacks though it is older than the list's newest."""
    base = ascend_base(release)
    latest = releases.latest
    if release in vendored or latest is None or base > latest.version \
            or releases.is_released(base):
        return None
    after = [v for v in vendored if v > release]
    before = [v for v in vendored if v < release]
    near = [str(v) for v in (before[-1:] + after[:1])]
    return (f"tag v{release} names no vLLM-Ascend release: vLLM-Ascend releases are built "
            f"on the vLLM of their number, and vLLM {base} was never released",
            "use a vLLM-Ascend release tag" + (f" (vendored near it: "
                                               f"{', '.join('v' + n for n in near)})"
                                               if near else ""))
