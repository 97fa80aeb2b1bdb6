"""``VER015``, ``VER016``: a ``docker_image`` names an image vLLM publishes, for the
hardware its key serves: a repository one typo away from vLLM's own, a release tag
without its ``v``, a release that never was, a ROCm image for NVIDIA machines, a CUDA 13
build in the ``cu129`` entry."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from validator.analysis.edit_distance import edit_distance
from validator.analysis.recipe_data import get
from validator.analysis.stated_versions import (
    BRAND_KEYS,
    CUDA_KEYS,
    OFFICIAL_REPOSITORIES,
    RELEASE_LIKE,
    TAG_VERSION,
    ImageRef,
    ImageSite,
    image_platform,
    image_sites,
    official_vllm_image,
    parse_image,
    release_list,
    repository,
    tag_version,
)
from validator.findings import Severity
from validator.rules.api import Hit, Reads, rule
from validator.rules.ver.cpu_image import cpu_image_misplaced, replacement_repository

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument
    from validator.releases import ReleaseList

#: How many edits (a letter added, dropped, changed, or two swapped) a repository may be
#: from one of vLLM's own and still be read as a misspelling of it.
NEAR = 2
_CUDA_BUILD = re.compile(r"(?<![a-z0-9])(cu\d{3})(?![0-9])", re.IGNORECASE)


@rule("VER015", Severity.ERROR, "docker_image names an image or tag vLLM does not publish",
      reads=frozenset({Reads.RELEASES}))
def image_is_published(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """vLLM's images are ``vllm/vllm-openai``, ``vllm/vllm-openai-rocm``,
    ``vllm/vllm-tpu``, ``vllm/vllm-openai-xpu``, ``vllm/vllm-openai-cpu`` and vLLM-Omni's
    ``vllm/vllm-omni[-rocm]``; their release tags are ``v`` and the release
    (``v0.20.2``, with build suffixes such as ``-cu130`` or ``-ubuntu2404``). Reported,
    because ``docker pull`` fails on each: a repository at most two edits from one of
    those (``vllm/vllm-opneai``) or one of them without ``vllm/``; a release tag of a vLLM
    image without the ``v`` (``0.20.2``); a tag naming a release older than the newest one
    of the run's release list that the list does not have (``v0.20.9``); a tag that
    starts like a release but is none (``v0.11.l``). Launch builds (``:glm5``), nightlies,
    ``latest`` and releases newer than the list are not judged here (``VER003``,
    ``VER012``).

    Failing::

        model:
          docker_image: "vllm/vllm-openai:0.20.2"

    Passing::

        model:
          docker_image: "vllm/vllm-openai:v0.20.2"

    How to fix: write the repository and the release tag as vLLM publishes them (the hint
    names them)."""
    releases = release_list(ctx)
    for site in image_sites(doc):
        ref = parse_image(site.value)
        if ref is None:
            continue  # VER004
        near = near_official(repository(ref))
        if near is not None:
            yield Hit(site.pointer, f"image {site.value!r}: {repository(ref)!r} is not an "
                      f"image repository of vLLM (did you mean {near}?)",
                      f"write {near}" + (f":{ref.tag}" if ref.tag else ""))
            continue
        found = tag_problem(ref, releases)
        if found is not None:
            yield Hit(site.pointer, f"image {site.value!r}: {found[0]}", found[1])


def near_official(repo: str) -> str | None:
    """The repository of vLLM's own (:data:`OFFICIAL_REPOSITORIES`) that ``repo`` (not
    one of them) misspells: at most :data:`NEAR` edits away, or its name without
    ``vllm/``; ``None`` otherwise."""
    if repo in OFFICIAL_REPOSITORIES:
        return None
    for known in OFFICIAL_REPOSITORIES:
        if repo == known.split("/", 1)[1] or edit_distance(repo, known) <= NEAR:
            return known
    return None


def tag_problem(ref: ImageRef, releases: ReleaseList) -> tuple[str, str] | None:
    """``(message, hint)`` when the tag of vLLM image ``ref`` cannot be one it publishes:
    a release without ``v``, a release the list lacks, or a release-like typo."""
    if not official_vllm_image(ref) or ref.tag is None or ref.digest is not None:
        return None
    tag = ref.tag
    version = tag_version(ref)
    if version is None:
        if RELEASE_LIKE.match(tag):
            return (f"tag {tag!r} starts like a release tag but names no release (a typo?)",
                    "write a release tag such as v0.20.2")
        return None
    if TAG_VERSION.match(tag) and tag[:1].lower() != "v":
        return (f"tag {tag!r} has no 'v': vLLM tags its releases v{tag}",
                f"write {repository(ref)}:v{tag}")
    latest = releases.latest
    if (version.is_prerelease or version.is_devrelease or latest is None
            or version > latest.version or releases.is_released(version)):
        return None
    nxt = releases.first_at_least(version)
    return (f"tag {tag!r} names vLLM {version}, which was never released",
            f"use a released version (the next one is {nxt.version})" if nxt else
            "use a released version")


@rule("VER016", Severity.ERROR,
      "docker_image is built for other hardware or another CUDA than its key",
      reads=frozenset({Reads.TAXONOMY}))
def image_fits_its_key(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The site gives an image to the machines of its key: a plain string and a CUDA map
    to NVIDIA, ``nvidia``/``amd``/``tpu``/``intel`` of a brand map to that brand, a
    variant's ``hardware_overrides.<hw>.docker_image`` to that profile's brand (the
    taxonomy's ``brand``); the ``cu129``/``cu130`` entries of a CUDA map to readers who
    pick that CUDA build. Reported: an image built for another brand (a ROCm image,
    ``vllm/vllm-openai-rocm`` or ``rocm/...``, for NVIDIA; ``vllm/vllm-openai`` for
    ``amd``), vLLM's CPU image (``vllm/vllm-openai-cpu``) for NVIDIA, AMD, TPU or another
    accelerator profile (not for ``intel``, which also serves Xeon CPUs), and a CUDA entry
    whose tag names another CUDA build (``cu129: vllm/vllm-openai:v0.13.0-cu130``). An
    image whose name does not say its hardware (a community build) is not judged.

    Failing::

        model:
          docker_image:
            nvidia: "vllm/vllm-openai:v0.20.2"
            amd: "vllm/vllm-openai:v0.20.2"

    Passing::

        model:
          docker_image:
            nvidia: "vllm/vllm-openai:v0.20.2"
            amd: "vllm/vllm-openai-rocm:v0.20.2"

    How to fix: put the image under the key of the hardware it is built for (or write the
    image of that hardware)."""
    for site in image_sites(doc):
        ref = parse_image(site.value)
        if ref is None:
            continue
        brand = _site_brand(ctx, site)
        built = image_platform(ref)
        if brand is not None and built is not None and built != brand:
            yield Hit(site.pointer, f"image {site.value!r} is built for {built} machines, but "
                      f"{_key_of(site)} gives it to {brand} machines",
                      f"use a {brand} image here, or move this one under `{built}`")
            continue
        accelerator = cpu_image_misplaced(ctx, site, ref)
        if accelerator is not None:
            fit = replacement_repository(ctx, site, ref) or f"the {accelerator} image"
            yield Hit(site.pointer, f"image {site.value!r} is vLLM's CPU build, but "
                      f"{_key_of(site)} gives it to {accelerator} machines: it has no "
                      f"{accelerator} backend", f"use {fit} here (a CPU image belongs to a "
                      "CPU profile's hardware_overrides)")
            continue
        key = site.pointer.rsplit("/", 1)[-1]
        builds = {b.lower() for b in _CUDA_BUILD.findall(ref.tag or "")}
        if key in CUDA_KEYS and builds and key not in builds:
            yield Hit(site.pointer, f"image {site.value!r} is a {'/'.join(sorted(builds))} "
                      f"build, but it is the map's {key} entry",
                      f"write the {key} build of the release here (or swap the entries)")


def _site_brand(ctx: Context, site: ImageSite) -> str | None:
    """The brand key of the machines the site gives the image at ``site``."""
    if site.brand in BRAND_KEYS:
        return site.brand
    brand = get(ctx.hardware_profiles.get(site.brand), "brand")
    return brand.lower() if isinstance(brand, str) and brand.lower() in BRAND_KEYS else None


def _key_of(site: ImageSite) -> str:
    """How a message names what gives the image at ``site`` to its machines."""
    if site.brand not in BRAND_KEYS:
        return f"hardware_overrides.{site.brand}"
    if site.brand in site.pointer.split("/")[-2:]:
        return f"the `{site.brand}` key"
    return "a docker_image string or CUDA map (the site's NVIDIA image)"
