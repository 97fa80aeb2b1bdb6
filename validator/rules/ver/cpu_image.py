"""vLLM's CPU image (``vllm/vllm-openai-cpu``) given to machines that serve on an
accelerator: what ``VER016`` reports about it, and the image ``VER003``'s hint proposes
instead of it there.

The CPU build has no CUDA, ROCm, TPU or XPU backend: on an H100 or an MI300X it serves on
the host CPU, or not at all, whatever ``--gpus all`` says. The site gives a plain
``docker_image`` string, a CUDA map and the ``nvidia`` key to NVIDIA GPUs, ``amd`` to AMD
GPUs, ``tpu`` to TPUs: none of them is a CPU. The ``intel`` key serves both Arc GPUs and
Xeon CPUs, so it is not judged; a variant's ``hardware_overrides.<hw>.docker_image`` is
judged by the profile's ``generation`` in the taxonomy (``cpu`` for Xeon).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.analysis.recipe_data import get
from validator.analysis.stated_versions import ImageRef, ImageSite, repository

if TYPE_CHECKING:
    from validator.context import Context

CPU_REPOSITORY = "vllm/vllm-openai-cpu"
"""vLLM's CPU image repository on Docker Hub (x86 and Arm builds)."""

BRAND_IMAGES = {"nvidia": "vllm/vllm-openai", "amd": "vllm/vllm-openai-rocm",
                "tpu": "vllm/vllm-tpu"}
"""The brand keys whose machines are all accelerators -> vLLM's image for them."""


def accelerator_of(ctx: Context, site: ImageSite) -> str | None:
    """What accelerator the machines the site at ``site`` gives its image to serve on
    (``nvidia``, ``amd``, ``tpu``, or a profile's ``generation`` such as ``xpu``);
    ``None`` when they may be CPUs (the ``intel`` key, a ``cpu`` profile) or the taxonomy
    does not say."""
    if site.brand in BRAND_IMAGES:
        return site.brand
    if site.brand == "intel":
        return None
    generation = get(ctx.hardware_profiles.get(site.brand), "generation")
    if isinstance(generation, str) and generation.strip() and generation.lower() != "cpu":
        return generation.lower()
    return None


def cpu_image_misplaced(ctx: Context, site: ImageSite, ref: ImageRef) -> str | None:
    """The accelerator (:func:`accelerator_of`) of the machines ``site`` gives vLLM's CPU
    image ``ref`` to; ``None`` when ``ref`` is another image or those machines may be
    CPUs."""
    if repository(ref) != CPU_REPOSITORY:
        return None
    return accelerator_of(ctx, site)


def replacement_repository(ctx: Context, site: ImageSite, ref: ImageRef) -> str | None:
    """vLLM's image for the machines of ``site`` when ``ref`` is the CPU image misplaced
    there (:func:`cpu_image_misplaced`) and their brand has one; ``None`` otherwise (a
    hint then keeps ``ref``'s own repository)."""
    if cpu_image_misplaced(ctx, site, ref) is None:
        return None
    if site.brand in BRAND_IMAGES:
        return BRAND_IMAGES[site.brand]
    brand = get(ctx.hardware_profiles.get(site.brand), "brand")
    if not isinstance(brand, str):
        return None
    return BRAND_IMAGES.get({"google": "tpu"}.get(brand.lower(), brand.lower()))
